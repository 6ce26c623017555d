package gitdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestObjectWriterWritesWhatGitReads(t *testing.T) {
	r := newRepoT(t)
	w := r.NewObjectWriter()

	content := []byte("---\nid: rec_1\n---\nbody\n")
	blob, err := w.Write(plumbing.BlobObject, content)
	require.NoError(t, err)
	assert.Equal(t, runGitStdin(t, r.WorkTree, string(content), "hash-object", "--stdin"), blob.String(),
		"same hash as git")
	assert.Equal(t, string(content), git(t, r.WorkTree, "cat-file", "blob", blob.String())+"\n")

	c := writeCommit(t, w, plumbing.ZeroHash, "a commit")
	assert.Equal(t, "commit", git(t, r.WorkTree, "cat-file", "-t", c.String()))

	// git leaves objects read-only, and no temporary file behind.
	fi, err := os.Stat(filepath.Join(r.ObjectDir, blob.String()[:2], blob.String()[2:]))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o444), fi.Mode().Perm()&0o666)
	tmps, err := filepath.Glob(filepath.Join(r.ObjectDir, "*", "tmp_obj_*"))
	require.NoError(t, err)
	assert.Empty(t, tmps)

	require.NoError(t, r.UpdateRef(recordsRef, c, plumbing.ZeroHash, testIdent, "create"))
	requireFsckClean(t, r.WorkTree)
}

// Writing an object that exists refreshes its mtime, as git does, so that a
// concurrent gc's prune grace period starts again.
func TestObjectWriterFreshensExisting(t *testing.T) {
	r := newRepoT(t)
	w := r.NewObjectWriter()
	h, err := w.Write(plumbing.BlobObject, []byte("x"))
	require.NoError(t, err)
	path := filepath.Join(r.ObjectDir, h.String()[:2], h.String()[2:])
	old := time.Now().Add(-30 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))

	h2, err := w.Write(plumbing.BlobObject, []byte("x"))
	require.NoError(t, err)
	assert.Equal(t, h, h2)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), fi.ModTime(), time.Minute)
}

func TestObjectWriterSyncTracksDirectories(t *testing.T) {
	r := newRepoT(t)
	w := r.NewObjectWriter()
	h, err := w.Write(plumbing.BlobObject, []byte("y"))
	require.NoError(t, err)
	dir := filepath.Join(r.ObjectDir, h.String()[:2])
	assert.True(t, w.dirty[dir], "the object's directory")
	assert.True(t, w.dirty[r.ObjectDir], "objects/ gained a new directory")
	require.NoError(t, w.Sync())
	assert.Empty(t, w.dirty)
}

func runGitStdin(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}
