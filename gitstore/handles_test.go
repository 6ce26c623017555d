package gitstore

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// Handles resolve from the small handles file when it is current, exactly
// as the full index would, and writes that never load the index keep it
// current.
func TestHandlesFileResolvesLikeTheIndex(t *testing.T) {
	s := newTestStore(t, Options{NewID: fixedIDs("aaaaaaaa1xxxxxxxxxxxxxxxxx", "aaaaaaaa2xxxxxxxxxxxxxxxxx", "bbbbbbbbbxxxxxxxxxxxxxxxxx", "ccccccccxxxxxxxxxxxxxxxxxx")})
	create(t, s, kernel.CreateInput{Title: "one", Aliases: []string{"team/one"}})
	create(t, s, kernel.CreateInput{Title: "two"})
	create(t, s, kernel.CreateInput{Title: "three"})
	_, err := reopen(t, s).Reindex("") // writes the cache and the handles file
	require.NoError(t, err)

	// A write in a fresh process that never loads the index (no alias, a
	// generated id) must leave the handles file current for the new tip.
	w := reopen(t, s)
	create(t, w, kernel.CreateInput{Title: "four"})
	tip, err := w.Tip()
	require.NoError(t, err)
	_, current := loadHandles(handlesPath(w.indexPath()), tip)
	require.True(t, current, "the write advanced the handles file")

	cases := map[string]string{"team/one": "aaaaaaaa1xxxxxxxxxxxxxxxxx", "bbbbbbbb": "bbbbbbbbbxxxxxxxxxxxxxxxxx",
		"cccccccc": "ccccccccxxxxxxxxxxxxxxxxxx", "zzzzzzzz": "", "bbbb": ""}
	for handle, want := range cases {
		v, err := reopen(t, s).View()
		require.NoError(t, err)
		got, err := v.Resolve(handle)
		require.NoError(t, err, handle)
		require.Equal(t, want, got, "%s through the handles file", handle)
		require.Nil(t, v.index, "%s resolved without loading the index", handle)

		ix, err := v.Index()
		require.NoError(t, err)
		viaIndex, err := ix.Resolve(handle)
		require.NoError(t, err)
		require.Equal(t, want, viaIndex, "%s through the index", handle)
	}

	v, err := reopen(t, s).View()
	require.NoError(t, err)
	_, err = v.Resolve("aaaaaaaa")
	require.Equal(t, kernel.CodeAmbiguousID, kernel.CodeOf(err))
	require.ElementsMatch(t, []string{"aaaaaaaa1xxxxxxxxxxxxxxxxx", "aaaaaaaa2xxxxxxxxxxxxxxxxx"}, err.(*kernel.Error).Extra["matches"])

	// A stale or damaged handles file is ignored, never trusted.
	require.NoError(t, os.WriteFile(handlesPath(s.indexPath()), []byte("git-records handles 1 0000\nids\nbogus\naliases\n"), 0o644))
	v, err = reopen(t, s).View()
	require.NoError(t, err)
	got, err := v.Resolve("team/one")
	require.NoError(t, err)
	require.Equal(t, "aaaaaaaa1xxxxxxxxxxxxxxxxx", got)
}
