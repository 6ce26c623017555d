package gitstore

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func blameOf(t *testing.T, s *Store, r *kernel.Record) map[string]string {
	t.Helper()
	b, err := s.Blame(r.Type, r.ID)
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range b.Fields {
		out[f.Field] = f.Commit
	}
	require.Len(t, out, len(BlameFields), "every field is attributed")
	return out
}

// TestBlameSkipsBrokenVersions: a hand edit that does not parse, and one
// that deletes the file, attribute nothing; the next good version is
// compared with the last good one.
func TestBlameSkipsBrokenVersions(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	w := mutate(t, s, createOp(kernel.CreateInput{Title: "A", Tags: []string{"x"}}))
	r := w.Mutation.Writes[0]
	path := RecordPath(r.Type, r.ID)

	retitle := mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, r.ID, kernel.UpdateFields{Title: ptr("A, renamed")}, ev(), env)
	}).Commit
	tip, err := s.Tip()
	require.NoError(t, err)
	broken := handCommit(t, s, tip, map[string]string{path: "not a record\n"}, "oops")
	deleted := handCommit(t, s, broken, map[string]string{path: ""}, "delete it")
	// Restore the renamed version by hand: nothing differs from the last
	// good version, so nothing is attributed to the restoring commit.
	restoredData, err := s.git("show", retitle.String()+":"+path)
	require.NoError(t, err)
	restore := handCommit(t, s, deleted, map[string]string{path: restoredData}, "restore")
	tags := mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, r.ID, kernel.UpdateFields{Tags: ptr([]string{"y"})}, ev(), env)
	}).Commit

	got := blameOf(t, s, r)
	assert.Equal(t, retitle.String(), got["title"])
	assert.Equal(t, tags.String(), got["tags"])
	assert.Equal(t, w.Commit.String(), got["body"], "never changed: the create commit")
	for f, c := range got {
		for _, skipped := range []plumbing.Hash{broken, deleted, restore} {
			assert.NotEqual(t, skipped.String(), c, "%s is attributed to a commit that set nothing", f)
		}
	}
}

func TestHistorySince(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "A"})
	seen, err := s.Tip()
	require.NoError(t, err)
	c1 := mutate(t, s, createOp(kernel.CreateInput{Title: "B"})).Commit
	c2 := mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, a.ID, kernel.UpdateFields{Title: ptr("A2")}, ev(), env)
	}).Commit

	h, err := s.HistorySince("", seen, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{c2.String(), c1.String()}, hashesOf(h), "what changed since the tip the reader saw")

	h, err = s.HistorySince(RecordPath(a.Type, a.ID), seen, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{c2.String()}, hashesOf(h), "and of one record")

	h, err = s.HistorySince("", c2, 0)
	require.NoError(t, err)
	assert.Empty(t, h, "nothing new at the tip")

	all, err := s.History("", 0)
	require.NoError(t, err)
	h, err = s.HistorySince("", plumbing.ZeroHash, 0)
	require.NoError(t, err)
	assert.Equal(t, hashesOf(all), hashesOf(h))
}
