package gitdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"
)

// The benchmarks time one ref move and one object write with everything
// this package does for durability, against git update-ref run in the same
// process tree, and what fsync itself costs on this machine.

// BenchmarkUpdateRef moves a ref back and forth between two commits: lock,
// compare, write, fsync, reflog, rename, directory fsync.
func BenchmarkUpdateRef(b *testing.B) {
	r := newRepoT(b)
	c := chain(b, r, 2)
	require.NoError(b, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))
	for i := 0; b.Loop(); i++ {
		if err := r.UpdateRef(recordsRef, c[(i+1)%2], c[i%2], testIdent, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGitUpdateRefCLI is the baseline: the same move with git
// update-ref, by default (git fsyncs no ref) and with core.fsync=reference
// (git fsyncs the ref as we do).
func BenchmarkGitUpdateRefCLI(b *testing.B) {
	for _, fsync := range []string{"default", "reference"} {
		b.Run("core.fsync="+fsync, func(b *testing.B) {
			r := newRepoT(b)
			c := chain(b, r, 2)
			require.NoError(b, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))
			var cfg []string
			if fsync != "default" {
				cfg = []string{"-c", "core.fsync=" + fsync}
			}
			for i := 0; b.Loop(); i++ {
				args := append(cfg, "update-ref", "-m", "bench", recordsRef, c[(i+1)%2].String(), c[i%2].String())
				if _, err := runGit(r.WorkTree, args...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkObjectWrite writes commit-sized objects and syncs: one object
// per Sync, and ten (a record op's blob, trees and commit) per Sync.
func BenchmarkObjectWrite(b *testing.B) {
	for _, perSync := range []int{1, 10} {
		b.Run(fmt.Sprintf("objects-per-sync=%d", perSync), func(b *testing.B) {
			r := newRepoT(b)
			w := r.NewObjectWriter()
			for i := 0; b.Loop(); i++ {
				for j := range perSync {
					content := fmt.Appendf(nil, "---\nid: rec_%d_%d\ntitle: a record of a typical size\n---\n%0300d\n", i, j, i)
					if _, err := w.Write(plumbing.BlobObject, content); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadRef reads a loose ref and one only in packed-refs.
func BenchmarkReadRef(b *testing.B) {
	r := newRepoT(b)
	c := chain(b, r, 1)
	require.NoError(b, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))
	require.NoError(b, r.UpdateRef("refs/heads/packed", c[0], plumbing.ZeroHash, testIdent, "create"))
	git(b, r.WorkTree, "pack-refs", "--all") // packs both, removes loose files
	require.NoError(b, r.UpdateRef(recordsRef, chain(b, r, 2)[1], c[0], testIdent, "loose again"))
	for _, ref := range []string{recordsRef, "refs/heads/packed"} {
		b.Run(filepath.Base(ref), func(b *testing.B) {
			for b.Loop() {
				if _, err := r.ReadRef(ref); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFsync measures the primitives: writing and renaming a small file
// with no fsync, then the file fsync and the directory fsync added.
func BenchmarkFsync(b *testing.B) {
	dir := b.TempDir()
	payload := make([]byte, 300)
	write := func(b *testing.B, i int, sync bool) {
		tmp := filepath.Join(dir, "tmp")
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		f.Write(payload)
		if sync {
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
		if err := os.Rename(tmp, filepath.Join(dir, strconv.Itoa(i%100))); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("write+rename", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			write(b, i, false)
		}
	})
	b.Run("write+fsync+rename", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			write(b, i, true)
		}
	})
	b.Run("write+fsync+rename+dirfsync", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			write(b, i, true)
			if err := syncDir(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}
