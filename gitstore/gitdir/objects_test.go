package gitdir

import (
	"bytes"
	"compress/zlib"
	"io"
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
	require.NoError(t, w.Sync(), "objects become readable with Sync")
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
	require.NoError(t, w.Sync())
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
	path := filepath.Join(r.ObjectDir, h.String()[:2], h.String()[2:])
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err), "not named before Sync: a crash leaves only a temporary file")
	p := w.pending[h]
	require.NotNil(t, p)
	assert.Equal(t, filepath.Join(r.ObjectDir, h.String()[:2]), p.dir, "the object's directory is synced")
	assert.Contains(t, p.createdDirs, r.ObjectDir, "objects/ gained a new directory, synced too")
	require.NoError(t, w.Sync())
	assert.Empty(t, w.dirty)
	assert.Empty(t, w.pending)
	_, err = os.Stat(path)
	assert.NoError(t, err, "named after Sync")
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

// SyncAlongside runs its during only once every object is fsynced and
// under its final name (a ref lock taken there may name them), and
// reports during's error after its own. The pack writer does the same.
func TestSyncAlongsideRunsOnceTheObjectsAreInPlace(t *testing.T) {
	r := newRepoT(t)
	w := r.NewObjectWriter()
	var hs []plumbing.Hash
	for i := range 5 {
		h, err := w.Write(plumbing.BlobObject, []byte("object "+string(rune('a'+i))))
		require.NoError(t, err)
		hs = append(hs, h)
	}
	inPlace := func(hs []plumbing.Hash) error {
		for _, h := range hs {
			if _, err := os.Stat(filepath.Join(r.ObjectDir, h.String()[:2], h.String()[2:])); err != nil {
				return err
			}
		}
		return nil
	}
	ran := false
	require.NoError(t, w.SyncAlongside(func() error { ran = true; return inPlace(hs) }))
	assert.True(t, ran)
	tmps, err := filepath.Glob(filepath.Join(r.ObjectDir, "*", "tmp_obj_*"))
	require.NoError(t, err)
	assert.Empty(t, tmps)

	_, err = w.Write(plumbing.BlobObject, []byte("one more"))
	require.NoError(t, err)
	refused := os.ErrPermission
	assert.ErrorIs(t, w.SyncAlongside(func() error { return refused }), refused)

	p := r.NewPackWriter()
	h, err := p.Write(plumbing.BlobObject, []byte("packed"))
	require.NoError(t, err)
	require.NoError(t, p.SyncAlongside(func() error {
		if idx, _ := filepath.Glob(filepath.Join(r.ObjectDir, "pack", "pack-*.idx")); len(idx) != 1 {
			return os.ErrNotExist
		}
		return nil
	}))
	_, err = runGit(r.WorkTree, "cat-file", "-e", h.String())
	require.NoError(t, err)
	assert.ErrorIs(t, r.NewPackWriter().SyncAlongside(func() error { return refused }), refused, "nothing written: during alone")
}

// A loose object stored without compression (a tree, or an object under
// one block) is a zlib stream every reader takes: Go's zlib, with its
// checksum checked, for sizes around the stored blocks' 65,535-byte
// limit, and git itself, which reads the objects the writer stored and
// the one it compressed alike.
func TestStoredLooseObjectsReadAsZlib(t *testing.T) {
	for _, n := range []int{0, 1, 100, maxStoredBlock - 1, maxStoredBlock, maxStoredBlock + 1, 3*maxStoredBlock + 7} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + i/300)
		}
		split := n / 3
		stream := appendStoredZlib(nil, data[:split], data[split:])
		require.Len(t, stream, storedZlibSize(n), "size %d", n)
		zr, err := zlib.NewReader(bytes.NewReader(stream))
		require.NoError(t, err)
		got, err := io.ReadAll(zr)
		require.NoError(t, err, "size %d", n)
		require.Equal(t, data, got, "size %d", n)
		stream[len(stream)-1] ^= 1
		zr, err = zlib.NewReader(bytes.NewReader(stream))
		require.NoError(t, err)
		_, err = io.ReadAll(zr)
		require.Error(t, err, "a wrong checksum is refused (size %d)", n)
	}

	r := newRepoT(t)
	w := r.NewObjectWriter()
	small := []byte("a record\n")
	large := append(bytes.Repeat([]byte("a body that compresses well. "), 1000), "end"...)
	tree := []byte("100644 a.md\x00" + strings.Repeat("\x01", 20))
	var hs []plumbing.Hash
	for _, o := range []struct {
		t plumbing.ObjectType
		b []byte
	}{{plumbing.BlobObject, small}, {plumbing.BlobObject, large}, {plumbing.TreeObject, tree}} {
		h, err := w.Write(o.t, o.b)
		require.NoError(t, err)
		hs = append(hs, h)
	}
	require.NoError(t, w.Sync())
	size := func(h plumbing.Hash) int64 {
		fi, err := os.Stat(filepath.Join(r.ObjectDir, h.String()[:2], h.String()[2:]))
		require.NoError(t, err)
		return fi.Size()
	}
	assert.Equal(t, int64(storedZlibSize(len("blob 9\x00")+len(small))), size(hs[0]), "stored")
	assert.Less(t, size(hs[1]), int64(len(large)/4), "compressed")
	assert.Equal(t, int64(storedZlibSize(len("tree 32\x00")+len(tree))), size(hs[2]), "stored")
	assert.Equal(t, string(small), git(t, r.WorkTree, "cat-file", "blob", hs[0].String())+"\n")
	assert.True(t, string(large) == git(t, r.WorkTree, "cat-file", "blob", hs[1].String()), "the compressed blob reads back")
	assert.Equal(t, "100644 blob 0101010101010101010101010101010101010101\ta.md", git(t, r.WorkTree, "cat-file", "-p", hs[2].String()))
	git(t, r.WorkTree, "fsck", "--strict", "--no-dangling", "--no-progress")
}
