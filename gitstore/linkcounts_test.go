package gitstore

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestLinkCountsAreForwardsCounted: LinkCounts, one walk of the entries,
// counts what asking Forward of every record finds (links to records
// other than the holder, both ends counted), whatever the links name a
// record by (id, alias, prefix, or nothing), through relation records,
// duplicates and the delta.
func TestLinkCountsAreForwardsCounted(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 16))
	for range 30 {
		n := 2 + rng.IntN(60)
		id := func(i int) string { return fmt.Sprintf("rec%03dxyzw", i) }
		end := func() string {
			i := rng.IntN(n + 3) // some name no record
			switch rng.IntN(4) {
			case 0:
				return "al-" + id(i)
			case 1:
				return id(i)[:8] // a prefix: several records share it
			}
			return id(i)
		}
		var base []*IndexEntry
		for i := range n {
			e := &IndexEntry{ID: id(i), Type: "concept", Title: "t", Status: kernel.StatusActive, Aliases: []string{"al-" + id(i)},
				Blob: plumbing.NewHash(fmt.Sprintf("%040x", rng.Uint64()))}
			for range rng.IntN(5) {
				ed := Edge{Target: end(), Kind: []string{"related", "cites"}[rng.IntN(2)]}
				if rng.IntN(5) == 0 {
					ed.Source = end()
				}
				e.Edges = append(e.Edges, ed)
			}
			base = append(base, e)
		}
		b, err := openBase(buildBase(plumbing.ZeroHash, base))
		require.NoError(t, err)
		delta := map[string]*IndexEntry{}
		if n > 3 {
			delta[id(0)] = nil
			delta[id(1)] = &IndexEntry{ID: id(1), Type: "concept", Edges: []Edge{{Target: id(2), Kind: "related"}, {Target: "al-" + id(2), Kind: "related"}, {Target: id(1), Kind: "related"}}}
		}
		ix := newIndex(plumbing.ZeroHash, b, delta)

		want := map[string]int{}
		for _, from := range ix.IDs() {
			for _, e := range ix.Forward(from) {
				if ix.HasID(e.Target) && e.Target != from {
					want[from]++
					want[e.Target]++
				}
			}
		}
		assert.Equal(t, want, ix.LinkCounts())
	}
}

// BenchmarkLinkCounts: the graph page's opening at 100,000 records with
// three links each, against asking Forward of every record (what drawing
// the whole graph does first).
func BenchmarkLinkCounts(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 8))
	const n = 100_000
	id := func(i int) string { return fmt.Sprintf("%08x%018d", rng.Uint32(), i) }
	ids := make([]string, n)
	for i := range ids {
		ids[i] = id(i)
	}
	var base []*IndexEntry
	for i := range n {
		e := &IndexEntry{ID: ids[i], Type: "concept", Title: "t", Status: kernel.StatusActive, Aliases: []string{fmt.Sprintf("note-%d", i)}}
		for range 3 {
			j := rng.IntN(n)
			target := ids[j]
			if rng.IntN(2) == 0 {
				target = fmt.Sprintf("note-%d", j)
			}
			e.Edges = append(e.Edges, Edge{Target: target, Kind: "related"})
		}
		base = append(base, e)
	}
	bf, err := openBase(buildBase(plumbing.ZeroHash, base))
	require.NoError(b, err)
	ix := newIndex(plumbing.ZeroHash, bf, nil)
	b.Run("link-counts", func(b *testing.B) {
		for b.Loop() {
			ix.LinkCounts()
		}
	})
	b.Run("forward-each", func(b *testing.B) {
		for b.Loop() {
			for _, id := range ix.IDs() {
				ix.Forward(id)
			}
		}
	})
}
