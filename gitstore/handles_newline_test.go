package gitstore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestHandleWithANewlineResolvesLikeTheIndex: the handles file is lines of
// ids and aliases, so a handle holding a newline could match across two
// lines. It must resolve as the index resolves it: to nothing.
func TestHandleWithANewlineResolvesLikeTheIndex(t *testing.T) {
	t.Parallel()
	s := newTestStore(t, Options{NewID: fixedIDs("aaaaaaaaxxxxxxxxxxxxxxxxxx", "bbbbbbbbxxxxxxxxxxxxxxxxxx")})
	create(t, s, kernel.CreateInput{Title: "one", Aliases: []string{"one"}})
	create(t, s, kernel.CreateInput{Title: "two"})
	_, err := reopen(t, s).Reindex("")
	require.NoError(t, err)

	for _, handle := range []string{
		"aaaaaaaaxxxxxxxxxxxxxxxxxx\nbbbbbbbbxxxxxxxxxxxxxxxxxx", // two whole ids
		"aaaaaaaaxxxxxxxxxxxxxxxxxx\nbbbb",                       // an id and a prefix
		"one aaaaaaaaxxxxxxxxxxxxxxxxxx\nbbbb",
	} {
		v, err := reopen(t, s).View()
		require.NoError(t, err)
		got, err := v.Resolve(handle)
		require.NoError(t, err, "%q", handle)
		require.Nil(t, v.index, "resolved through the handles file")
		require.Empty(t, got, "%q", handle)
	}
}
