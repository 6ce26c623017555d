package gitstore

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// backlinkFixture is a base with a hub linked from 300 holders (titles
// long enough that its rows span many of eachRow's reads, a holder's
// edges split across them; repeated edges and kinds, labels), a record
// linked by its id and its alias, one a relation links to, and a
// dangling target.
func backlinkFixture() []*IndexEntry {
	rel := func(target, label string) Edge { return Edge{Target: target, Kind: kernel.LinkRelated, Label: label} }
	entries := []*IndexEntry{
		{ID: "hub0000000000000000000000a", Title: "Hub"},
		{ID: "ali0000000000000000000000a", Title: "Aliased", Aliases: []string{"the-alias"}},
		{ID: "rel0000000000000000000000a", Title: "Related by a relation"},
		{ID: "zzz0000000000000000000000a", Title: "relation", Edges: []Edge{{Source: "h0001", Target: "rel0000000000000000000000a", Kind: kernel.LinkSupersedes}}},
	}
	for i := range 300 {
		e := &IndexEntry{ID: fmt.Sprintf("h%04d", i), Title: fmt.Sprintf("Holder %d %s", i, strings.Repeat("t", i%7*40))}
		e.Edges = append(e.Edges, rel("hub0000000000000000000000a", ""))
		switch i % 5 {
		case 1: // the same kind again (a [[wikilink]] besides the field): one edge
			e.Edges = append(e.Edges, rel("hub0000000000000000000000a", "again"))
		case 2: // another kind: two edges, one line
			e.Edges = append(e.Edges, Edge{Target: "hub0000000000000000000000a", Kind: kernel.LinkSource, Label: "see"})
		case 3:
			e.Edges = append(e.Edges, rel("nowhere-at-all", "void"))
		}
		if i%50 == 0 {
			e.Edges = append(e.Edges, rel("the-alias", ""), rel("ali0000000000000000000000a", ""))
		}
		if i == 7 {
			e.Edges = append(e.Edges, rel("rel0000000000000000000000a", ""))
		}
		entries = append(entries, e)
	}
	return entries
}

// TestEachBacklinkGivesWhatReverseTitledGives: from a base read by pread
// (a file) and from one in memory, before and after a delta, EachBacklink
// gives exactly ReverseTitled's edges and titles when it streams, the
// delta's holders merged in; it declines (and calls fn never) for a
// record linked by two handles or by a relation, in the base or the
// delta, which ReverseTitled answers.
func TestEachBacklinkGivesWhatReverseTitledGives(t *testing.T) {
	path := t.TempDir() + "/base"
	require.NoError(t, os.WriteFile(path, buildBase(plumbing.ZeroHash, backlinkFixture()), 0o644))
	data, file, err := mapIndexFile(path)
	require.NoError(t, err)
	fromFile, err := openBase(data)
	require.NoError(t, err)
	fromFile.file = file
	inMemory, err := openBase(buildBase(plumbing.ZeroHash, backlinkFixture()))
	require.NoError(t, err)

	check := func(ix *Index, want map[string]bool) {
		t.Helper()
		for id, streams := range want {
			var edges []Edge
			var titles []EndTitle
			streamed, err := ix.EachBacklink(id, func(e Edge, tt EndTitle) {
				// The strings are views of a buffer read again: kept, copied.
				edges = append(edges, Edge{Source: strings.Clone(e.Source), Kind: e.Kind, Label: strings.Clone(e.Label)})
				titles = append(titles, EndTitle{Text: strings.Clone(tt.Text), OK: tt.OK})
			})
			require.NoError(t, err)
			require.Equal(t, streams, streamed, id)
			wantEdges, wantTitles := ix.ReverseTitled(id)
			if !streams {
				require.Empty(t, edges, "%s: declined, yet fn was called", id)
				require.NotEmpty(t, wantEdges, id)
				continue
			}
			require.Equal(t, len(wantEdges), len(edges), id)
			if len(wantEdges) > 0 {
				require.Equal(t, wantEdges, edges, id)
				require.Equal(t, wantTitles, titles, id)
			}
		}
	}
	for _, base := range []*baseFile{fromFile, inMemory} {
		ix := newIndex(plumbing.ZeroHash, base, nil)
		edges, _ := ix.ReverseTitled("hub0000000000000000000000a")
		require.Len(t, edges, 360, "300 holders, 60 of them by two kinds")
		check(ix, map[string]bool{"hub0000000000000000000000a": true, "nowhere-at-all": true, "h0001": true,
			"ali0000000000000000000000a": false, "rel0000000000000000000000a": false})

		// Holders the delta changes or drops are left out of the base's
		// rows; the delta's holders of edges to the hub (new ones first,
		// among and after the base's, a changed one, one by two edges of
		// a kind) are merged in by id.
		hub := "hub0000000000000000000000a"
		ix = ix.withChanges(plumbing.ZeroHash, map[string]*IndexEntry{
			"h0004":   nil,
			"h0005":   {ID: "h0005", Title: "no link now"},
			"h0299":   {ID: "h0299", Title: "to nowhere", Edges: []Edge{{Target: "nowhere-at-all", Kind: kernel.LinkRelated}}},
			"a-first": {ID: "a-first", Title: "New, first", Edges: []Edge{{Target: hub, Kind: kernel.LinkRelated}, {Target: hub, Kind: kernel.LinkRelated, Label: "twice"}}},
			"h0150x":  {ID: "h0150x", Title: "New, among", Edges: []Edge{{Target: hub, Kind: kernel.LinkSource, Label: "l"}, {Target: hub, Kind: kernel.LinkRelated}}},
			"h0151":   {ID: "h0151", Title: "Changed", Edges: []Edge{{Target: hub, Kind: kernel.LinkSource}}},
			"zz-last": {ID: "zz-last", Title: "New, last", Edges: []Edge{{Target: hub, Kind: kernel.LinkRelated}}},
		})
		check(ix, map[string]bool{hub: true, "nowhere-at-all": true})
		edges, _ = ix.ReverseTitled(hub)
		require.Len(t, edges, 357+4, "three holders fewer, four new holders by five edges, one changed")
		require.Equal(t, "a-first", edges[0].Source)
		require.Equal(t, "zz-last", edges[len(edges)-1].Source)

		// A relation in the delta that links the hub: its end is its
		// from, out of the holders' order.
		rx := ix.withChanges(plumbing.ZeroHash, map[string]*IndexEntry{
			"rel-new": {ID: "rel-new", Title: "relation", Edges: []Edge{{Source: "h0010", Target: hub, Kind: kernel.LinkSupersedes}}},
		})
		check(rx, map[string]bool{hub: false})
	}
}

// TestEachBacklinkChecksEveryRowBeforeTheFirst: a damaged row among the
// hub's (its last) is found before fn is first called, so the rebuilt
// index gives every backlink once, not the first ones twice.
func TestEachBacklinkChecksEveryRowBeforeTheFirst(t *testing.T) {
	path := t.TempDir() + "/base"
	good := buildBase(plumbing.ZeroHash, backlinkFixture())
	require.NoError(t, os.WriteFile(path, good, 0o644))
	data, file, err := mapIndexFile(path)
	require.NoError(t, err)
	base, err := openBase(data)
	require.NoError(t, err)
	base.file = file
	ix := newIndex(plumbing.ZeroHash, base, nil)
	want, _ := ix.ReverseTitled("hub0000000000000000000000a")

	// Flip a byte of the title in the hub's last row.
	tab := base.tables[tabTargets]
	last := -1
	for i := range tab.n {
		if string(parseEdgeRow(tab.row(i)).target) == "hub0000000000000000000000a" {
			last = i
		}
	}
	require.Positive(t, last)
	p := tab.row(last)
	at := tab.off + int64(cap(tab.data)-cap(p)) + int64(len(p)) - 2
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte{good[at] ^ 0x20}, at)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	rebuilt := 0
	ix.rebuild = func(plumbing.Hash) (*Index, error) {
		rebuilt++
		b, err := openBase(buildBase(plumbing.ZeroHash, backlinkFixture()))
		return newIndex(plumbing.ZeroHash, b, nil), err
	}
	var got []Edge
	streamed, err := ix.EachBacklink("hub0000000000000000000000a", func(e Edge, _ EndTitle) {
		got = append(got, Edge{Source: strings.Clone(e.Source), Kind: e.Kind, Label: strings.Clone(e.Label)})
	})
	require.NoError(t, err)
	require.True(t, streamed)
	require.Equal(t, 1, rebuilt, "the damage was found")
	require.Equal(t, want, got)
	require.True(t, slices.IsSortedFunc(got, func(a, b Edge) int { return strings.Compare(a.Source, b.Source) }))
}
