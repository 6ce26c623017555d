package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore/gitdir"
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

// A long-lived reader finds each object another process writes while that
// process moves it from the pack it was written in into a new one, again
// and again, as the MCP server consolidates its group packs after every
// group (the same PackWriter calls as consolidatePacks). The new pack is
// written before the old ones are removed, so the object is always
// somewhere; a listing that caught an old pack's name just before it went
// must not report the object missing.
func TestObjectFoundWhileRepackedUnderTheReader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "--bare")
	repo, err := gitdir.Discover(dir)
	require.NoError(t, err)
	var latest atomic.Pointer[plumbing.Hash]
	stop := make(chan struct{})
	written := make(chan int)
	go func() {
		n := 0
		defer func() { written <- n }()
		consolidated := ""
		for ; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			group := repo.NewPackWriter()
			h, err := group.Write(plumbing.BlobObject, []byte(fmt.Sprint("object ", n)))
			if err != nil || group.Sync() != nil {
				return
			}
			latest.Store(&h)
			next := repo.NewPackWriter()
			for _, p := range []string{consolidated, group.Name()} {
				if p != "" && next.AppendPack(p) != nil {
					return
				}
			}
			if next.Sync() != nil {
				return
			}
			for _, p := range []string{consolidated, group.Name()} {
				if p != "" && p != next.Name() {
					_ = gitdir.RemovePack(p)
				}
			}
			consolidated = next.Name()
		}
	}()
	objects := newFreshObjects(dir)
	deadline := time.Now().Add(2 * time.Second)
	reads := 0
	var last *plumbing.Hash
	for time.Now().Before(deadline) {
		// Each object once, as soon as it is published: while it is
		// being consolidated, and never yet in the packs listed.
		h := latest.Load()
		if h == nil || h == last {
			runtime.Gosched()
			continue
		}
		last = h
		if _, err := objects.EncodedObject(plumbing.BlobObject, *h); !assert.NoError(t, err, "read %d of %s", reads, h) {
			break
		}
		reads++
	}
	close(stop)
	n := <-written
	require.Greater(t, n, 10, "objects were written and repacked under the reader")
	t.Logf("%d reads of %d objects", reads, n)
}
