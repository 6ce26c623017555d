package transfer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestConfinedDirWritesOnlyInsideItsTarget: whatever path a record names,
// and whatever appears in the target while an export runs (a symlink to
// outside where a directory or a file goes, a file export did not write),
// the export refuses with UNSAFE_PATH and the outside is untouched.
func TestConfinedDirWritesOnlyInsideItsTarget(t *testing.T) {
	outside := t.TempDir()
	bashrc := filepath.Join(outside, ".bashrc")
	require.NoError(t, os.WriteFile(bashrc, []byte("mine\n"), 0o644))
	untouched := func(t *testing.T) {
		t.Helper()
		data, err := os.ReadFile(bashrc)
		require.NoError(t, err)
		assert.Equal(t, "mine\n", string(data), "the file outside keeps its content")
		entries, err := os.ReadDir(outside)
		require.NoError(t, err)
		assert.Len(t, entries, 1, "nothing is created outside")
	}
	open := func(t *testing.T) (*confinedDir, string) {
		dest := filepath.Join(t.TempDir(), "vault")
		c, err := openConfined(dest)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c, dest
	}
	refused := func(t *testing.T, err error, says string) {
		t.Helper()
		require.Error(t, err)
		assert.Equal(t, kernel.CodeUnsafePath, kernel.CodeOf(err), "%v", err)
		assert.Contains(t, err.Error(), says)
		untouched(t)
	}

	t.Run("a name that climbs out", func(t *testing.T) {
		c, dest := open(t)
		rel, err := filepath.Rel(dest, bashrc)
		require.NoError(t, err)
		for _, p := range []string{filepath.ToSlash(rel), "a/../../x.md", "./x.md", "a//x.md", "/etc/x.md", ""} {
			refused(t, c.create(p, []byte("pwned\n")), "is not a path inside the target")
		}
	})
	t.Run("a symlink to outside where a directory goes", func(t *testing.T) {
		c, dest := open(t)
		require.NoError(t, os.Symlink(outside, filepath.Join(dest, "auth")))
		refused(t, c.create("auth/.bashrc", []byte("pwned\n")), "did not make it")
	})
	t.Run("a symlink to outside where a file goes", func(t *testing.T) {
		c, dest := open(t)
		require.NoError(t, os.Symlink(bashrc, filepath.Join(dest, "note.md")))
		refused(t, c.create("note.md", []byte("pwned\n")), "already exists")
	})
	t.Run("a file the export did not write", func(t *testing.T) {
		c, dest := open(t)
		require.NoError(t, os.Mkdir(filepath.Join(dest, "auth"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dest, "auth", "x.md"), []byte("theirs\n"), 0o644))
		refused(t, c.create("auth/x.md", []byte("pwned\n")), "did not make it")
		require.NoError(t, c.create("y.md", []byte("one\n")))
		refused(t, c.create("y.md", []byte("two\n")), "already exists")
		data, err := os.ReadFile(filepath.Join(dest, "y.md"))
		require.NoError(t, err)
		assert.Equal(t, "one\n", string(data), "a file is written once")
	})
	t.Run("a directory it made, swapped for a symlink", func(t *testing.T) {
		c, dest := open(t)
		require.NoError(t, c.create("auth/a.md", []byte("a\n")))
		c.closeDirs() // as when an export has many folders: entered again by name
		require.NoError(t, os.Rename(filepath.Join(dest, "auth"), filepath.Join(dest, "moved")))
		require.NoError(t, os.Symlink(outside, filepath.Join(dest, "auth")))
		refused(t, c.create("auth/.bashrc", []byte("pwned\n")), "auth")
		// A symlink that stays inside is refused too: export follows no link.
		require.NoError(t, os.Remove(filepath.Join(dest, "auth")))
		require.NoError(t, os.Symlink("moved", filepath.Join(dest, "auth")))
		refused(t, c.create("auth/b.md", []byte("b\n")), "replaced while exporting")
		assert.NoFileExists(t, filepath.Join(dest, "moved", "b.md"))
	})
	t.Run("a target that is not empty", func(t *testing.T) {
		dest := t.TempDir()
		require.NoError(t, os.Symlink(outside, filepath.Join(dest, "auth")))
		_, err := openConfined(dest)
		assert.Equal(t, kernel.CodeUsage, kernel.CodeOf(err), "%v", err)
		untouched(t)
	})
}
