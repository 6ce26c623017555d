package gitdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Small packs appended into one make a pack git reads and indexes as we
// do, holding every object once; the small ones removed, git finds
// everything in the new one and fsck is clean.
func TestAppendPackConsolidates(t *testing.T) {
	r := newRepoT(t)
	var small []string
	var blobs []plumbing.Hash
	for p := range 3 {
		w := r.NewPackWriter()
		for i := range 20 {
			// Object 0 is in every pack: it must be copied once.
			h, err := w.Write(plumbing.BlobObject, []byte(fmt.Sprintf("pack %d object %d\n%s", p*min(i, 1), i, strings.Repeat("y", i*i))))
			require.NoError(t, err)
			if p == 0 || i > 0 {
				blobs = append(blobs, h)
			}
		}
		require.NoError(t, w.Sync())
		require.NotEmpty(t, w.Name())
		small = append(small, w.Name())
	}
	w := r.NewPackWriter()
	for _, p := range small {
		require.NoError(t, w.AppendPack(p))
	}
	_, err := w.Write(plumbing.TreeObject, nil)
	require.NoError(t, err)
	h, err := w.WriteObject(newCommit(t, plumbing.ZeroHash, "after the copies"))
	require.NoError(t, err)
	require.NoError(t, w.Sync())
	big := w.Name()
	out := git(t, r.WorkTree, "verify-pack", "-v", big+".idx")
	assert.Contains(t, out, fmt.Sprintf("non delta: %d objects", len(blobs)+2), "each object once")
	ours, err := os.ReadFile(big + ".idx")
	require.NoError(t, err)
	theirs := filepath.Join(t.TempDir(), "git.idx")
	git(t, r.WorkTree, "index-pack", "-o", theirs, big+".pack")
	want, err := os.ReadFile(theirs)
	require.NoError(t, err)
	assert.Equal(t, want, ours, "git indexes the consolidated pack as we did")

	for _, p := range small {
		require.NoError(t, RemovePack(p))
		_, err := os.Stat(p + ".pack")
		assert.True(t, os.IsNotExist(err))
	}
	packs, err := filepath.Glob(filepath.Join(r.ObjectDir, "pack", "pack-*"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{big + ".idx", big + ".pack"}, packs)
	for i, b := range blobs {
		assert.Equal(t, "blob", git(t, r.WorkTree, "cat-file", "-t", b.String()), "object %d", i)
	}
	require.NoError(t, r.UpdateRef(recordsRef, h, plumbing.ZeroHash, testIdent, "consolidated"))
	requireFsckClean(t, r.WorkTree)
	require.Error(t, RemovePack(big+".pack"), "a file name is not a pack name")
}

// A damaged pack, or one with deltas, is never copied: the caller keeps
// the packs it has.
func TestAppendPackRefuses(t *testing.T) {
	r := newRepoT(t)
	w := r.NewPackWriter()
	for i := range 5 {
		_, err := w.Write(plumbing.BlobObject, []byte(fmt.Sprint("object ", i, strings.Repeat("z", 100))))
		require.NoError(t, err)
	}
	require.NoError(t, w.Sync())
	good := w.Name()
	data, err := os.ReadFile(good + ".pack")
	require.NoError(t, err)
	damaged := filepath.Join(t.TempDir(), "pack-damaged")
	data[len(data)/2] ^= 0xff
	require.NoError(t, os.WriteFile(damaged+".pack", data, 0o644))
	idx, err := os.ReadFile(good + ".idx")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(damaged+".idx", idx, 0o644))
	assert.Error(t, r.NewPackWriter().AppendPack(damaged), "a flipped byte")

	// git's own packs hold deltas.
	for i := range 5 {
		os.WriteFile(filepath.Join(r.WorkTree, "f"), []byte(strings.Repeat(fmt.Sprintln("line", i), 200)+strings.Repeat("same\n", 400)), 0o644)
		git(t, r.WorkTree, "add", "f")
		git(t, r.WorkTree, "commit", "-qm", fmt.Sprint(i))
	}
	git(t, r.WorkTree, "repack", "-adq")
	packs, err := filepath.Glob(filepath.Join(r.ObjectDir, "pack", "pack-*.idx"))
	require.NoError(t, err)
	require.Len(t, packs, 1)
	require.Contains(t, git(t, r.WorkTree, "verify-pack", "-v", packs[0]), "chain length", "git made deltas")
	err = r.NewPackWriter().AppendPack(strings.TrimSuffix(packs[0], ".idx"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "delta")
}
