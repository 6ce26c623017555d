package gitstore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestTemplateRoundTrip: the template file says what each field takes,
// holds the values given, and reads back as the create input it shows;
// the flags' parts (agent, note) come through from the base.
func TestTemplateRoundTrip(t *testing.T) {
	t.Parallel()
	tp, err := kernel.TemplateFor("relation")
	require.NoError(t, err)
	in := kernel.CreateInput{Type: "relation", Title: "Given", Tags: []string{"a"}, Provenance: kernel.Provenance{Agent: "alice", Note: "why"}}
	file, err := EncodeTemplate(tp, in)
	require.NoError(t, err)
	text := string(file)
	assert.True(t, strings.HasPrefix(text, "---\n# required: the record type"), text)
	assert.Contains(t, text, "\ntitle: Given\n")
	assert.Contains(t, text, "\n# required: the record it points to\nto: \"\"\n")
	assert.Contains(t, text, "\n# optional: e.g. [auth, tokens]\ntags: [a]\n")

	filled := strings.NewReplacer(`to: ""`, "to: b", `from: ""`, "from: a", `relation: ""`, "relation: depends_on",
		`category: ""`, "category: eng.deps", `expires_at: ""`, "expires_at: 2030-01-01T00:00:00.000Z", "ttl_seconds: null", "ttl_seconds: 60",
		"links: []", "links:\n  - target_id: c\n    kind: source").Replace(text) + "A depends on B.\n"
	got, err := DecodeTemplate([]byte(filled), in)
	require.NoError(t, err)
	assert.Equal(t, "Given", got.Title)
	assert.Equal(t, "eng.deps", got.Category)
	assert.Equal(t, [3]string{"a", "b", "depends_on"}, [3]string{got.From, got.To, got.Relation})
	assert.Equal(t, []kernel.Link{{TargetID: "c", Kind: "source"}}, got.Links)
	assert.Equal(t, []string{"a"}, got.Tags)
	require.NotNil(t, got.ExpiresAt.At)
	assert.Equal(t, "2030-01-01T00:00:00.000Z", got.ExpiresAt.At.String())
	assert.Equal(t, kernel.TTL(60), got.TTLSeconds)
	assert.Equal(t, "A depends on B.\n", got.Body)
	assert.Equal(t, in.Provenance, got.Provenance, "the flags' provenance is kept")
}

// TestTemplateRefusals: keys only the store sets, or that the type's
// template does not hold, are refused by name; so is a broken file.
func TestTemplateRefusals(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ file, want string }{
		"store field":      {"---\ntype: concept\ntitle: T\nstatus: retired\n---\nbody\n", "status is not written in a new concept record"},
		"provenance":       {"---\ntype: concept\nprovenance: {agent: mallory}\n---\nbody\n", "provenance is not written"},
		"other type's":     {"---\ntype: concept\nfrom: a\n---\nbody\n", "from is not written in a new concept record"},
		"execution type":   {"---\ntype: execution.run\ntitle: T\n---\nbody\n", "exec start"},
		"twice":            {"---\ntype: concept\ntitle: A\ntitle: B\n---\nbody\n", "title"},
		"not a mapping":    {"---\n- a\n---\nbody\n", "keys and values"},
		"unclosed":         {"---\ntype: concept\n", "not closed"},
		"wrong value kind": {"---\ntype: concept\ntags: {a: b}\n---\nbody\n", "frontmatter"},
	} {
		_, err := DecodeTemplate([]byte(c.file), kernel.CreateInput{})
		require.Error(t, err, name)
		assert.ErrorContains(t, err, c.want, name)
		assert.NotEqual(t, kernel.CodeInternal, kernel.CodeOf(err), name)
	}
}
