package gitdir

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A batch goes into one pack that git reads, indexes the same way and finds
// clean, with no loose object and no temporary file left behind.
func TestPackWriterWritesOnePackGitReads(t *testing.T) {
	r := newRepoT(t)
	w := r.NewPackWriter()
	var blobs []plumbing.Hash
	for i := range 300 {
		// Sizes across the entry header's one-, two- and three-byte forms.
		content := []byte(fmt.Sprintf("record %d\n%s", i, strings.Repeat("x", i*i)))
		h, err := w.Write(plumbing.BlobObject, content)
		require.NoError(t, err)
		blobs = append(blobs, h)
	}
	dup, err := w.Write(plumbing.BlobObject, []byte("record 0\n"))
	require.NoError(t, err)
	assert.Equal(t, blobs[0], dup, "same content, same object, written once")
	_, err = w.Write(plumbing.TreeObject, nil)
	require.NoError(t, err)
	h, err := w.WriteObject(newCommit(t, plumbing.ZeroHash, "a batch"))
	require.NoError(t, err)
	require.NoError(t, w.Sync())

	packs, err := filepath.Glob(filepath.Join(r.ObjectDir, "pack", "pack-*.pack"))
	require.NoError(t, err)
	require.Len(t, packs, 1, "one pack for the whole batch")
	out := git(t, r.WorkTree, "verify-pack", "-v", strings.TrimSuffix(packs[0], ".pack")+".idx")
	assert.Contains(t, out, "non delta: 302 objects")
	assert.Equal(t, "0", strings.Fields(git(t, r.WorkTree, "count-objects"))[0], "no loose objects")
	assert.Equal(t, "record 299\n"+strings.Repeat("x", 299*299), git(t, r.WorkTree, "cat-file", "blob", blobs[299].String()))
	tmps, err := filepath.Glob(filepath.Join(r.ObjectDir, "pack", "tmp_*"))
	require.NoError(t, err)
	assert.Empty(t, tmps)

	// git's own index of the same pack is byte for byte ours.
	ours, err := os.ReadFile(strings.TrimSuffix(packs[0], ".pack") + ".idx")
	require.NoError(t, err)
	theirs := filepath.Join(t.TempDir(), "git.idx")
	git(t, r.WorkTree, "index-pack", "-o", theirs, packs[0])
	want, err := os.ReadFile(theirs)
	require.NoError(t, err)
	assert.Equal(t, want, ours)

	require.NoError(t, r.UpdateRef(recordsRef, h, plumbing.ZeroHash, testIdent, "batch"))
	requireFsckClean(t, r.WorkTree)
	// A Sync with nothing written writes no pack.
	require.NoError(t, w.Sync())
	packs, _ = filepath.Glob(filepath.Join(r.ObjectDir, "pack", "pack-*.pack"))
	assert.Len(t, packs, 1)
}

// What a writer wrote reads back before its pack is synced, whole, from
// the temporary file alone (nothing else holds it); an object it did not
// write is not found; after Abort no file is left.
func TestPackWriterReadsBackBeforeSync(t *testing.T) {
	r := newRepoT(t)
	w := r.NewPackWriter()
	var contents [][]byte
	for i := range 40 {
		contents = append(contents, []byte(fmt.Sprintf("record %d\n%s", i, strings.Repeat("z", i*i*7))))
	}
	hs, err := w.WriteAll(plumbing.BlobObject, contents)
	require.NoError(t, err)
	tree, err := w.Write(plumbing.TreeObject, []byte("100644 a\x00"+string(hs[0][:])))
	require.NoError(t, err)
	for i, h := range hs {
		typ, got, ok, err := w.Object(h)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, plumbing.BlobObject, typ)
		assert.Equal(t, contents[i], got)
	}
	typ, _, ok, err := w.Object(tree)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, plumbing.TreeObject, typ)
	_, _, ok, err = w.Object(plumbing.ComputeHash(plumbing.BlobObject, []byte("never written")))
	require.NoError(t, err)
	assert.False(t, ok)

	w.Abort()
	left, err := filepath.Glob(filepath.Join(r.ObjectDir, "pack", "*"))
	require.NoError(t, err)
	assert.Empty(t, left, "an aborted pack leaves nothing")
	_, _, ok, _ = w.Object(hs[0])
	assert.False(t, ok)
}

// WriteAll writes the pack Write would, one object after the other: the
// same hashes, each object once, readable by git, and byte for byte the
// same pack.
func TestPackWriterWriteAllIsWriteInTurn(t *testing.T) {
	var contents [][]byte
	for i := range 1300 { // more than one chunk
		j := i % 1100
		contents = append(contents, []byte(fmt.Sprintf("record %d\n%s", j, strings.Repeat("y", j%300*7))))
	}
	one, all := newRepoT(t), newRepoT(t)
	w := one.NewPackWriter()
	var want []plumbing.Hash
	for _, c := range contents {
		h, err := w.Write(plumbing.BlobObject, c)
		require.NoError(t, err)
		want = append(want, h)
	}
	require.NoError(t, w.Sync())
	wa := all.NewPackWriter()
	got, err := wa.WriteAll(plumbing.BlobObject, contents)
	require.NoError(t, err)
	require.NoError(t, wa.Sync())
	assert.Equal(t, want, got)

	pack := func(r *Repo) []byte {
		packs, err := filepath.Glob(filepath.Join(r.ObjectDir, "pack", "pack-*.pack"))
		require.NoError(t, err)
		require.Len(t, packs, 1)
		data, err := os.ReadFile(packs[0])
		require.NoError(t, err)
		return data
	}
	assert.Equal(t, pack(one), pack(all), "the same pack, byte for byte")
	out := git(t, all.WorkTree, "verify-pack", "-v", strings.TrimSuffix(func() string {
		p, _ := filepath.Glob(filepath.Join(all.ObjectDir, "pack", "pack-*.pack"))
		return p[0]
	}(), ".pack")+".idx")
	assert.True(t, strings.Contains(out, "non delta: 1100 objects"), "a repeated content is written once")
	assert.Equal(t, "record 1099\n"+strings.Repeat("y", 1099%300*7), git(t, all.WorkTree, "cat-file", "blob", got[1099].String()))
}

// With StoreTrees, trees are stored in zlib's uncompressed blocks (their
// object names do not compress; compressing them was most of a commit
// group's pack): the pack is one git reads, indexes byte for byte as we
// do and finds clean, and a tree's entry is not smaller than the tree.
func TestPackWriterStoresTrees(t *testing.T) {
	r := newRepoT(t)
	w := r.NewPackWriter()
	w.StoreTrees = true
	var tree []byte
	for i := range 300 {
		b, err := w.Write(plumbing.BlobObject, []byte(fmt.Sprintf("record %d\n%s", i, strings.Repeat("x", i))))
		require.NoError(t, err)
		tree = append(append(append(tree, fmt.Sprintf("100644 f%03d.md", i)...), 0), b[:]...)
	}
	th, err := w.Write(plumbing.TreeObject, tree)
	require.NoError(t, err)
	c := newCommit(t, plumbing.ZeroHash, "stored trees")
	c2 := &plumbing.MemoryObject{}
	c2.SetType(plumbing.CommitObject)
	body, err := readAllObject(c)
	require.NoError(t, err)
	_, err = c2.Write([]byte(strings.Replace(string(body), emptyTree.String(), th.String(), 1)))
	require.NoError(t, err)
	h, err := w.WriteObject(c2)
	require.NoError(t, err)
	require.NoError(t, w.Sync())

	idx := w.Name() + ".idx"
	out := git(t, r.WorkTree, "verify-pack", "-v", idx)
	assert.Contains(t, out, "non delta: 302 objects")
	var stored int
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 4 && f[0] == th.String() {
			stored, _ = strconv.Atoi(f[3]) // size in the pack
		}
	}
	assert.GreaterOrEqual(t, stored, len(tree), "the tree is stored, not compressed")
	assert.Equal(t, string(tree), git(t, r.WorkTree, "cat-file", "tree", th.String()))
	ours, err := os.ReadFile(idx)
	require.NoError(t, err)
	theirs := filepath.Join(t.TempDir(), "git.idx")
	git(t, r.WorkTree, "index-pack", "-o", theirs, w.Name()+".pack")
	want, err := os.ReadFile(theirs)
	require.NoError(t, err)
	assert.Equal(t, want, ours)
	require.NoError(t, r.UpdateRef(recordsRef, h, plumbing.ZeroHash, testIdent, "stored trees"))
	requireFsckClean(t, r.WorkTree)
}

func readAllObject(o plumbing.EncodedObject) ([]byte, error) {
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}
