package kernel_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func TestValidateID(t *testing.T) {
	reject := map[string]string{
		"parent escape":        "../x",
		"absolute path":        "/x",
		"two path segments":    "a/b",
		"backslash":            `a\b`,
		"NUL byte":             "x\x00y",
		"dot dot":              "..",
		"dot":                  ".",
		"dot dot inside":       "a..b",
		"leading dot (hidden)": ".x",
		"uppercase":            "Rec01",
		"empty":                "",
		"space":                "a b",
		"newline":              "a\nb",
		"129 characters":       strings.Repeat("a", 129),
	}
	for name, id := range reject {
		t.Run("rejects "+name, func(t *testing.T) {
			err := kernel.ValidateID(id)
			require.Error(t, err)
			assert.Equal(t, kernel.CodeInvalidID, kernel.CodeOf(err))
		})
	}
	accept := map[string]string{
		"uuid":           "123e4567-e89b-42d3-a456-426614174000",
		"NewID":          kernel.NewID(),
		"slug":           "token-refresh-rfc",
		"underscore":     "rec_01jd8x",
		"dotted":         "adr.0042",
		"128 characters": strings.Repeat("a", 128),
	}
	for name, id := range accept {
		t.Run("accepts "+name, func(t *testing.T) {
			assert.NoError(t, kernel.ValidateID(id))
		})
	}
}

var newIDShape = regexp.MustCompile(`^[a-z2-7]{26}$`)

func TestNewID(t *testing.T) {
	// 1,000 ids share no 8-character prefix. Each prefix is 40 random bits
	// (8 base32 characters of a uniform 128-bit value), so by the birthday
	// bound the chance that any two of 1,000 collide is at most
	// C(1000,2)/2^40 = 499,500/1.1e12 ≈ 4.5e-7: this test fails by chance
	// about once in two million runs, and a failure most likely means ids
	// stopped being random from the first character.
	seen := map[string]string{}
	for range 1000 {
		id := kernel.NewID()
		require.Regexp(t, newIDShape, id, "26 lowercase base32 characters")
		require.NoError(t, kernel.ValidateID(id))
		prefix := id[:kernel.MinIDPrefix]
		require.NotContains(t, seen, prefix, "%s and %s share an 8-character prefix", seen[prefix], id)
		seen[prefix] = id
	}
}

func TestNewIDIsRandomFromTheFirstCharacter(t *testing.T) {
	// No fixed prefix and no timestamp: over 1,000 ids the first character
	// takes many of its 32 values (all alike would happen with probability
	// 32^-999). Expect ~32; demand 16 to stay far from flaky.
	first := map[byte]bool{}
	for range 1000 {
		first[kernel.NewID()[0]] = true
	}
	assert.GreaterOrEqual(t, len(first), 16)
}

// idSet is an IDSet written out by hand, so a test can give ResolveHandle
// what no store built from records would (a dangling alias, unsorted prefix
// matches).
type idSet struct {
	ids     []string
	aliases map[string]string
}

func (s idSet) HasID(id string) bool {
	for _, x := range s.ids {
		if x == id {
			return true
		}
	}
	return false
}

func (s idSet) AliasTarget(a string) (string, bool) { id, ok := s.aliases[a]; return id, ok }

func (s idSet) IDsWithPrefix(prefix string, limit int) []string {
	var out []string
	for _, id := range s.ids {
		if strings.HasPrefix(id, prefix) && len(out) < limit {
			out = append(out, id)
		}
	}
	return out
}

func TestResolveHandle(t *testing.T) {
	s := idSet{
		ids: []string{
			"q7ktz4mxa2c3d4e5f6g7h2j3k4", // shares "q7ktz4mx" with the next one
			"q7ktz4mxb2c3d4e5f6g7h2j3k4",
			"w3np6vrc2d4f6h2j4k6m2n4p6q",
			"deploy-runbook",
			"release-notes-2026",
		},
		aliases: map[string]string{
			"ops/deploy":     "deploy-runbook",
			"deploy-runbook": "release-notes-2026",         // an alias spelled like another record's id
			"release-notes":  "w3np6vrc2d4f6h2j4k6m2n4p6q", // an alias that is also an id prefix
			"gone/away":      "removed-record",             // its record no longer exists
			"w3np6vrc":       "deploy-runbook",             // an alias that is also a unique prefix
		},
	}
	tests := []struct {
		name, handle, want string
	}{
		{"exact id wins over an alias of the same spelling", "deploy-runbook", "deploy-runbook"},
		{"alias", "ops/deploy", "deploy-runbook"},
		{"alias wins over an id prefix", "release-notes", "w3np6vrc2d4f6h2j4k6m2n4p6q"},
		{"alias wins over a unique 8-character prefix", "w3np6vrc", "deploy-runbook"},
		{"alias whose record is gone resolves to nothing", "gone/away", ""},
		{"unique prefix of 9 characters", "w3np6vrc2", "w3np6vrc2d4f6h2j4k6m2n4p6q"},
		{"unique prefix of exactly 8 characters", "release-", "release-notes-2026"},
		{"unique prefix of 7 characters never matches", "release", ""},
		{"unique prefix of 1 character never matches", "d", ""},
		{"longer handle than any id", "deploy-runbook-2", ""},
		{"nothing matches", "zzzzzzzzzz", ""},
		{"empty handle", "", ""},
		{"ambiguous prefix made unique by one more character", "q7ktz4mxb", "q7ktz4mxb2c3d4e5f6g7h2j3k4"},
		{"short ambiguous prefix is not ambiguous, just too short", "q7ktz4m", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := kernel.ResolveHandle(s, tt.handle)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestResolveHandleAmbiguousPrefix(t *testing.T) {
	// Prefix matches arrive in any order; the error lists them sorted.
	s := idSet{ids: []string{"q7ktz4mxc9", "q7ktz4mxa1", "q7ktz4mxb5", "w3np6vrc00"}}
	id, err := kernel.ResolveHandle(s, "q7ktz4mx")
	assert.Empty(t, id, "an ambiguous prefix is never resolved to one arbitrary record")
	require.Error(t, err)
	assert.Equal(t, kernel.CodeAmbiguousID, kernel.CodeOf(err))
	var e *kernel.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, []string{"q7ktz4mxa1", "q7ktz4mxb5", "q7ktz4mxc9"}, e.Extra["matches"])
	assert.Contains(t, e.Message, "q7ktz4mx")
}

func TestResolveThroughTheMemView(t *testing.T) {
	// The in-memory store derives its alias map from the records themselves.
	v := fixture(t)
	for handle, want := range map[string]string{
		conceptID:      conceptID,
		conceptAlias:   conceptID,
		rawAlias:       rawID,
		"raw0000":      "", // 7 characters: too short for a prefix
		"nothing-here": "",
	} {
		got, err := v.Resolve(handle)
		require.NoError(t, err, handle)
		assert.Equal(t, want, got, handle)
	}
}

func TestOpsReportAnAmbiguousHandle(t *testing.T) {
	v := fixture(t)
	for _, id := range []string{"q7ktz4mxa1", "q7ktz4mxb5"} {
		in := validCreate()
		in.ID = id
		m, err := kernel.Create(v, in, opEnv())
		require.NoError(t, err)
		v.commit(m)
	}
	_, err := kernel.Update(v, "q7ktz4mx", kernel.UpdateFields{Title: ptr("x")}, kernel.Evidence{Agent: agent}, opEnv())
	assert.Equal(t, kernel.CodeAmbiguousID, kernel.CodeOf(err))
	_, err = kernel.LinkRecords(v, rawID, []kernel.Link{{TargetID: "q7ktz4mx", Kind: "related"}}, kernel.Evidence{Agent: agent}, opEnv())
	assert.Equal(t, kernel.CodeAmbiguousID, kernel.CodeOf(err))

	m, err := kernel.Update(v, "q7ktz4mxb", kernel.UpdateFields{Title: ptr("x")}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Equal(t, "q7ktz4mxb5", m.Writes[0].ID)
}

func TestCodeOf(t *testing.T) {
	assert.Equal(t, kernel.CodeInternal, kernel.CodeOf(assert.AnError), "an uncoded error is internal")
	wrapped := kernel.Wrap(kernel.CodeNotFound, assert.AnError, "reading %s", "x")
	assert.Equal(t, kernel.CodeNotFound, kernel.CodeOf(wrapped))
	assert.ErrorIs(t, wrapped, assert.AnError)
	assert.True(t, kernel.IsCode(wrapped, kernel.CodeNotFound))
	assert.False(t, kernel.IsCode(nil, kernel.CodeNotFound))
}
