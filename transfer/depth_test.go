package transfer

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNestingDepthSkipsStringsAndComments: brackets in strings and
// comments do not nest, and no string can hide brackets that do.
func TestNestingDepthSkipsStringsAndComments(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    syntax
		text string
		want int
	}{
		{"toml arrays and inline tables", tomlSyntax, "a = [[1], {b = [2]}]\n", 3},
		{"toml table headers", tomlSyntax, "[a]\nx = 1\n[[b]]\ny = [1]\n", 3},
		{"toml dotted keys", tomlSyntax, "[a.b]\nc.d.e = 1.5\nf = {g.h = [1.5, 2.5]}\n", 5},
		{"toml quoted key parts", tomlSyntax, "[\"a.b\".'c.d']\n\"e.f\" = 1\n", 2},
		{"toml strings", tomlSyntax, `a = ["]]", '[[[', "\"[", """ [[ """, ''' ]]] ''']` + "\n", 1},
		{"toml strings cannot hide nesting", tomlSyntax, `a = [ "]", [ "]", [ "]", [ ']', [ """]""", [ 1 ] ] ] ] ] ]`, 6},
		{"toml closing run of four quotes", tomlSyntax, `a = [ """x """" , [ 1 ] ]`, 2},
		{"toml comments", tomlSyntax, "a = [ # [[[[\n 1, [2] ]\n", 2},
		{"yaml flow", yamlSyntax, "a: [b, {c: [d]}]\n", 3},
		{"yaml quoted and comments", yamlSyntax, "a: '[[ it''s ]]' # [[[[\nb: \"[[\\\"[[\"\nc: x#[[\n", 2},
		{"json", jsonSyntax, `{"a": ["[[", {"b": "\"]]"}], "c": 'x[['}`, 3},
		{"unbalanced closers", jsonSyntax, "]]]][[", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, nestingDepth([]byte(tc.text), tc.s, 100))
		})
	}
	assert.Equal(t, 6, nestingDepth([]byte(strings.Repeat("[", 1000)), jsonSyntax, 5), "stops past the limit")
}

// TestDeepFrontMatterRefused: a note whose front matter nests a million
// deep is refused, naming the note and the bound, in every front matter
// language; TOML's decoder overflowed the Go stack on it (exit 2).
func TestDeepFrontMatterRefused(t *testing.T) {
	const n = 1_200_000
	deep := strings.Repeat("[", n) + strings.Repeat("]", n)
	for name, note := range map[string]string{
		"toml":          "+++\na = " + deep + "\n+++\nbody\n",
		"toml, dashes":  "---toml\na = " + deep + "\n---\nbody\n",
		"yaml":          "---\na: " + deep + "\n---\nbody\n",
		"json":          ";;;\n{\"a\": " + deep + "}\n;;;\nbody\n",
		"json, dashes":  "---json\n{\"a\": " + deep + "}\n---\nbody\n",
		"toml, objects": "+++\na = " + strings.Repeat("{b = ", n) + "1" + strings.Repeat("}", n) + "\n+++\nbody\n",
		"toml, header":  "+++\n[source" + strings.Repeat(".a", n/2) + "]\nx = 1\n+++\nbody\n",
		"toml, key":     "+++\nsource" + strings.Repeat(".a", n/2) + " = 1\n+++\nbody\n",
	} {
		t.Run(name, func(t *testing.T) {
			u := parseNote("deep.md", []byte(note), false)
			assert.Contains(t, u.unreadable, "its front matter does not parse: it nests arrays or tables more than 64 deep")
		})
	}
	// At the bound a front matter reads.
	u := parseNote("ok.md", []byte("+++\na = "+strings.Repeat("[", maxFrontMatterDepth)+strings.Repeat("]", maxFrontMatterDepth)+"\ntitle = \"ok\"\n+++\nbody\n"), false)
	require.Empty(t, u.unreadable)
	assert.Equal(t, "ok", u.front["title"])
}

// TestNestingDepthBoundsTOML: on random TOML documents that decode, the
// scan never counts less nesting than the decoded value has.
func TestNestingDepthBoundsTOML(t *testing.T) {
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
		if err := bounded(tomlSyntax, toml.Unmarshal)([]byte(b.String()), &v); err != nil {
			continue
		}
		decoded++
		require.GreaterOrEqual(t, nestingDepth([]byte(b.String()), tomlSyntax, 1000), valueDepth(v)-1, "%s", b.String()) // the document is no nesting
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

// TestFrontMatterDecoderPanicRefused: the TOML decoder panics on a comment
// inside an inline table; the note is refused, the import goes on living.
func TestFrontMatterDecoderPanicRefused(t *testing.T) {
	u := parseNote("odd.md", []byte("+++\na = {# x\n}\n+++\nbody\n"), false)
	assert.Contains(t, u.unreadable, "its front matter does not parse: its decoder failed on it")
}
