package gitstore

import (
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// A store that shares writes merges its index off the write path: random
// ops (creates, updates, links, retirements) land while merges are held
// for a random number of ops, so the delta outgrows its limit, merged bases
// arrive several ops after their snapshot, and saves are rebased onto them.
// After every other op the index in memory, and the one a new process
// loads from disk, equal an index built from scratch at the tip.
func TestIndexMergedOffTheLockEqualsColdBuild(t *testing.T) {
	t.Parallel()
	const limit = 3
	s := newTestStore(t, Options{NewID: kernel.NewID, deltaLimit: limit})
	var mu sync.Mutex
	s.ShareWrites(&mu)
	release := make(chan struct{}, 1000)
	started := 0
	s.mergeHold = func() { <-release }
	g := &randomOps{rng: rand.New(rand.NewPCG(3, 5)), aliases: map[string]string{}}
	installed := map[*indexMerge]bool{}
	var last *indexMerge
	grew := false
	for i := range 36 {
		if g.rng.IntN(4) == 0 {
			release <- struct{}{} // the oldest merge held may go on
		}
		name, decide := g.next()
		mu.Lock()
		w, err := s.Mutate(decide)
		if err == nil {
			g.record(w)
		} else {
			require.NotEqual(t, kernel.CodeInternal, kernel.CodeOf(err), "op %d %s: %v", i, name, err)
		}
		if s.merge != last {
			started++
			last = s.merge
		}
		if s.merge != nil && s.merge.installed {
			installed[s.merge] = true
		}
		if s.index != nil && len(s.index.delta) > limit {
			grew = true
		}
		if i%2 == 1 || i >= 30 {
			cold := coldIndex(t, s)
			requireSameIndex(t, cold, indexOf(t, s), "in memory after op %d (%s)", i, name)
			requireSameIndex(t, cold, indexOf(t, reopen(t, s)), "from disk after op %d (%s)", i, name)
		}
		mu.Unlock()
	}
	close(release)
	require.NoError(t, s.Close())
	require.Greater(t, started, 3, "merges started")
	require.Greater(t, len(installed), 2, "merged bases were installed by rebased saves")
	require.True(t, grew, "the delta outgrew its limit while a merge was in flight")
	res, err := reopen(t, s).Reindex("")
	require.NoError(t, err)
	require.False(t, res.Changed, "the index on disk equals a rebuild")
}

// An index of an older tip on the same base (a view still held by a
// request) is never rebased onto a merge of a later snapshot: the merged
// base holds a record that index's tip does not. A later index is rebased,
// and answers exactly as it did.
func TestIndexRebasedOnlyWhenItHoldsTheSnapshot(t *testing.T) {
	t.Parallel()
	s := newTestStore(t, Options{NewID: kernel.NewID})
	var mu sync.Mutex
	s.ShareWrites(&mu)
	mu.Lock()
	defer mu.Unlock()
	for _, title := range []string{"one", "two"} {
		_, err := s.Mutate(createOp(kernel.CreateInput{Title: title}))
		require.NoError(t, err)
	}
	old := indexOf(t, s)
	ids := old.IDs()
	require.Len(t, ids, 2)
	renamed := func(id, title string) *IndexEntry {
		e := *old.Entry(ids[0])
		e.ID, e.Title = id, title
		return &e
	}
	snapshot := old.withChanges(plumbing.Hash{1}, map[string]*IndexEntry{"snapshotonly": renamed("snapshotonly", "in the snapshot")})
	require.True(t, s.mergeAside(snapshot))
	m := s.merge
	<-m.done
	require.NotNil(t, m.result)

	require.Same(t, old, s.rebased(old), "the older index stays on its own base")
	later := snapshot.withChanges(plumbing.Hash{2}, map[string]*IndexEntry{
		"later": renamed("later", "after the snapshot"), ids[1]: nil})
	got := s.rebased(later)
	require.Same(t, m.result, got.base)
	require.Len(t, got.delta, 2, "only what changed since the snapshot")
	require.Equal(t, later.Tip, got.Tip)
	require.Equal(t, entriesOf(later), entriesOf(got))
	require.Equal(t, later.IDs(), got.IDs())
	require.NoError(t, s.Close())
}

// A store closed while its index merge is still running (a server that
// exits mid-merge) waits for the merge and removes the merged file nothing
// installed: no temporary file of the base's size is left beside the index.
func TestCloseMidMergeLeavesNoTempFile(t *testing.T) {
	t.Parallel()
	s := newTestStore(t, Options{NewID: kernel.NewID, deltaLimit: 1})
	var mu sync.Mutex
	s.ShareWrites(&mu)
	release := make(chan struct{})
	s.mergeHold = func() { <-release }
	g := &randomOps{rng: rand.New(rand.NewPCG(7, 11)), aliases: map[string]string{}}
	for s.merge == nil {
		_, decide := g.next()
		mu.Lock()
		w, err := s.Mutate(decide)
		if err == nil {
			g.record(w)
		}
		mu.Unlock()
	}
	go func() { time.Sleep(20 * time.Millisecond); close(release) }()
	require.NoError(t, s.Close())
	temps, err := filepath.Glob(filepath.Join(filepath.Dir(s.indexPath()), ".index-*"))
	require.NoError(t, err)
	require.Empty(t, temps, "the merge's file is removed when the store closes")
}

// A store that shares writes (a server) and whose ops never read the
// index (creates) moves the index it holds by each write, so its merges
// are installed and the delta stays bounded: one merge per limit writes
// or so, never one per write, the delta in memory and on disk within
// limit × mergeFactor, and the index equal to a cold build at the end.
// A reader of the index under the shared lock runs all along, while the
// merges run off it.
func TestSharedWritesKeepTheDeltaBounded(t *testing.T) {
	t.Parallel()
	const limit, writes = 4, 48
	s := newTestStore(t, Options{NewID: kernel.NewID, deltaLimit: limit})
	var mu sync.Mutex
	s.ShareWrites(&mu)
	done := make(chan struct{})
	read := make(chan int)
	go func() {
		// Reads as a server's other requests make them, under the lock.
		n := 0
		defer func() { read <- n }()
		for {
			select {
			case <-done:
				return
			default:
			}
			mu.Lock()
			if v, err := s.View(); err == nil {
				if ix, err := v.Index(); err == nil {
					ix.Each(func(e *IndexEntry) bool { return ix.HasID(e.ID) })
					n++
				}
			}
			mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}()
	started := 0
	var last *indexMerge
	for i := range writes {
		mu.Lock()
		_, err := s.Mutate(createOp(kernel.CreateInput{Title: "record " + string(rune('a'+i%26))}))
		require.NoError(t, err)
		if s.merge != last {
			started++
			last = s.merge
		}
		require.NotNil(t, s.index, "the store holds its index after a write")
		require.LessOrEqual(t, len(s.index.delta), limit*mergeFactor, "write %d", i)
		d, err := readDelta(s.deltaPath())
		require.NoError(t, err)
		require.LessOrEqual(t, len(d.changes), limit*mergeFactor, "write %d: the delta on disk", i)
		mu.Unlock()
		if s.merge != nil {
			<-s.merge.done // as a server's merges end between its writes
		}
	}
	close(done)
	require.Positive(t, <-read, "the reader read")
	require.LessOrEqual(t, started, writes/limit+1, "merges started: one per limit writes, not one per write")
	require.GreaterOrEqual(t, started, writes/(limit*mergeFactor), "the delta was merged")
	mu.Lock()
	requireSameIndex(t, coldIndex(t, s), indexOf(t, s), "in memory")
	requireSameIndex(t, coldIndex(t, s), indexOf(t, reopen(t, s)), "from disk")
	mu.Unlock()
	require.NoError(t, s.Close())
}
