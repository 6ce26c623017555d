package gitstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestIndexAfterResetReadingThroughGit: a store that reads objects through
// git cat-file (a repository with alternates) must survive a cached index
// whose tip is gone: looking that commit up must not close the cat-file
// process the view it serves is still reading through.
func TestIndexAfterResetReadingThroughGit(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	alternates := filepath.Join(s.repo.CommonDir, "objects", "info", "alternates")
	require.NoError(t, os.MkdirAll(filepath.Dir(alternates), 0o755))
	require.NoError(t, os.WriteFile(alternates, nil, 0o644))
	s = reopen(t, s)
	defer s.Close()
	_, ok := s.objects.(*catFileObjects)
	require.True(t, ok, "objects are read through git cat-file")

	create(t, s, kernel.CreateInput{Title: "old"})
	require.Equal(t, 1, indexOf(t, s).Len())

	newTip := handCommit(t, s, plumbing.ZeroHash, map[string]string{FormatPath: kernel.FormatVersion + "\n"}, "unrelated history")
	dir := gitDir(s)
	git(t, dir, "reflog", "expire", "--expire=now", "--all")
	git(t, dir, "gc", "-q", "--prune=now")

	reader := reopen(t, s)
	defer reader.Close()
	v, err := reader.View()
	require.NoError(t, err)
	ix, err := v.Index()
	require.NoError(t, err)
	require.Equal(t, newTip, ix.Tip)
	require.Zero(t, ix.Len())
}
