package gitstore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScopeOfTheWholeTreeAndUncleanPaths: `--scope .` at the top of the
// working tree is the whole tree (Normalize gives "."), and a path written
// "./src" or "src/" is the directory src.
func TestScopeOfTheWholeTreeAndUncleanPaths(t *testing.T) {
	t.Parallel()
	dir := scopeRepo(t)
	sc := NewScopeScanner(dir)
	paths, err := sc.Normalize(dir, []string{"."})
	require.NoError(t, err)
	whole, err := sc.Capture(paths)
	require.NoError(t, err)
	require.Len(t, whole.Files, 3)

	src, err := sc.Capture([]string{"src"})
	require.NoError(t, err)
	for _, p := range []string{"./src", "src/", "./src/"} {
		got, err := sc.Capture([]string{p})
		require.NoError(t, err, p)
		require.Equal(t, src.ChangedFilesHash, got.ChangedFilesHash, p)
	}
}
