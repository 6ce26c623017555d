package gitstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestBaseBuilderWritesWhatOneRowEachWrote: the arena builder, given the
// entries in any order, writes byte for byte the file the earlier
// builder (one slice per row, entries sorted by id first; kept below as
// the reference) wrote, shared keys, duplicate rows, empty tables and
// ties in creation time included.
func TestBaseBuilderWritesWhatOneRowEachWrote(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	tip := plumbing.NewHash(strings.Repeat("cd", 20))
	for _, n := range []int{0, 1, 2, 50, 700, 17000} { // 17,000: a row offset table over 64 KiB
		var entries []*IndexEntry
		for i := range n {
			e := &IndexEntry{ID: fmt.Sprintf("%c%05d", 'a'+rng.IntN(26), i), Type: pick("concept", "raw", "relation"),
				Category: pick("", "eng", "eng.api", "ops"), Title: fmt.Sprintf("t%d", rng.IntN(5)),
				Status: kernel.Status(pick("", "active", "retired")), CreatedAt: int64(rng.IntN(20)), Expires: int64(rng.IntN(3))}
			for range rng.IntN(3) {
				e.Tags = append(e.Tags, pick("t1", "t2", "t3"))
				e.Aliases = append(e.Aliases, pick("al1", "al2", fmt.Sprintf("al-%d", i)))
			}
			for range rng.IntN(4) {
				ed := Edge{Target: pick("hub", "x", fmt.Sprintf("a%05d", rng.IntN(n+1))), Kind: pick("related", "cites", kernel.LinkSupersedes), Label: pick("", "l")}
				if rng.IntN(3) == 0 {
					ed.Source = pick("s1", "s2")
				}
				e.Edges = append(e.Edges, ed)
			}
			entries = append(entries, e)
		}
		sorted := slices.Clone(entries)
		slices.SortFunc(sorted, func(a, b *IndexEntry) int { return strings.Compare(a.ID, b.ID) })
		want := buildBaseOneRowEach(tip, sorted)
		var b baseBuilder
		for _, i := range rng.Perm(len(entries)) {
			b.add(entries[i])
		}
		got := b.finish(tip)
		require.True(t, bytes.Equal(want, got), "%d entries: the files differ", n)
		_, err := openBase(got)
		require.NoError(t, err)

		// Streamed to a file (what a rebuild writes), the same bytes,
		// from rows held in mapped regions from the first chunk.
		regions := rowRegions{heap: rowHeapChunks}
		b.mapRows(&regions)
		for _, i := range rng.Perm(len(entries)) {
			b.add(entries[i])
		}
		tabs := b.sorted()
		f, err := os.CreateTemp(t.TempDir(), "base")
		require.NoError(t, err)
		require.NoError(t, writeBaseFile(f, tip, &tabs))
		require.NoError(t, f.Close())
		if n > 0 && runtime.GOOS == "linux" {
			require.NotEmpty(t, regions.regions, "%d entries: the rows were mapped", n)
		}
		tabs = [tableCount][][]byte{}
		regions.release()
		written, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, written), "%d entries: the written file differs", n)
	}
}

func buildBaseOneRowEach(tip plumbing.Hash, entries []*IndexEntry) []byte {
	var tabs [tableCount][][]byte
	rowPair := func(key, id string) []byte {
		p := binary.AppendUvarint(make([]byte, 0, len(key)+len(id)+2), uint64(len(key)))
		return append(append(p, key...), id...)
	}
	byCreated := make([]int, len(entries))
	for i := range byCreated {
		byCreated[i] = i
	}
	slices.SortFunc(byCreated, func(a, b int) int { return listOrder(entries[a], entries[b]) })
	for i, e := range entries {
		entries[i] = nil
		tabs[tabEntries] = append(tabs[tabEntries], appendEntry(nil, e))
		tabs[tabIDs] = append(tabs[tabIDs], []byte(e.ID))
		for _, a := range e.Aliases {
			tabs[tabAliases] = append(tabs[tabAliases], rowPair(a, e.ID))
		}
		tabs[tabCategory] = append(tabs[tabCategory], rowPair(e.Category, e.ID))
		tabs[tabType] = append(tabs[tabType], rowPair(e.Type, e.ID))
		for _, tag := range e.Tags {
			tabs[tabTag] = append(tabs[tabTag], rowPair(tag, e.ID))
		}
		for i, ed := range e.Edges {
			tabs[tabTargets] = append(tabs[tabTargets], appendEdgeRow(nil, e, i))
			if ed.Source != "" {
				tabs[tabSources] = append(tabs[tabSources], rowPair(ed.Source, e.ID))
			}
			if ed.Kind == kernel.LinkSupersedes {
				tabs[tabSupersedes] = append(tabs[tabSupersedes], rowPair(ed.Target, e.ID))
			}
		}
	}
	for _, i := range byCreated {
		tabs[tabByCreated] = append(tabs[tabByCreated], binary.LittleEndian.AppendUint32(nil, uint32(i)))
	}
	for t := tabAliases; t < pairTablesEnd; t++ {
		slices.SortFunc(tabs[t], compareRows(t))
		tabs[t] = slices.CompactFunc(tabs[t], func(a, b []byte) bool { return bytes.Equal(a, b) })
	}

	size := indexHeaderSize
	for _, rows := range tabs {
		size += 4 + 4*len(rows)
		for _, r := range rows {
			size += binary.PutUvarint(make([]byte, binary.MaxVarintLen64), uint64(len(r))) + len(r) + 4
		}
	}
	buf := make([]byte, indexHeaderSize, size)
	var dir [tableCount][3]uint64
	for t, rows := range tabs {
		start := len(buf)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(rows)))
		offs := len(buf)
		buf = append(buf, make([]byte, 4*len(rows))...)
		for i, r := range rows {
			binary.LittleEndian.PutUint32(buf[offs+4*i:], uint32(len(buf)-start))
			buf = binary.AppendUvarint(buf, uint64(len(r)))
			buf = append(buf, r...)
			buf = binary.LittleEndian.AppendUint32(buf, checksum(r))
		}
		tabs[t] = nil
		dir[t] = [3]uint64{uint64(start), uint64(len(buf) - start), uint64(len(rows))}
	}
	h := buf[:0]
	h = append(h, indexMagic...)
	h = binary.LittleEndian.AppendUint32(h, indexVersion)
	h = append(h, tip[:]...)
	h = binary.LittleEndian.AppendUint32(h, checksum(buf[indexHeaderSize:]))
	h = binary.LittleEndian.AppendUint64(h, uint64(len(buf)))
	for _, d := range dir {
		h = binary.LittleEndian.AppendUint64(h, d[0])
		h = binary.LittleEndian.AppendUint64(h, d[1])
		h = binary.LittleEndian.AppendUint32(h, uint32(d[2]))
	}
	binary.LittleEndian.AppendUint32(h, checksum(h))
	return buf
}

// TestSupersedesTableAnswersAsTheEdgeRows: "is it superseded?" is read
// from the supersedes table, which holds the edges of that kind alone; it
// answers what the edge rows of every kind answer (Reverse), for links
// written by id, alias and prefix, dangling ones, a relation record's
// edge, and holders the delta changes or removes. The base is read from
// a file, as a process reads it: ids from the ids table, entry rows by
// pread.
func TestSupersedesTableAnswersAsTheEdgeRows(t *testing.T) {
	t.Parallel()
	sup := func(target string) Edge { return Edge{Target: target, Kind: kernel.LinkSupersedes} }
	rel := func(target string) Edge { return Edge{Target: target, Kind: kernel.LinkRelated} }
	entries := []*IndexEntry{
		{ID: "aaaa0001xyz", Title: "by alias", Aliases: []string{"old-one"}},
		{ID: "aaaa0002xyz", Title: "by prefix"},
		{ID: "aaaa0003xyz", Title: "by id, from a holder the delta drops"},
		{ID: "aaaa0004xyz", Title: "related only"},
		{ID: "aaaa0005xyz", Title: "by a relation record"},
		{ID: "aaaa0006xyz", Title: "by a holder the delta adds"},
		{ID: "aaaa0007xyz", Title: "by a holder the delta changes"},
		{ID: "bbbb0001xyz", Title: "h1", Edges: []Edge{sup("old-one"), rel("aaaa0004xyz")}},
		{ID: "bbbb0002xyz", Title: "h2", Edges: []Edge{sup("aaaa0002x"), sup("dangling-x")}},
		{ID: "bbbb0003xyz", Title: "h3", Edges: []Edge{sup("aaaa0003xyz")}},
		{ID: "bbbb0004xyz", Title: "h4", Edges: []Edge{sup("aaaa0007xyz")}},
		{ID: "cccc0001xyz", Title: "relation", Edges: []Edge{{Source: "bbbb0001xyz", Target: "aaaa0005xyz", Kind: kernel.LinkSupersedes}}},
	}
	path := t.TempDir() + "/base"
	require.NoError(t, os.WriteFile(path, buildBase(plumbing.ZeroHash, slices.Clone(entries)), 0o644))
	data, file, err := mapIndexFile(path)
	require.NoError(t, err)
	base, err := openBase(data)
	require.NoError(t, err)
	base.file = file
	require.Equal(t, 6, base.tables[tabSupersedes].n, "one row per supersedes edge, no other kind")

	check := func(ix *Index, want map[string]bool) {
		t.Helper()
		for id, superseded := range want {
			require.Equal(t, superseded, ix.HasBacklink(id, kernel.LinkSupersedes), id)
			require.Equal(t, slices.ContainsFunc(ix.Reverse(id), func(e Edge) bool { return e.Kind == kernel.LinkSupersedes }),
				superseded, id)
		}
	}
	ix := newIndex(plumbing.ZeroHash, base, nil)
	check(ix, map[string]bool{"aaaa0001xyz": true, "old-one": false, "aaaa0002xyz": true, "aaaa0003xyz": true,
		"aaaa0004xyz": false, "aaaa0005xyz": true, "aaaa0006xyz": false, "aaaa0007xyz": true, "dangling-x": true,
		"dangling-y": false, "bbbb0001xyz": false})
	require.Equal(t, "by alias", ix.Entry("aaaa0001xyz").Title)
	title, ok := ix.Title("aaaa0002xyz")
	require.True(t, ok)
	require.Equal(t, "by prefix", title)

	ix = ix.withChanges(plumbing.ZeroHash, map[string]*IndexEntry{
		"bbbb0003xyz": nil,
		"bbbb0004xyz": {ID: "bbbb0004xyz", Title: "h4 now related", Edges: []Edge{rel("aaaa0007xyz")}},
		"bbbb0009xyz": {ID: "bbbb0009xyz", Title: "h9", Edges: []Edge{sup("aaaa0006x"), sup("dangling-y")}},
	})
	check(ix, map[string]bool{"aaaa0001xyz": true, "aaaa0002xyz": true, "aaaa0003xyz": false, "aaaa0004xyz": false,
		"aaaa0005xyz": true, "aaaa0006xyz": true, "aaaa0007xyz": false, "dangling-x": true, "dangling-y": true})
}

// TestColdBuildReadsTheWalkAsItComes: a cold build decodes blobs while the
// tree walk still lists them, and hands out every change in the walk's
// order all the same (a file that is no record, a record that does not
// decode, more batches than one), with progress counting each and giving
// the total once the walk is over. A blob that cannot be read fails the
// build, and the walk stops.
func TestColdBuildReadsTheWalkAsItComes(t *testing.T) {
	s := newTestStore(t)
	tip, err := s.Tip()
	require.NoError(t, err)
	files := map[string]string{
		"records/README":                     "not a record's path",
		RecordPath("raw", "broken"):          "---\nid: broken\n",
		RecordPath("concept", "stray") + "x": "a record's directory, not a record's name",
	}
	for i := range 3*decodeBatch + 5 {
		r := &kernel.Record{ID: fmt.Sprintf("r%04d", i), Type: []string{"raw", "concept"}[i%2], Title: "t", Category: "c",
			CreatedAt: ts("2026-01-01"), UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "a human"}}
		data, err := EncodeRecord(r)
		require.NoError(t, err)
		files[RecordPath(r.Type, r.ID)] = string(data)
	}
	// One commit of them all through fast-import: a process per file
	// (handCommit) took seconds.
	var in strings.Builder
	fmt.Fprintf(&in, "commit %s\ncommitter a <a@b> 1700000000 +0000\ndata 7\nby hand\nfrom %s\n", s.Ref(), tip)
	for p, content := range files {
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(content), content)
	}
	_, err = gitInput(gitDir(s), []byte(in.String()), nil, "fast-import", "--quiet")
	require.NoError(t, err)
	tip, err = s.Tip()
	require.NoError(t, err)

	// What changes hands out when it lists the whole walk first.
	var want []ChangedRecord
	require.NoError(t, s.EachChangedRecord(plumbing.ZeroHash, tip, func(c ChangedRecord) error {
		want = append(want, c)
		return nil
	}))
	require.Len(t, want, 3*decodeBatch+5+3)

	s2 := reopen(t, s)
	var got []ChangedRecord
	s2.ObserveIndex(func(_, _ plumbing.Hash, changes []ChangedRecord) { got = changes })
	var dones, totals []int
	res, err := s2.ReindexProgress("", func(done, total int) {
		dones, totals = append(dones, done), append(totals, total)
	})
	require.NoError(t, err)
	require.Equal(t, []string{"records/README", RecordPath("concept", "stray") + "x", RecordPath("raw", "broken")}, res.Broken)
	require.Equal(t, 3*decodeBatch+5, res.Records)
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].Path, got[i].Path, "change %d", i)
		require.Equal(t, want[i].ID, got[i].ID, "change %d", i)
		require.Equal(t, want[i].New, got[i].New, "change %d", i)
		require.Equal(t, want[i].Record, got[i].Record, "change %d", i)
		require.Equal(t, want[i].Err == nil, got[i].Err == nil, "change %d", i)
	}
	require.Len(t, dones, len(want))
	for i, d := range dones {
		require.Equal(t, i+1, d)
		require.Contains(t, []int{0, len(want)}, totals[i], "unknown until the walk is over, then every change")
	}
	require.Equal(t, len(want), totals[len(totals)-1])

	// A record's blob gone: the build fails, and returns.
	r := &kernel.Record{ID: "lost", Type: "raw", Title: "t", Category: "c",
		CreatedAt: ts("2026-01-01"), UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "a human"}}
	data, err := EncodeRecord(r)
	require.NoError(t, err)
	tip = handCommit(t, s, tip, map[string]string{RecordPath(r.Type, r.ID): string(data)}, "by hand") // a loose blob
	blob := git(t, gitDir(s), "rev-parse", tip.String()+":"+RecordPath(r.Type, r.ID))
	require.NoError(t, os.Remove(filepath.Join(s.repo.GitDir, "objects", blob[:2], blob[2:])))
	_, err = reopen(t, s).Reindex("")
	require.Error(t, err)
}

// TestCompareEdgeRowsInPlaceAgreesWithTheReader: the in-place comparison
// of short fields orders edge rows as reading every field does, long
// targets, holders (128 bytes and more) and indexes included.
func TestCompareEdgeRowsInPlaceAgreesWithTheReader(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func() string {
		return []string{"", "a", "ab", "b", strings.Repeat("a", 127), strings.Repeat("a", 128), strings.Repeat("a", 200) + "b"}[rng.IntN(7)]
	}
	var rows [][]byte
	for range 300 {
		e := &IndexEntry{ID: pick(), Title: pick()}
		n := []int{1, 2, 127, 128, 300}[rng.IntN(5)]
		for range n {
			e.Edges = append(e.Edges, Edge{Target: pick(), Kind: "related"})
		}
		i := rng.IntN(n)
		rows = append(rows, appendEdgeRow(nil, e, i))
	}
	for _, a := range rows {
		for _, b := range rows {
			require.Equal(t, compareEdgeRowsRead(a, b), compareEdgeRows(a, b), "%q / %q", a, b)
		}
	}
}
