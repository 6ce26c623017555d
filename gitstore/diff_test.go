package gitstore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestDiffShowsEveryChangedField (break 11): a commit that says it changes
// the title but also flips authority shows both in diff; the field list
// comes from kernel.Fields, so no field can change unseen.
func TestDiffShowsEveryChangedField(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	r := create(t, s, kernel.CreateInput{Title: "A"})
	from, err := s.Tip()
	require.NoError(t, err)
	path := RecordPath(r.Type, r.ID)
	data := gitShow(t, gitDir(s), from.String(), path)
	require.Contains(t, data, "authority: local")
	data = strings.Replace(data, "authority: local", "authority: external", 1)
	data = strings.Replace(data, "title: A", "title: B", 1)
	to := handCommit(t, s, from, map[string]string{path: data}, "update(raw): B")

	d, err := s.Diff(from, to)
	require.NoError(t, err)
	require.Len(t, d.Changed, 1)
	got := map[string]FieldChange{}
	for _, f := range d.Changed[0].Fields {
		got[f.Field] = f
	}
	assert.Equal(t, FieldChange{Field: "title", From: "A", To: "B"}, got["title"])
	assert.Equal(t, FieldChange{Field: "authority", From: "local", To: "external"}, got["authority"])
	assert.Len(t, got, 2)
}
