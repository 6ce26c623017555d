package gitstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// pagedIndex is an index of n random entries in its base and a delta that
// changes, adds and removes some, with many ties in every sort field.
func pagedIndex(t testing.TB, rng *rand.Rand, n int) *Index {
	t.Helper()
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	entry := func(id string) *IndexEntry {
		return &IndexEntry{ID: id, Type: pick("concept", "raw"), Category: pick("", "eng", "eng.api", "ops"),
			Title:  pick("apple", "Apple", "banana", "Zebra", "éclair", "Éclair", "", "b"),
			Status: kernel.Status(pick("active", "active", "retired")), CreatedAt: int64(rng.IntN(5)), UpdatedAt: int64(rng.IntN(5)),
			Blob: plumbing.NewHash(fmt.Sprintf("%040x", rng.Uint64()))}
	}
	var base []*IndexEntry
	for i := range n {
		base = append(base, entry(fmt.Sprintf("r%04d", i)))
	}
	b, err := openBase(buildBase(plumbing.ZeroHash, base))
	require.NoError(t, err)
	delta := map[string]*IndexEntry{}
	for range n / 5 {
		id := fmt.Sprintf("r%04d", rng.IntN(n+n/4)) // changed, or new
		delta[id] = entry(id)
	}
	for range n / 10 {
		delta[fmt.Sprintf("r%04d", rng.IntN(n))] = nil
	}
	return newIndex(plumbing.ZeroHash, b, delta)
}

// TestListPageIsTheSortedListSliced: every page of every order is the
// slice of the whole sorted listing at its offset (filters, the delta's
// changes and removals, ties in every field, the last partial page and
// pages past the end included), and the total is the listing's length.
func TestListPageIsTheSortedListSliced(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 6))
	for round := range 40 {
		ix := pagedIndex(t, rng, 1+rng.IntN(120))
		filters := []Filter{{}, {IncludeRetired: true}, {Category: "eng", CategoryPrefix: true}, {Type: "raw"}}
		f := filters[round%len(filters)]
		all := []*IndexEntry{}
		ix.guard(func() { all = all[:0]; ix.listEntries(f, f.now(), func(e *IndexEntry) { all = append(all, e) }) })
		for _, by := range SortFields {
			for _, desc := range []bool{false, true} {
				s := ListSort{By: by, Desc: desc}
				want := slices.Clone(all)
				slices.SortStableFunc(want, s.Compare)
				for i := 1; i < len(want); i++ {
					require.Negative(t, s.Compare(want[i-1], want[i]), "%v: a total order (id breaks ties)", s)
				}
				limit := 1 + rng.IntN(20)
				for offset := 0; offset <= len(want)+limit; offset += limit {
					page, total, err := ix.ListPage(f, s, offset, limit)
					require.NoError(t, err)
					require.Equal(t, len(want), total, "%v", s)
					end := min(offset+limit, len(want))
					if offset >= len(want) {
						assert.Empty(t, page, "%v: past the end", s)
						continue
					}
					require.Equal(t, ids(want[offset:end]), ids(page), "%v: page at %d of %d", s, offset, limit)
				}
			}
		}
	}
}

func ids(es []*IndexEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// TestListSortOrders: titles case aside, then byte order; category then
// title; times; descending reverses the whole order; a field that is not
// one is a usage error naming the sort, as is a page before the start.
func TestListSortOrders(t *testing.T) {
	t.Parallel()
	es := []*IndexEntry{
		{ID: "d", Title: "banana", Category: "b", UpdatedAt: 5, CreatedAt: 1},
		{ID: "a", Title: "Apple", Category: "b", UpdatedAt: 9, CreatedAt: 2},
		{ID: "c", Title: "apple", Category: "a", UpdatedAt: 1, CreatedAt: 2},
		{ID: "b", Title: "Cherry", Category: "a", UpdatedAt: 5, CreatedAt: 0},
		{ID: "e", Title: "apple", Category: "a", UpdatedAt: 7, CreatedAt: 3},
	}
	order := func(s ListSort) []string {
		sorted := slices.Clone(es)
		slices.SortFunc(sorted, s.Compare)
		return ids(sorted)
	}
	assert.Equal(t, []string{"a", "c", "e", "d", "b"}, order(ListSort{By: "title"}), "Apple before apple, then by id")
	assert.Equal(t, []string{"b", "d", "e", "c", "a"}, order(ListSort{By: "title", Desc: true}))
	assert.Equal(t, []string{"c", "e", "b", "a", "d"}, order(ListSort{By: "category"}))
	assert.Equal(t, []string{"c", "b", "d", "e", "a"}, order(ListSort{By: "updated"}))
	assert.Equal(t, []string{"a", "e", "d", "b", "c"}, order(ListSort{By: "updated", Desc: true}))
	assert.Equal(t, []string{"b", "d", "a", "c", "e"}, order(ListSort{}))

	ix := newIndex(plumbing.ZeroHash, nil, nil)
	_, _, err := ix.ListPage(Filter{}, ListSort{By: "size"}, 0, 10)
	require.Error(t, err)
	assert.Equal(t, kernel.CodeUsage, kernel.CodeOf(err))
	assert.Contains(t, err.Error(), "created, updated, title, category")
	for _, bad := range [][2]int{{-1, 10}, {0, 0}, {0, -5}} {
		_, _, err = ix.ListPage(Filter{}, ListSort{}, bad[0], bad[1])
		assert.Equal(t, kernel.CodeUsage, kernel.CodeOf(err), "offset %d limit %d", bad[0], bad[1])
	}
	page, total, err := ix.ListPage(Filter{}, ListSort{}, 1<<62, 1<<62)
	require.NoError(t, err, "an offset past any store is an empty page")
	assert.Empty(t, page)
	assert.Zero(t, total)
}

// BenchmarkListPage: the first page of 50 by title of 100,000 entries
// against the whole listing sorted (what a page would cost without the
// bounded heap).
func BenchmarkListPage(b *testing.B) {
	ix := pagedIndex(b, rand.New(rand.NewPCG(1, 2)), 100_000)
	s := ListSort{By: "title"}
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := ix.ListPage(Filter{}, s, 0, 50); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sort-all", func(b *testing.B) {
		for b.Loop() {
			var all []*IndexEntry
			ix.guard(func() { all = all[:0]; ix.listEntries(Filter{}, 0, func(e *IndexEntry) { all = append(all, e) }) })
			slices.SortFunc(all, s.Compare)
		}
	})
}
