package nesting

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDepthSkipsStringsAndComments: brackets in strings and
// comments do not nest, and no string can hide brackets that do.
func TestDepthSkipsStringsAndComments(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Syntax
		text string
		want int
	}{
		{"toml arrays and inline tables", TOML, "a = [[1], {b = [2]}]\n", 3},
		{"toml table headers", TOML, "[a]\nx = 1\n[[b]]\ny = [1]\n", 3},
		{"toml dotted keys", TOML, "[a.b]\nc.d.e = 1.5\nf = {g.h = [1.5, 2.5]}\n", 5},
		{"toml quoted key parts", TOML, "[\"a.b\".'c.d']\n\"e.f\" = 1\n", 2},
		{"toml strings", TOML, `a = ["]]", '[[[', "\"[", """ [[ """, ''' ]]] ''']` + "\n", 1},
		{"toml strings cannot hide nesting", TOML, `a = [ "]", [ "]", [ "]", [ ']', [ """]""", [ 1 ] ] ] ] ] ]`, 6},
		{"toml closing run of four quotes", TOML, `a = [ """x """" , [ 1 ] ]`, 2},
		{"toml comments", TOML, "a = [ # [[[[\n 1, [2] ]\n", 2},
		{"yaml flow", YAML, "a: [b, {c: [d]}]\n", 3},
		{"yaml quoted and comments", YAML, "a: '[[ it''s ]]' # [[[[\nb: \"[[\\\"[[\"\nc: x#[[\n", 2},
		{"json", JSON, `{"a": ["[[", {"b": "\"]]"}], "c": 'x[['}`, 3},
		{"unbalanced closers", JSON, "]]]][[", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Depth([]byte(tc.text), tc.s, 100))
		})
	}
	assert.Equal(t, 6, Depth([]byte(strings.Repeat("[", 1000)), JSON, 5), "stops past the limit")
}

// TestDepthBoundsTOML: on random TOML documents that decode, the
// scan never counts less nesting than the decoded value has.
func TestDepthBoundsTOML(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	strs := []string{`"a]b"`, `'c[d'`, `"e.f"`, `"\"[{"`, "\"\"\"g]\nh\"\"\"", `'''i'{j'''`, `"#k"`, `'l.m'`, `"\\"`}
	next := 0
	// key is a key of up to max parts: this TOML decoder takes dotted keys
	// in table headers only.
	key := func(max int) string {
		var parts []string
		for range 1 + rng.IntN(max) {
			next++
			if rng.IntN(3) == 0 {
				parts = append(parts, `"`+strconv.Itoa(next)+`.[{'"`)
			} else {
				parts = append(parts, "k"+strconv.Itoa(next))
			}
		}
		return strings.Join(parts, ".")
	}
	// value is a value of kind k (0 float, 1 string, 2 array, 3 inline
	// table); an array holds values of one kind, as TOML 0.4 wants.
	var value func(k, depth int) string
	value = func(k, depth int) string {
		if depth > 5 {
			k %= 2
		}
		switch k {
		case 0:
			return "1.5"
		case 1:
			return strs[rng.IntN(len(strs))]
		case 2:
			var elems []string
			kind := rng.IntN(4)
			for range rng.IntN(3) {
				elems = append(elems, value(kind, depth+1))
			}
			return "[" + strings.Join(elems, ", ") + "]"
		default:
			var pairs []string
			for range rng.IntN(3) {
				pairs = append(pairs, key(1)+" = "+value(rng.IntN(4), depth+1))
			}
			return "{" + strings.Join(pairs, ", ") + "}"
		}
	}
	decoded := 0
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			if rng.IntN(3) == 0 {
				open, close := "[", "]"
				if rng.IntN(2) == 0 {
					open, close = "[[", "]]"
				}
				b.WriteString(open + key(3) + close + " # ]]\n")
			}
			b.WriteString(key(1) + " = " + value(rng.IntN(4), 0) + " # ]]\n")
		}
		var v map[string]any
		if err := decodeTOML(b.String(), &v); err != nil {
			continue
		}
		decoded++
		require.GreaterOrEqual(t, Depth([]byte(b.String()), TOML, 1000), valueDepth(v)-1, "%s", b.String()) // the document is no nesting
	}
	require.Greater(t, decoded, 1000, "enough random documents decode")
}

// valueDepth is how many arrays and tables a decoded value nests.
func valueDepth(v any) int {
	deepest := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			deepest = max(deepest, valueDepth(e))
		}
	case []map[string]any:
		for _, e := range x {
			deepest = max(deepest, valueDepth(e))
		}
	case []any:
		for _, e := range x {
			deepest = max(deepest, valueDepth(e))
		}
	default:
		return 0
	}
	return deepest + 1
}

// decodeTOML is toml.Unmarshal, with its panics (on some malformed
// documents) as errors.
func decodeTOML(doc string, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return toml.Unmarshal([]byte(doc), v)
}
