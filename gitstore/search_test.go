package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/search"
)

func searchIDs(t *testing.T, s *Store, q string, o SearchOptions) []string {
	t.Helper()
	v, err := s.View()
	require.NoError(t, err)
	hits, err := v.Search(q, o)
	require.NoError(t, err)
	ids := []string{}
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// The search index follows the branch: an update is found by its new
// words and not its old ones, a retired record drops out (unless asked
// for), and each answer equals the one of an index rebuilt by reindex.
func TestSearchFollowsTheBranch(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "Token refresh policy", Body: "Sessions end.\n", Tags: []string{"auth"}, Category: "eng.api"})
	b := create(t, s, kernel.CreateInput{Title: "Sessions", Body: "Every refresh of a token rotates it.\n", Type: "raw", Category: "eng.storage"})
	require.Equal(t, []string{a.ID, b.ID}, searchIDs(t, s, "token", SearchOptions{}), "a title hit ranks above a body hit")

	// Filters are list's.
	require.Equal(t, []string{b.ID}, searchIDs(t, s, "token", SearchOptions{Filter: Filter{Type: "raw"}}))
	require.Equal(t, []string{a.ID}, searchIDs(t, s, "token", SearchOptions{Filter: Filter{Category: "eng.api"}}))
	require.Equal(t, []string{a.ID, b.ID}, searchIDs(t, s, "token", SearchOptions{Filter: Filter{Category: "eng", CategoryPrefix: true}}))
	require.Equal(t, []string{a.ID}, searchIDs(t, s, "token", SearchOptions{Filter: Filter{Tag: "auth"}}))
	require.Equal(t, []string{a.ID}, searchIDs(t, s, "token", SearchOptions{Limit: 1}))

	// Another process updates b: this one (a new store, as the next
	// command would be) catches the index up from the tree diff.
	other := reopen(t, s)
	mutate(t, other, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, b.ID, kernel.UpdateFields{Body: ptr("Queues drain at night.\n")}, ev(), env)
	})
	s = reopen(t, s)
	require.Equal(t, []string{a.ID}, searchIDs(t, s, "token", SearchOptions{}), "the old words of an updated record no longer find it")
	require.Equal(t, []string{b.ID}, searchIDs(t, s, "queues", SearchOptions{}), "its new words do")

	mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Retire(v, a.ID, kernel.StatusRetired, kernel.Evidence{Agent: testAgent, Rationale: "old"}, env)
	})
	require.Empty(t, searchIDs(t, s, "token", SearchOptions{}), "a retired record drops out")
	require.Equal(t, []string{a.ID}, searchIDs(t, s, "token", SearchOptions{Filter: Filter{IncludeRetired: true}}))
	require.Equal(t, []string{a.ID}, searchIDs(t, s, "token", SearchOptions{Filter: Filter{Status: kernel.StatusRetired}}))

	queries := []string{"token", "queues", "sessions", `"refresh policy"`, "ses*", "tag:auth", "title:sessions"}
	incremental := map[string][]string{}
	for _, q := range queries {
		incremental[q] = searchIDs(t, s, q, SearchOptions{Filter: Filter{IncludeRetired: true}})
	}
	res, err := s.Reindex("")
	require.NoError(t, err)
	require.Equal(t, IndexCurrent, res.Search, "the caught-up search index agrees with a rebuild")
	for _, q := range queries {
		require.Equal(t, incremental[q], searchIDs(t, reopen(t, s), q, SearchOptions{Filter: Filter{IncludeRetired: true}}), "query %q after reindex", q)
	}
}

// A search index whose files are missing, truncated, garbage or of
// another tip's base is rebuilt, never trusted; reindex reports one that
// disagrees with the branch.
func TestSearchIndexNeverTrustedWhenDamaged(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "Token refresh policy"})
	require.Equal(t, []string{a.ID}, searchIDs(t, s, "token", SearchOptions{}))
	delta := s.searchDeltaPath()
	ix := s.loadSearchIndex()
	require.NotNil(t, ix)
	base := s.searchBasePath(ix.BaseTip)
	good, err := os.ReadFile(base)
	require.NoError(t, err)

	for name, damage := range map[string]func(){
		"delta missing":   func() { os.Remove(delta) },
		"base missing":    func() { os.Remove(base) },
		"base truncated":  func() { os.WriteFile(base, good[:len(good)-5], 0o644) },
		"delta garbage":   func() { os.WriteFile(delta, []byte("garbage"), 0o644) },
		"base of nothing": func() { os.WriteFile(base, search.Build(s.ref, ix.BaseTip, nil), 0o644) }, // parses, but a different set of records
	} {
		damage()
		s2 := reopen(t, s)
		if name == "base of nothing" {
			// Parses, so it is read: reindex must call it drift and mend it.
			res, err := s2.Reindex("")
			require.NoError(t, err)
			require.Equal(t, IndexDrift, res.Search, name)
			require.Contains(t, res.Drift, "search index")
		}
		require.Equal(t, []string{a.ID}, searchIDs(t, s2, "token", SearchOptions{}), name)
		require.NotNil(t, s2.loadSearchIndex(), "%s: rebuilt and saved", name)
	}
}

// Incremental updates through many commits, merging the delta into the
// base on the way, answer as a rebuild does.
func TestSearchDeltaMerge(t *testing.T) {
	// Not parallel: search.MaxDelta is package state that every search
	// catch-up reads.
	defer func(m int) { search.MaxDelta = m }(search.MaxDelta)
	search.MaxDelta = 2
	s := newTestStore(t)
	var ids []string
	for i, title := range []string{"alpha token", "beta token", "gamma", "delta token", "epsilon"} {
		r := create(t, s, kernel.CreateInput{Title: title, Body: "Body " + title + " " + string(rune('a'+i)) + ".\n"})
		ids = append(ids, r.ID)
		searchIDs(t, reopen(t, s), "token", SearchOptions{}) // catch up one commit at a time
	}
	got := searchIDs(t, reopen(t, s), "token", SearchOptions{})
	require.ElementsMatch(t, []string{ids[0], ids[1], ids[3]}, got)
	res, err := s.Reindex("")
	require.NoError(t, err)
	require.Equal(t, IndexCurrent, res.Search)
	require.Equal(t, got, searchIDs(t, reopen(t, s), "token", SearchOptions{}))
}

// Processes that search while others write, each catching the index up
// and merging its delta into new bases, never fail and never answer from
// a base that does not go with their delta: every answer holds the
// records of the tip it was asked at.
func TestSearchConcurrentCatchUps(t *testing.T) {
	// Not parallel: search.MaxDelta is package state that every search
	// catch-up reads.
	defer func(m int) { search.MaxDelta = m }(search.MaxDelta)
	search.MaxDelta = 2 // a merge into a new base every few records
	s := newTestStore(t)
	const writes = 12
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 3 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				r := reopen(t, s)
				v, err := r.View()
				if err != nil {
					errs <- err
					return
				}
				hits, err := v.Search("shared", SearchOptions{})
				if err != nil {
					errs <- err
					return
				}
				ix, err := v.Index()
				if err != nil {
					errs <- err
					return
				}
				if len(hits) != ix.Len() {
					errs <- fmt.Errorf("at %s: %d hits for %d records", v.Tip(), len(hits), ix.Len())
					return
				}
			}
		}()
	}
	for i := range writes {
		create(t, s, kernel.CreateInput{Title: fmt.Sprintf("shared word %d", i)})
	}
	close(done)
	for range 3 {
		require.NoError(t, <-errs)
	}
	require.Len(t, searchIDs(t, reopen(t, s), "shared", SearchOptions{}), writes)
	res, err := reopen(t, s).Reindex("")
	require.NoError(t, err)
	require.Contains(t, []string{IndexCurrent, IndexBehind}, res.Search)
}

// A long-lived process (the MCP server) follows the branch with the index
// it holds: another process's writes and its merges of the delta into new
// bases are caught up from the tree diff, and the bases it no longer uses
// are unmapped, not kept with their files deleted.
func TestSearchFollowsInALongLivedProcess(t *testing.T) {
	// Not parallel: search.MaxDelta is package state that every search
	// catch-up reads.
	defer func(m int) { search.MaxDelta = m }(search.MaxDelta)
	search.MaxDelta = 2
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "alpha one"})
	require.Equal(t, []string{a.ID}, searchIDs(t, s, "alpha", SearchOptions{}))
	firstBase := s.searchBasePath(s.searchBaseTip)

	// Another process writes and searches, merging the delta into a new
	// base and removing the old one.
	other := reopen(t, s)
	var ids []string
	for i := range 4 {
		ids = append(ids, create(t, other, kernel.CreateInput{Title: fmt.Sprintf("alpha %d", i)}).ID)
		searchIDs(t, other, "alpha", SearchOptions{})
	}
	_, err := os.Stat(firstBase)
	require.ErrorIs(t, err, os.ErrNotExist, "the other process merged into a new base")

	require.ElementsMatch(t, append(ids, a.ID), searchIDs(t, s, "alpha", SearchOptions{}))
	maps, err := os.ReadFile("/proc/self/maps")
	if err == nil {
		require.NotContains(t, string(maps), firstBase, "the old base is unmapped")
	}

	// The branch moves under it: following the tip (as the MCP server does
	// on every move) catches the held index up before the next search.
	c := create(t, other, kernel.CreateInput{Title: "alpha last"})
	tip, err := s.Tip()
	require.NoError(t, err)
	s.CatchUpSearch(tip)
	require.Equal(t, [20]byte(tip), s.search.Tip)
	require.Contains(t, searchIDs(t, s, "alpha", SearchOptions{}), c.ID)
	require.Equal(t, searchIDs(t, reopen(t, s), "alpha", SearchOptions{}), searchIDs(t, s, "alpha", SearchOptions{}), "the held index answers as one read from disk")
}

// searchFixture is a store whose search index has a base and a delta
// that holds documents (records created after the base was built), and
// the queries that read both.
func searchFixture(t *testing.T) (s *Store, queries []string) {
	t.Helper()
	s = newTestStore(t)
	create(t, s, kernel.CreateInput{Title: "Token refresh policy", Body: "Sessions end.\n", Tags: []string{"auth"}})
	create(t, s, kernel.CreateInput{Title: "Sessions", Body: "Every refresh of a token rotates it.\n"})
	searchIDs(t, s, "token", SearchOptions{}) // the base
	create(t, s, kernel.CreateInput{Title: "Token caching", Body: "Cached tokens rotate hourly.\n"})
	create(t, s, kernel.CreateInput{Title: "Queues", Body: "Workers drain the token queue.\n"})
	searchIDs(t, reopen(t, s), "token", SearchOptions{}) // the delta
	return s, []string{"token", "rot*", `"refresh token"`, "sessions", "tag:auth", "queues"}
}

// A bit flipped in the search delta or base, wherever it falls, changes
// no answer: the damaged files are rebuilt from the branch, never answered
// from (the search package flips every byte of both; a sample here, through
// the store's files).
func TestSearchIndexFlippedBitsRebuilt(t *testing.T) {
	t.Parallel()
	s, queries := searchFixture(t)
	want := map[string][]string{}
	for _, q := range queries {
		want[q] = searchIDs(t, reopen(t, s), q, SearchOptions{})
	}
	require.Len(t, want["token"], 4)
	ix := s.loadSearchIndex()
	require.NotNil(t, ix)
	require.NotEqual(t, ix.Tip, ix.BaseTip, "the delta holds documents")
	files := []string{s.searchDeltaPath(), s.searchBasePath(ix.BaseTip)}
	intact := make([][]byte, len(files))
	for i, path := range files {
		var err error
		intact[i], err = os.ReadFile(path)
		require.NoError(t, err)
	}
	for i, path := range files {
		good := intact[i]
		for at := 0; at < len(good); at += len(good)/40 + 1 {
			bad := bytes.Clone(good)
			bad[at] ^= 1 << (at % 8)
			require.NoError(t, os.WriteFile(path, bad, 0o644))
			for _, q := range queries {
				require.Equal(t, want[q], searchIDs(t, reopen(t, s), q, SearchOptions{}), "%s byte %d flipped: %q", filepath.Base(path), at, q)
			}
			for j, p := range files { // the rebuild replaced the delta and removed the base
				require.NoError(t, os.WriteFile(p, intact[j], 0o644))
			}
		}
	}
}

// Another store's search base, copied where this store's base belongs (or
// with its delta), is never answered from: its header names another tip.
func TestSearchIndexOfAnotherStoreRebuilt(t *testing.T) {
	t.Parallel()
	s, _ := searchFixture(t)
	ours := searchIDs(t, reopen(t, s), "token", SearchOptions{})
	other := newTestStore(t)
	theirs := create(t, other, kernel.CreateInput{Title: "Token of another store"})
	require.Equal(t, []string{theirs.ID}, searchIDs(t, other, "token", SearchOptions{}))
	otherIx := other.loadSearchIndex()
	require.NotNil(t, otherIx)
	theirBase, err := os.ReadFile(other.searchBasePath(otherIx.BaseTip))
	require.NoError(t, err)
	theirDelta, err := os.ReadFile(other.searchDeltaPath())
	require.NoError(t, err)

	ix := s.loadSearchIndex()
	require.NotNil(t, ix)
	ourBase := s.searchBasePath(ix.BaseTip)
	require.NoError(t, os.WriteFile(ourBase, theirBase, 0o644))
	require.Equal(t, ours, searchIDs(t, reopen(t, s), "token", SearchOptions{}), "their base in place of ours")

	require.NoError(t, os.WriteFile(s.searchDeltaPath(), theirDelta, 0o644))
	require.NoError(t, os.WriteFile(s.searchBasePath(otherIx.BaseTip), theirBase, 0o644))
	require.Equal(t, ours, searchIDs(t, reopen(t, s), "token", SearchOptions{}), "their delta and base in place of ours")
}

// A directory where a file of the graph or search index belongs: reads
// rebuild around it, and reindex removes it, writes the file and reports
// the index it could not read.
func TestReindexRepairsADirectoryAtAnIndexFile(t *testing.T) {
	t.Parallel()
	s, _ := searchFixture(t)
	ours := searchIDs(t, reopen(t, s), "token", SearchOptions{})
	ix := s.loadSearchIndex()
	require.NotNil(t, ix)
	tip := plumbing.Hash(ix.Tip)
	v, err := reopen(t, s).View()
	require.NoError(t, err)
	_, err = v.Index() // the graph index's files too
	require.NoError(t, err)
	require.FileExists(t, s.indexPath())
	dir := filepath.Dir(s.searchDeltaPath())
	snapshot := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		snapshot[e.Name()], err = os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
	}
	// damage puts the snapshot back, with a directory at path.
	damage := func(path string) {
		require.NoError(t, os.RemoveAll(dir))
		require.NoError(t, os.MkdirAll(filepath.Join(path, "sub"), 0o755))
		for name, data := range snapshot {
			if filepath.Join(dir, name) != path {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
			}
		}
	}
	for _, path := range []string{s.searchDeltaPath(), s.searchBasePath(ix.BaseTip), s.searchBasePath(tip), s.indexPath(), s.deltaPath()} {
		name := filepath.Base(path)
		damage(path)
		require.Equal(t, ours, searchIDs(t, reopen(t, s), "token", SearchOptions{}), "a search with a directory at %s", name)
		damage(path)
		res, err := reopen(t, s).Reindex("")
		require.NoError(t, err, "reindex with a directory at %s", name)
		switch path {
		case s.indexPath():
			require.Equal(t, IndexMissing, res.State, name)
		case s.searchDeltaPath(), s.searchBasePath(ix.BaseTip):
			require.Equal(t, IndexMissing, res.Search, name)
		}
		if path == s.indexPath() || path == s.searchDeltaPath() || path == s.searchBasePath(ix.BaseTip) {
			require.True(t, res.Changed, "reindex reports a directory at %s: %+v", name, res)
		}
		for _, p := range []string{s.searchDeltaPath(), s.searchBasePath(tip), s.indexPath()} {
			fi, err := os.Stat(p)
			require.NoError(t, err)
			require.True(t, fi.Mode().IsRegular(), "%s after reindex with a directory at %s", filepath.Base(p), name)
		}
		if fi, err := os.Stat(path); err == nil {
			require.True(t, fi.Mode().IsRegular(), "%s after reindex", name)
		}
		res, err = reopen(t, s).Reindex("")
		require.NoError(t, err)
		require.Equal(t, IndexCurrent, res.Search, "the repaired index is current")
		require.Equal(t, ours, searchIDs(t, reopen(t, s), "token", SearchOptions{}))
	}
}

// searchFiles reads the search index's files: the delta, and the base it
// names.
func searchFiles(t *testing.T, s *Store) (delta, base []byte) {
	t.Helper()
	delta, err := os.ReadFile(s.searchDeltaPath())
	require.NoError(t, err)
	baseTip, err := search.DeltaBaseTip(delta)
	require.NoError(t, err)
	base, err = os.ReadFile(s.searchBasePath(baseTip))
	require.NoError(t, err)
	return delta, base
}

// The search index reindex builds in the graph index's read, the one the
// first read (or search) of a new clone builds with the graph index, and
// the one a search builds on its own are the same files, byte for byte, whether the build wrote its
// records in one piece or in many runs merged; and a search right after
// any of them reads no record.
func TestSearchIndexBuiltInOneReadIsTheLazyOne(t *testing.T) {
	// Not parallel: search.RunBytes is package state every build reads.
	defer func(n int) { search.RunBytes = n }(search.RunBytes)
	s := newTestStore(t)
	for i := range 12 {
		create(t, s, kernel.CreateInput{Title: fmt.Sprintf("Record %d about latency", i), Body: fmt.Sprintf("Body %d of many words.\n", i),
			Tags: []string{"t" + fmt.Sprint(i%3)}})
	}
	dir := filepath.Dir(s.searchDeltaPath())
	removeSearch := func() {
		names, _ := filepath.Glob(s.searchDeltaPath() + "*")
		for _, n := range names {
			require.NoError(t, os.Remove(n))
		}
	}
	for _, runBytes := range []int{1 << 30, 300} {
		search.RunBytes = runBytes

		// A search with the graph index current builds the search index alone.
		indexOf(t, s)
		removeSearch()
		searchIDs(t, reopen(t, s), "latency", SearchOptions{})
		lazyDelta, lazyBase := searchFiles(t, s)

		require.NoError(t, os.RemoveAll(dir))
		_, err := reopen(t, s).Reindex("")
		require.NoError(t, err)
		delta, base := searchFiles(t, s)
		require.Equal(t, lazyDelta, delta, "runs of %d bytes: reindex's delta", runBytes)
		require.Equal(t, lazyBase, base, "runs of %d bytes: reindex's base", runBytes)

		require.NoError(t, os.RemoveAll(dir))
		indexOf(t, reopen(t, s)) // the first read of a new clone
		delta, base = searchFiles(t, s)
		require.Equal(t, lazyDelta, delta, "runs of %d bytes: the first read's delta", runBytes)
		require.Equal(t, lazyBase, base, "runs of %d bytes: the first read's base", runBytes)

		require.NoError(t, os.RemoveAll(dir))
		searchIDs(t, reopen(t, s), "latency", SearchOptions{}) // a search in a new clone
		require.FileExists(t, s.indexPath(), "the search's read built the graph index too")
		delta, base = searchFiles(t, s)
		require.Equal(t, lazyDelta, delta, "runs of %d bytes: the first search's delta", runBytes)
		require.Equal(t, lazyBase, base, "runs of %d bytes: the first search's base", runBytes)

		// The next search has nothing to catch up.
		tip, err := s.Tip()
		require.NoError(t, err)
		ix := reopen(t, s).loadSearchIndex()
		require.NotNil(t, ix)
		require.Equal(t, [20]byte(tip), ix.Tip)
		require.Len(t, searchIDs(t, reopen(t, s), "latency", SearchOptions{}), 12)
	}
	temps, err := filepath.Glob(filepath.Join(dir, ".search-*"))
	require.NoError(t, err)
	require.Empty(t, temps, "no run or base left in a temporary file")
}

// A read that catches the graph index up from a tree diff (commits that
// arrived by a fetch, say) brings the search index along from the records
// it decoded, merging its delta into a new base when it is due; the search
// delta stays within search.MaxDelta however many commits go by, and the
// search index always equals one rebuilt at its tip.
func TestSearchIndexFollowsGraphCatchUps(t *testing.T) {
	// Not parallel: search.MaxDelta is package state.
	defer func(m int) { search.MaxDelta = m }(search.MaxDelta)
	search.MaxDelta = 3
	s := newTestStore(t)
	indexOf(t, s)
	searchIDs(t, s, "latency", SearchOptions{}) // both indexes at the tip
	bases := map[[20]byte]bool{}
	for i := range 14 {
		// A commit that moves the branch and none of this store's caches.
		r := &kernel.Record{ID: fmt.Sprintf("fetched-%d", i), Type: "raw", Title: fmt.Sprintf("Record %d about latency", i), Category: "c",
			CreatedAt: ts("2026-01-01"), UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "a human"}}
		data, err := EncodeRecord(r)
		require.NoError(t, err)
		tip, err := s.Tip()
		require.NoError(t, err)
		handCommit(t, s, tip, map[string]string{RecordPath(r.Type, r.ID): string(data)}, "fetched")
		reader := reopen(t, s)
		indexOf(t, reader) // a read, not a search
		ix := reader.loadSearchIndex()
		require.NotNil(t, ix)
		tip, err = reader.Tip()
		require.NoError(t, err)
		require.Equal(t, [20]byte(tip), ix.Tip, "write %d: the search index came along", i)
		require.False(t, ix.NeedsMerge(), "write %d: the delta within search.MaxDelta", i)
		bases[ix.BaseTip] = true
		ids := searchIDs(t, reader, "latency", SearchOptions{})
		require.Contains(t, ids, r.ID)
		require.Len(t, ids, i+1)
	}
	require.Greater(t, len(bases), 2, "the delta was merged into new bases on the way")
	res, err := reopen(t, s).Reindex("")
	require.NoError(t, err)
	require.Equal(t, IndexCurrent, res.Search)
}
