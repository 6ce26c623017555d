package gitstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/kernel/storetest"
)

// The git store passes the port's conformance suite on a real repository,
// set up as `git records init --generate-key` does; the racing writer is a
// second handle on the repository, as another process would be.
func TestStoreConformance(t *testing.T) {
	t.Parallel()
	storetest.Suite{
		Open:  func(t *testing.T) kernel.Store { return newTestStore(t) },
		Rival: func(t *testing.T, s kernel.Store) kernel.Store { return reopen(t, s.(*Store)) },
	}.Run(t)
}

// The same suite where the store reads objects through git cat-file, as it
// does in a repository with alternates or in a server hook's quarantine.
func TestStoreConformanceThroughGitCatFile(t *testing.T) {
	t.Parallel()
	open := func(t *testing.T) kernel.Store {
		dir, shared := t.TempDir(), t.TempDir()
		git(t, shared, "init", "-q", "--bare", "--object-format=sha1", ".")
		git(t, dir, "init", "-q", "--object-format=sha1", "-b", "main", ".")
		alternates := filepath.Join(dir, ".git", "objects", "info", "alternates")
		require.NoError(t, os.WriteFile(alternates, []byte(filepath.Join(shared, "objects")+"\n"), 0o644))
		s := openTestStore(t, dir)
		t.Cleanup(func() { s.Close() })
		_, ok := s.objects.(*catFileObjects)
		require.True(t, ok, "a repository with alternates reads objects through git cat-file")
		return s
	}
	storetest.Suite{
		Open: open,
		Rival: func(t *testing.T, s kernel.Store) kernel.Store {
			r := reopen(t, s.(*Store))
			t.Cleanup(func() { r.Close() })
			return r
		},
	}.Run(t)
}
