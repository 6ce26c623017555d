package gitstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// coldIndex builds the index of the current tip from every record, ignoring
// every cache.
func coldIndex(t testing.TB, s *Store) *Index {
	t.Helper()
	tip, err := s.Tip()
	require.NoError(t, err)
	ix, _, err := s.buildIndex(tip, newTreeReader(s.objects))
	require.NoError(t, err)
	return ix
}

// requireSameIndex: same tip, same entries, same alias owners, same graph,
// same answers to every lookup of every record.
// reverseByDefinition is what Reverse means, read the long way: every
// record's edges resolved (edgesOf), those that end at id, holders in id
// order.
func reverseByDefinition(ix *Index, id string) []Edge {
	var out []Edge
	ix.guard(func() {
		out = nil
		ix.eachEntry(func(e *IndexEntry) bool {
			for _, ed := range ix.edgesOf(e) {
				if ed.Target == id {
					out = append(out, Edge{Source: ed.Source, Kind: ed.Kind, Label: ed.Label})
				}
			}
			return true
		})
	})
	return out
}

func requireSameIndex(t testing.TB, want, got *Index, msgAndArgs ...any) {
	t.Helper()
	require.Equal(t, want.Tip, got.Tip, msgAndArgs...)
	entries := entriesOf(want)
	require.Equal(t, entries, entriesOf(got), msgAndArgs...)
	require.Equal(t, want.Len(), got.Len(), msgAndArgs...)
	require.Equal(t, want.IDs(), got.IDs(), msgAndArgs...)
	require.Equal(t, want.Graph(), got.Graph(), msgAndArgs...)
	for id, e := range entries {
		require.Equal(t, want.Reverse(id), got.Reverse(id), msgAndArgs...)
		require.Equal(t, reverseByDefinition(got, id), got.Reverse(id), msgAndArgs...)
		requireBacklinksByDefinition(t, got, id, msgAndArgs...)
		title, ok := got.Title(id)
		require.True(t, ok, msgAndArgs...)
		require.Equal(t, e.Title, title, msgAndArgs...)
		require.Equal(t, want.Forward(id), got.Forward(id), msgAndArgs...)
		require.Equal(t, e, got.Entry(id), msgAndArgs...)
		for _, a := range e.Aliases {
			wa, _ := want.AliasTarget(a)
			ga, _ := got.AliasTarget(a)
			require.Equal(t, wa, ga, msgAndArgs...)
		}
		for _, ed := range e.Edges {
			// Backlinks of dangling targets too.
			require.Equal(t, want.Reverse(ed.Target), got.Reverse(ed.Target), msgAndArgs...)
			require.Equal(t, reverseByDefinition(got, ed.Target), got.Reverse(ed.Target), msgAndArgs...)
		}
		prefix := id[:min(len(id), kernel.MinIDPrefix)]
		require.Equal(t, want.IDsWithPrefix(prefix, 10), got.IDsWithPrefix(prefix, 10), msgAndArgs...)
	}
	for _, f := range []Filter{{}, {IncludeRetired: true}, {Category: "eng", CategoryPrefix: true}, {Category: "eng"}, {Type: "concept"}, {Tag: "t1"}} {
		var w, g []*IndexEntry
		want.guard(func() { w = nil; want.listEntries(f, 0, func(e *IndexEntry) { w = append(w, e) }) })
		got.guard(func() { g = nil; got.listEntries(f, 0, func(e *IndexEntry) { g = append(g, e) }) })
		require.Equal(t, w, g, msgAndArgs...)
	}
}

// requireBacklinksByDefinition: Backlinks are Reverse with each source's
// title as its entry has it (read from the edge rows, or from the delta,
// never stale), and HasBacklink answers for a kind what Reverse lists.
func requireBacklinksByDefinition(t testing.TB, ix *Index, id string, msgAndArgs ...any) {
	t.Helper()
	reverse := ix.Reverse(id)
	var edges []Edge
	for _, b := range ix.Backlinks(id) {
		edges = append(edges, b.Edge)
		e := ix.Entry(b.Source)
		require.Equal(t, e != nil, b.Titled, msgAndArgs...)
		if e != nil {
			require.Equal(t, e.Title, b.Title, msgAndArgs...)
		}
	}
	require.Equal(t, reverse, edges, msgAndArgs...)
	for _, kind := range []string{kernel.LinkSupersedes, kernel.LinkRelated, kernel.LinkSource, "depends_on", "refines", "no-such-kind"} {
		require.Equal(t, slices.ContainsFunc(reverse, func(e Edge) bool { return e.Kind == kind }), ix.HasBacklink(id, kind), msgAndArgs...)
	}
}

// entriesOf lists every entry of an index by id.
func entriesOf(ix *Index) map[string]*IndexEntry {
	m := map[string]*IndexEntry{}
	ix.Each(func(e *IndexEntry) bool { m[e.ID] = e; return true })
	return m
}

// plantEntry makes the index on disk hold e in place of what the branch
// says, as a cache that got it wrong would: in the delta, or (inBase) in a
// base written anew.
func plantEntry(t testing.TB, s *Store, e *IndexEntry, inBase bool) {
	t.Helper()
	ix, err := s.loadIndex()
	require.NoError(t, err)
	ix = ix.withChanges(ix.Tip, map[string]*IndexEntry{e.ID: e})
	if inBase {
		ix = ix.merged()
	}
	_, err = s.saveIndex(ix)
	require.NoError(t, err)
}

// cachedEntry is the entry of id in the index on disk.
func cachedEntry(t testing.TB, s *Store, id string) IndexEntry {
	t.Helper()
	ix, err := s.loadIndex()
	require.NoError(t, err)
	e := ix.Entry(id)
	require.NotNil(t, e, id)
	return *e
}

// indexOf returns the index a fresh view of s reads.
func indexOf(t testing.TB, s *Store) *Index {
	t.Helper()
	v, err := s.View()
	require.NoError(t, err)
	ix, err := v.Index()
	require.NoError(t, err)
	return ix
}

// randomOps drives a store with random, mostly valid ops: records of
// several types (including sibling type directories such as concept and
// concept.note), wikilinks to ids, aliases, prefixes and nothing, links,
// relation records, proposals, supersedes and retirements.
type randomOps struct {
	rng      *rand.Rand
	ids      []string
	concepts []string
	aliases  map[string]string // alias -> id
	n        int
}

func (g *randomOps) pick() string { return g.ids[g.rng.IntN(len(g.ids))] }

// handle names id the way a user might: by id, alias or 8-char prefix.
// Aliases and prefixes make the op load the index.
func (g *randomOps) handle(id string) string {
	switch g.rng.IntN(3) {
	case 0:
		for a, owner := range g.aliases {
			if owner == id {
				return a
			}
		}
	case 1:
		return id[:kernel.MinIDPrefix]
	}
	return id
}

func (g *randomOps) body() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Body %d.\n", g.n)
	for range g.rng.IntN(3) {
		if len(g.ids) == 0 || g.rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "See [[dangling-%d]].\n", g.rng.IntN(5))
			continue
		}
		fmt.Fprintf(&b, "See [[%s|label %d]].\n", g.handle(g.pick()), g.n)
	}
	return b.String()
}

func (g *randomOps) next() (string, Decision) {
	g.n++
	n := g.n
	op := g.rng.IntN(10)
	if len(g.ids) < 3 {
		op = 0
	}
	switch op {
	case 0, 1: // create
		types := []string{"concept", "concept", "raw", "concept.note", "review.finding", "relation"}
		in := kernel.CreateInput{Type: types[g.rng.IntN(len(types))], Title: fmt.Sprintf("record %d", n), Body: g.body(),
			Category: []string{"eng", "eng.api", "ops"}[g.rng.IntN(3)], Tags: []string{fmt.Sprintf("t%d", g.rng.IntN(3))}}
		if g.rng.IntN(2) == 0 {
			in.Aliases = []string{fmt.Sprintf("slug-%d", n)}
		}
		if g.rng.IntN(4) == 0 {
			in.TTLSeconds = kernel.TTL(86400)
		}
		if in.Type == "relation" {
			if len(g.ids) == 0 {
				in.Type = "raw"
			} else {
				in.From, in.To, in.Relation = g.handle(g.pick()), g.handle(g.pick()), "depends_on"
			}
		}
		if len(g.ids) > 0 && g.rng.IntN(3) == 0 {
			in.Links = []kernel.Link{{TargetID: g.handle(g.pick()), Kind: kernel.LinkSource}}
		}
		return "create " + in.Type, createOp(in)
	case 2, 3: // update
		id := g.pick()
		f := kernel.UpdateFields{Body: ptr(g.body())}
		if g.rng.IntN(2) == 0 {
			f.Title, f.Category, f.Tags = ptr(fmt.Sprintf("renamed %d", n)), ptr("eng.api"), &[]string{"t9"}
		}
		if g.rng.IntN(3) == 0 {
			f.Aliases = []string{fmt.Sprintf("later-%d", n)}
		}
		h := g.handle(id)
		return "update", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, h, f, ev(), env)
		}
	case 4: // link
		src, dst := g.handle(g.pick()), g.handle(g.pick())
		kind := []string{"related", "refines", "source"}[g.rng.IntN(3)]
		return "link", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.LinkRecords(v, src, []kernel.Link{{TargetID: dst, Kind: kind}}, ev(), env)
		}
	case 5, 6: // propose, then apply or reject
		if len(g.concepts) == 0 {
			return g.next()
		}
		c, p := g.concepts[g.rng.IntN(len(g.concepts))], g.pick()
		switch g.rng.IntN(3) {
		case 0:
			return "apply", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Apply(v, c, p, kernel.Evidence{Agent: testAgent, NewBody: fmt.Sprintf("Applied [[%s]] %d.\n", p, n), Rationale: "ok"}, env)
			}
		case 1:
			return "reject", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Reject(v, c, p, kernel.Evidence{Agent: testAgent, Reason: "no"}, env)
			}
		}
		return "propose", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Propose(v, c, p, kernel.Evidence{Agent: testAgent, Proposal: "change it"}, env)
		}
	case 7, 8: // supersede
		a, b := g.pick(), g.pick()
		return "supersede", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Supersede(v, a, []string{b}, kernel.Evidence{Agent: testAgent, Rationale: "newer"}, env)
		}
	default: // retire
		id := g.handle(g.pick())
		return "retire", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Retire(v, id, kernel.StatusRetired, kernel.Evidence{Agent: testAgent, Rationale: "old"}, env)
		}
	}
}

// record notes what a successful op created, for later ops to name.
func (g *randomOps) record(w *Written) {
	if w.Mutation == nil || w.Mutation.Op != kernel.OpCreate {
		return
	}
	r := w.Mutation.Writes[0]
	g.ids = append(g.ids, r.ID)
	if r.Type == "concept" {
		g.concepts = append(g.concepts, r.ID)
	}
	for _, a := range r.Aliases {
		g.aliases[a] = r.ID
	}
}

// TestIncrementalIndexEqualsColdBuild runs random ops, each in a freshly
// opened store (a new process: only the on-disk cache carries over), and
// checks at random moments — so the cache is sometimes one commit behind,
// sometimes several — that the index caught up by tree diff equals one
// built from scratch at the same tip. Half the runs keep one store open, so
// the in-process index moved by each write is checked too; with a small
// delta limit, the delta is merged into a new base every few ops.
func TestIncrementalIndexEqualsColdBuild(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		reopenEachOp bool
		deltaLimit   int
	}{{true, 0}, {false, 0}, {true, 3}, {false, 5}} {
		reopenEachOp := tt.reopenEachOp
		t.Run(fmt.Sprintf("reopen each op=%v, delta limit %d", reopenEachOp, tt.deltaLimit), func(t *testing.T) {
			t.Parallel()
			s := newTestStore(t, Options{NewID: kernel.NewID, deltaLimit: tt.deltaLimit})
			g := &randomOps{rng: rand.New(rand.NewPCG(7, 11)), aliases: map[string]string{}}
			committed, rejected, checks := 0, 0, 0
			for i := range 70 {
				if reopenEachOp {
					s = reopen(t, s)
				}
				name, decide := g.next()
				w, err := s.Mutate(decide)
				if err != nil {
					require.NotEqual(t, kernel.CodeInternal, kernel.CodeOf(err), "op %d %s: %v", i, name, err)
					rejected++
					continue
				}
				g.record(w)
				if !w.Commit.IsZero() {
					committed++
				}
				if g.rng.IntN(3) == 0 {
					checks++
					check := s
					if reopenEachOp {
						check = reopen(t, s)
					}
					requireSameIndex(t, coldIndex(t, s), indexOf(t, check), "after op %d (%s)", i, name)
				}
			}
			requireSameIndex(t, coldIndex(t, s), indexOf(t, reopen(t, s)), "at the end")
			require.Greater(t, committed, 40, "most ops commit")
			require.Greater(t, checks, 10)
			t.Logf("%d commits, %d ops refused by the kernel, %d checks", committed, rejected, checks)

			res, err := reopen(t, s).Reindex("")
			require.NoError(t, err)
			require.False(t, res.Changed, "the maintained cache equals a rebuild")
			require.Empty(t, res.Broken)
			requireGraphCounts(t, coldIndex(t, s))
		})
	}
}

// requireGraphCounts: what reindex counts from a base alone (baseGraphCounts)
// is what Graph holds, and what the general path counts of the same entries
// held as a delta over an empty base.
func requireGraphCounts(t *testing.T, ix *Index) {
	t.Helper()
	require.Empty(t, ix.delta)
	links, sources, targets := ix.graphCounts()
	g := ix.Graph()
	n := 0
	for _, es := range g.Forward {
		n += len(es)
	}
	require.Equal(t, [3]int{n, len(g.Forward), len(g.Reverse)}, [3]int{links, sources, targets}, "counts against Graph")
	require.NotZero(t, links)
	all := map[string]*IndexEntry{}
	ix.Each(func(e *IndexEntry) bool { all[e.ID] = e; return true })
	asDelta := newIndex(ix.Tip, nil, all)
	require.NotEmpty(t, asDelta.delta)
	l2, s2, t2 := asDelta.graphCounts()
	require.Equal(t, [3]int{links, sources, targets}, [3]int{l2, s2, t2}, "counts against the general path")
}

func TestIndexCacheIsRebuiltWhenUnusable(t *testing.T) {
	t.Parallel()
	flip := func(t *testing.T, path string, at func(size int) int) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		data[at(len(data))] ^= 0x40
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
	tamper := map[string]func(t *testing.T, s *Store){
		"deleted": func(t *testing.T, s *Store) { require.NoError(t, os.Remove(s.indexPath())) },
		"empty":   func(t *testing.T, s *Store) { require.NoError(t, os.WriteFile(s.indexPath(), nil, 0o644)) },
		"garbage": func(t *testing.T, s *Store) {
			require.NoError(t, os.WriteFile(s.indexPath(), []byte("not an index\x00\xff"), 0o644))
		},
		"truncated":      func(t *testing.T, s *Store) { truncateFile(t, s.indexPath()) },
		"trailing bytes": func(t *testing.T, s *Store) { appendFile(t, s.indexPath(), []byte{0}) },
		"another version": func(t *testing.T, s *Store) {
			data, err := os.ReadFile(s.indexPath())
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(string(data), indexMagic))
			data[len(indexMagic)]++ // the version follows the magic
			require.NoError(t, os.WriteFile(s.indexPath(), data, 0o644))
		},
		"a flipped byte in a row": func(t *testing.T, s *Store) {
			flip(t, s.indexPath(), func(size int) int { return indexHeaderSize + (size-indexHeaderSize)/2 })
		},
		"a flipped byte in the header": func(t *testing.T, s *Store) {
			flip(t, s.indexPath(), func(int) int { return len(indexMagic) + 10 })
		},
		"a flipped byte at the end": func(t *testing.T, s *Store) {
			flip(t, s.indexPath(), func(size int) int { return size - 1 })
		},
		"a tip that is not a commit": func(t *testing.T, s *Store) {
			require.NoError(t, os.WriteFile(s.indexPath(), buildBase(plumbing.NewHash(strings.Repeat("ab", 20)), nil), 0o644))
		},
		"delta garbage": func(t *testing.T, s *Store) {
			require.NoError(t, os.WriteFile(s.deltaPath(), []byte("git-records index delta\x00garbage"), 0o644))
		},
		"delta truncated": func(t *testing.T, s *Store) { truncateFile(t, s.deltaPath()) },
		"delta flipped": func(t *testing.T, s *Store) {
			flip(t, s.deltaPath(), func(size int) int { return size / 2 })
		},
		"delta of another base": func(t *testing.T, s *Store) {
			// A delta naming a base that another process replaced: it
			// says nothing about the base now on disk.
			d, err := readDelta(s.deltaPath())
			require.NoError(t, err)
			d.baseCRC++
			d.changes["planted"] = &IndexEntry{ID: "planted", Title: "from another base"}
			require.NoError(t, os.WriteFile(s.deltaPath(), d.encode(), 0o644))
		},
	}
	for name, spoil := range tamper {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newTestStore(t)
			a := create(t, s, kernel.CreateInput{Title: "a", Aliases: []string{"alpha"}})
			create(t, s, kernel.CreateInput{Title: "b", Body: "see [[alpha]]\n"})
			warm := indexOf(t, s)
			require.Equal(t, 2, warm.Len())
			create(t, s, kernel.CreateInput{Title: "c", Body: "see [[alpha]] too\n"}) // in the delta
			require.FileExists(t, s.indexPath())
			require.FileExists(t, s.deltaPath())

			spoil(t, s)
			fresh := reopen(t, s)
			requireSameIndex(t, coldIndex(t, s), indexOf(t, fresh))
			require.Equal(t, a.ID, get(t, fresh, "alpha").ID)
			require.Len(t, reopenedLinks(t, s, a.ID).Reverse, 2)

			saved, err := reopen(t, s).loadIndex()
			require.NoError(t, err, "the rebuilt index is saved again")
			tip, err := s.Tip()
			require.NoError(t, err)
			require.Equal(t, tip, saved.Tip)
			require.Equal(t, 3, saved.Len())
			requireSameIndex(t, coldIndex(t, s), saved)
		})
	}
}

// reopenedLinks are the links of handle as a new process reads them.
func reopenedLinks(t *testing.T, s *Store, handle string) Links {
	t.Helper()
	v, err := reopen(t, s).View()
	require.NoError(t, err)
	l, err := v.Links(handle)
	require.NoError(t, err)
	return l
}

// TestIndexFileCutShortWhileMapped: a process has the base mapped when
// something truncates the file in place (not by rename, as we write it).
// Its next lookup faults on the missing pages; it must rebuild and answer,
// not crash.
func TestIndexFileCutShortWhileMapped(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "a", Aliases: []string{"alpha"}})
	for i := range 40 {
		create(t, s, kernel.CreateInput{Title: fmt.Sprintf("r%d", i), Body: "see [[alpha]]\n"})
	}
	_, err := reopen(t, s).Reindex("")
	require.NoError(t, err)
	reader := reopen(t, s)
	ix := indexOf(t, reader) // mapped
	require.NoError(t, os.Truncate(s.indexPath(), int64(indexHeaderSize)+100))
	require.Len(t, ix.Reverse(a.ID), 40)
	requireSameIndex(t, coldIndex(t, s), ix)
}

func truncateFile(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data[:len(data)/2], 0o644))
}

func appendFile(t *testing.T, path string, extra []byte) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(data, extra...), 0o644))
}

func TestReindexReportsDrift(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "a", Aliases: []string{"alpha"}})
	b := create(t, s, kernel.CreateInput{Title: "b", Body: "see [[alpha|A]] and [[missing]]\n", Links: []kernel.Link{{TargetID: a.ID, Kind: kernel.LinkSource}}})
	rel := create(t, s, kernel.CreateInput{Type: "relation", Title: "b affects a", Category: "links", From: b.ID, To: a.ID, Relation: "affects"})
	indexOf(t, s) // the cache is current

	graphFile := t.TempDir() + "/graph-index.json"
	reindex := func(graph string) *ReindexResult {
		t.Helper()
		res, err := reopen(t, s).Reindex(graph)
		require.NoError(t, err)
		return res
	}

	t.Run("a current cache is not drift", func(t *testing.T) {
		res := reindex("")
		require.False(t, res.Changed)
		names, err := filepath.Glob(filepath.Join(filepath.Dir(s.indexPath()), "*"))
		require.NoError(t, err)
		tip, err := s.Tip()
		require.NoError(t, err)
		require.ElementsMatch(t, []string{s.indexPath(), s.deltaPath(), s.searchDeltaPath(), s.searchBasePath(tip)}, names,
			"the bases written to temporary files were renamed into place, the search index's built in the same read")
		require.Equal(t, 3, res.Records)
		require.Equal(t, 4, res.Links, "b: source + 2 wikilinks + rel's affects edge, which belongs to b")
		require.Equal(t, 1, res.ForwardSources)
		require.Equal(t, 2, res.ReverseTargets, "a and the dangling 'missing'")
	})

	handMade := func(id string) {
		t.Helper()
		// A hand-made commit moves the branch without touching the cache.
		r := &kernel.Record{ID: id, Type: "raw", Title: "c", Category: "c", CreatedAt: ts("2026-01-01"),
			UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "a human"}}
		data, err := EncodeRecord(r)
		require.NoError(t, err)
		tip, err := s.Tip()
		require.NoError(t, err)
		handCommit(t, s, tip, map[string]string{RecordPath(r.Type, r.ID): string(data)}, "by hand")
	}

	t.Run("a cache only behind the tip is not drift", func(t *testing.T) {
		handMade("hand-made")
		res := reindex("")
		require.Equal(t, IndexBehind, res.State)
		require.False(t, res.Changed, "catching up is what every read does")
		require.Empty(t, res.Drift)
		require.Equal(t, IndexCurrent, reindex("").State, "reindex saved the rebuilt cache")
	})

	t.Run("a cache behind the tip that also disagrees is drift", func(t *testing.T) {
		e := cachedEntry(t, s, a.ID)
		e.Title = "tampered"
		plantEntry(t, s, &e, true)
		handMade("hand-made-2")
		res := reindex("")
		require.Equal(t, IndexDrift, res.State)
		require.True(t, res.Changed)
		require.Equal(t, []string{a.ID}, res.Drift, "the record the cache got wrong, not the one it was behind on")
		require.Equal(t, IndexCurrent, reindex("").State)
	})

	t.Run("a missing cache", func(t *testing.T) {
		require.NoError(t, os.Remove(s.indexPath()))
		res := reindex("")
		require.Equal(t, IndexMissing, res.State)
		require.True(t, res.Changed)
	})

	t.Run("a damaged file is drift", func(t *testing.T) {
		data, err := os.ReadFile(s.indexPath())
		require.NoError(t, err)
		data[len(data)-3] ^= 1
		require.NoError(t, os.WriteFile(s.indexPath(), data, 0o644))
		res := reindex("")
		require.Equal(t, IndexDrift, res.State)
		require.Equal(t, []string{"index file"}, res.Drift)
		require.Equal(t, IndexCurrent, reindex("").State)
	})

	t.Run("a missing cache once more", func(t *testing.T) {
		require.NoError(t, os.Remove(s.indexPath()))
		res := reindex("")
		require.Equal(t, IndexMissing, res.State)
		require.True(t, res.Changed)
	})

	for _, inBase := range []bool{false, true} {
		t.Run(fmt.Sprintf("a tampered cache entry is drift (in the base: %v)", inBase), func(t *testing.T) {
			e := cachedEntry(t, s, a.ID)
			e.Title = "tampered"
			plantEntry(t, s, &e, inBase)
			res := reindex("")
			require.True(t, res.Changed)
			require.Equal(t, IndexDrift, res.State)
			require.Equal(t, []string{a.ID}, res.Drift)
			require.False(t, reindex("").Changed)
		})

		t.Run(fmt.Sprintf("a tampered cache edge is drift (in the base: %v)", inBase), func(t *testing.T) {
			e := cachedEntry(t, s, b.ID)
			e.Edges = e.Edges[1:]
			plantEntry(t, s, &e, inBase)
			require.True(t, reindex("").Changed)
			require.False(t, reindex("").Changed)
		})
	}

	t.Run("graph-index.json", func(t *testing.T) {
		require.True(t, reindex(graphFile).Changed, "no graph file yet")
		require.False(t, reindex(graphFile).Changed)

		var g Graph
		data, err := os.ReadFile(graphFile)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &g))
		require.Equal(t, "1.0", g.SchemaVersion)
		require.Contains(t, g.Forward[b.ID], GraphEdge{TargetID: a.ID, Kind: "affects"}, "a relation record's edge belongs to its from record")
		require.Empty(t, g.Forward[rel.ID])
		require.ElementsMatch(t, []GraphBlink{{SourceID: b.ID, Kind: "source"}, {SourceID: b.ID, Kind: "related"}, {SourceID: b.ID, Kind: "affects"}}, g.Reverse[a.ID])

		// Reordered lists are the same graph; a lost edge is not.
		edges := g.Reverse[a.ID]
		edges[0], edges[len(edges)-1] = edges[len(edges)-1], edges[0]
		writeJSON(t, graphFile, g)
		require.False(t, reindex(graphFile).Changed, "order does not matter")

		delete(g.Forward, b.ID)
		writeJSON(t, graphFile, g)
		res := reindex(graphFile)
		require.True(t, res.Changed)
		require.Equal(t, []string{"graph-index.json"}, res.Drift)
		require.False(t, reindex(graphFile).Changed, "reindex rewrote the graph file")

		require.NoError(t, os.WriteFile(graphFile, []byte("{not json"), 0o644))
		require.True(t, reindex(graphFile).Changed)
	})

	t.Run("files that do not decode are reported, not indexed", func(t *testing.T) {
		tip, err := s.Tip()
		require.NoError(t, err)
		bad := RecordPath("concept", "broken-one")
		stray := "records/concept/notes.txt"
		handCommit(t, s, tip, map[string]string{bad: "---\nid: broken-one\n", stray: "hello\n"}, "hand edit")
		res := reindex("")
		require.Equal(t, IndexBehind, res.State, "a read skips them too: the cache agrees")
		sort.Strings(res.Broken)
		require.Equal(t, []string{bad, stray}, res.Broken)
		require.Equal(t, 5, res.Records)
		ix := indexOf(t, reopen(t, s))
		require.Nil(t, ix.Entry("broken-one"))
	})
}

func writeJSON(t *testing.T, path string, v any) {
	data, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// TestIndexAfterTheBranchIsReset: the branch is moved to an unrelated
// history (a forced fetch, a hand reset) and the old tip is garbage
// collected; a cache naming it must still give the right index.
func TestIndexAfterTheBranchIsReset(t *testing.T) {
	t.Parallel()
	orphanRecord := &kernel.Record{ID: "orphan-rec", Type: "raw", Title: "from elsewhere", Category: "c",
		Aliases:   []string{"alpha"}, // the alias the old history gave another record
		CreatedAt: ts("2026-01-01"), UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "other"}}
	orphanFile, err := EncodeRecord(orphanRecord)
	require.NoError(t, err)

	for _, tt := range []struct {
		name            string
		gc, sameProcess bool
	}{
		{"old tip still present, new process", false, false},
		{"old tip garbage collected, new process", true, false},
		{"old tip garbage collected, same process", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newTestStore(t)
			old := create(t, s, kernel.CreateInput{Title: "old", Aliases: []string{"alpha"}})
			create(t, s, kernel.CreateInput{Title: "old too", Body: "[[alpha]]\n"})
			oldTip, err := s.Tip()
			require.NoError(t, err)
			require.Equal(t, 2, indexOf(t, s).Len())

			newTip := handCommit(t, s, plumbing.ZeroHash, map[string]string{
				FormatPath: kernel.FormatVersion + "\n",
				RecordPath(orphanRecord.Type, orphanRecord.ID): string(orphanFile),
			}, "unrelated history")
			dir := gitDir(s)
			if tt.gc {
				git(t, dir, "reflog", "expire", "--expire=now", "--all")
				git(t, dir, "gc", "-q", "--prune=now")
				_, err := gitInput(dir, nil, nil, "cat-file", "-e", oldTip.String())
				require.Error(t, err, "the old tip is gone")
			}

			reader := s
			if !tt.sameProcess {
				reader = reopen(t, s)
			}
			ix := indexOf(t, reader)
			require.Equal(t, newTip, ix.Tip)
			requireSameIndex(t, coldIndex(t, s), ix)
			require.NotNil(t, ix.Entry(orphanRecord.ID))
			require.Nil(t, ix.Entry(old.ID))
			require.Equal(t, orphanRecord.ID, get(t, reader, "alpha").ID)
		})
	}
}

// TestAnAliasHeldTwiceResolvesTheSameWay: the kernel never gives one alias
// to two records, but a merge of two branches or a hand edit can. The
// index must then still be a function of the tip alone: the same owner
// whether it was built cold, caught up commit by commit in either order,
// or loaded from the cache.
func TestAnAliasHeldTwiceResolvesTheSameWay(t *testing.T) {
	t.Parallel()
	file := func(id string, aliases ...string) string {
		r := &kernel.Record{ID: id, Type: "raw", Title: id, Category: "c", Aliases: aliases,
			CreatedAt: ts("2026-01-01"), UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "a human"}}
		data, err := EncodeRecord(r)
		require.NoError(t, err)
		return string(data)
	}
	// dup-a sorts first by id; find ids whose paths sort the other way
	// round too, so that neither order of indexing is right by accident.
	low, high := "dup-a", "dup-b"
	if RecordPath("raw", low) < RecordPath("raw", high) {
		low, high = "dup-c", "dup-d"
	}
	require.Less(t, low, high)

	for _, order := range [][2]string{{low, high}, {high, low}} {
		t.Run(order[0]+" first", func(t *testing.T) {
			s := newTestStore(t)
			tip, err := s.Tip()
			require.NoError(t, err)
			tip = handCommit(t, s, tip, map[string]string{RecordPath("raw", order[0]): file(order[0], "shared", "own-"+order[0])}, "first")
			indexOf(t, reopen(t, s))
			tip = handCommit(t, s, tip, map[string]string{RecordPath("raw", order[1]): file(order[1], "shared")}, "second")

			caughtUp := indexOf(t, reopen(t, s))
			requireSameIndex(t, coldIndex(t, s), caughtUp)
			for range 5 {
				requireSameIndex(t, coldIndex(t, s), indexOf(t, reopen(t, s)), "loaded from the cache")
			}
			owner, _ := caughtUp.AliasTarget("shared")
			require.Equal(t, low, owner, "the smaller id keeps a contested alias")

			// The owner gives the alias up (a hand edit): the other holder has it.
			handCommit(t, s, tip, map[string]string{RecordPath("raw", low): file(low, "own-"+low)}, "drop the alias")
			ix := indexOf(t, reopen(t, s))
			requireSameIndex(t, coldIndex(t, s), ix)
			owner, _ = ix.AliasTarget("shared")
			require.Equal(t, high, owner)
		})
	}
}

// TestEachRecordStreamsWhatGetReads: a full listing reads its blobs in
// batches on several decoders (from loose objects, from a pack, or
// through one batched git cat-file where objects may live where only git
// looks); every record comes back as Get reads it, in list order, and a
// filter on a table (category, type, tag) selects exactly the records the
// filter matches.
func TestEachRecordStreamsWhatGetReads(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	var ids []string
	for i := range 2*decodeBatch + 5 {
		r := create(t, s, kernel.CreateInput{Title: fmt.Sprintf("r%d", i), Category: []string{"eng", "eng.api", "ops"}[i%3],
			Tags: []string{fmt.Sprintf("t%d", i%2)}, Body: fmt.Sprintf("body %d [[%s]]\n", i, "dangling")})
		ids = append(ids, r.ID)
	}
	check := func(t *testing.T, s *Store) {
		v, err := s.View()
		require.NoError(t, err)
		var got []string
		require.NoError(t, v.EachRecord(Filter{}, func(r *kernel.Record) error {
			want, err := v.Get(r.ID)
			require.NoError(t, err)
			require.Equal(t, want, r)
			got = append(got, r.ID)
			return nil
		}))
		require.Equal(t, ids, got, "oldest first")

		for _, f := range []Filter{{Category: "eng"}, {Category: "eng", CategoryPrefix: true}, {Tag: "t1"}, {Type: "concept"}} {
			rs, err := v.List(f)
			require.NoError(t, err)
			n := 0
			for i := range ids {
				c := []string{"eng", "eng.api", "ops"}[i%3]
				if (f.Category == "" || categoryMatch(c, f.Category, f.CategoryPrefix)) && (f.Tag == "" || f.Tag == fmt.Sprintf("t%d", i%2)) {
					require.Equal(t, ids[i], rs[n].ID, "%+v", f)
					n++
				}
			}
			require.Len(t, rs, n, "%+v", f)
		}

		stop := errors.New("stop")
		calls := 0
		require.ErrorIs(t, v.EachRecord(Filter{}, func(*kernel.Record) error {
			if calls++; calls == decodeBatch+3 {
				return stop
			}
			return nil
		}), stop, "fn's error stops the read")
		require.Equal(t, decodeBatch+3, calls, "fn is not called after its error")
	}
	t.Run("loose", func(t *testing.T) {
		r := reopen(t, s)
		defer r.Close()
		_, ok := r.objects.(*freshObjects)
		require.True(t, ok)
		check(t, r)
	})
	git(t, gitDir(s), "gc", "-q")
	t.Run("packed", func(t *testing.T) {
		r := reopen(t, s)
		defer r.Close()
		check(t, r)
	})
	alternates := filepath.Join(s.repo.CommonDir, "objects", "info", "alternates")
	require.NoError(t, os.MkdirAll(filepath.Dir(alternates), 0o755))
	require.NoError(t, os.WriteFile(alternates, nil, 0o644))
	t.Run("through git", func(t *testing.T) {
		r := reopen(t, s)
		defer r.Close()
		_, ok := r.objects.(*catFileObjects)
		require.True(t, ok)
		check(t, r)
	})
}

// TestSearchNeverAnswersWronglyFromADamagedRow: search's probes do not
// check their rows' checksums, so a flipped byte in any row may mislead
// one; every lookup must still answer as on the intact file, or report the
// damage (and be rebuilt), never answer otherwise.
func TestSearchNeverAnswersWronglyFromADamagedRow(t *testing.T) {
	t.Parallel()
	var entries []*IndexEntry
	for i := range 40 {
		entries = append(entries, &IndexEntry{ID: fmt.Sprintf("r%02d", i), Title: "t", Aliases: []string{fmt.Sprintf("a%02d", 39-i)}})
	}
	intact := buildBase(plumbing.ZeroHash, slices.Clone(entries))
	lookups := func(b *baseFile) (rows []int, damaged bool) {
		defer func() {
			if r := recover(); r != nil {
				require.Equal(t, errCorruptIndex, r)
				damaged = true
			}
		}()
		for _, e := range entries {
			rows = append(rows, b.entryRow(e.ID), b.tables[tabAliases].search([]byte(e.Aliases[0]), pairKey))
		}
		rows = append(rows, b.entryRow("r1"), b.entryRow("r99"), b.tables[tabAliases].search([]byte("a"), pairKey))
		return rows, false
	}
	base, err := openBase(intact)
	require.NoError(t, err)
	want, damaged := lookups(base)
	require.False(t, damaged)
	// The same bytes in a file: a mapped base's probes and rows are read
	// with pread, and must answer (or refuse) as the mapping's do.
	file, err := os.Create(filepath.Join(t.TempDir(), "base"))
	require.NoError(t, err)
	defer file.Close()
	_, err = file.Write(intact)
	require.NoError(t, err)
	fromFile := func(data []byte) *baseFile {
		b, err := openBase(data)
		require.NoError(t, err, "the header is intact")
		b.setFile(file)
		return b
	}
	pread := fromFile(intact)
	got, damaged := lookups(pread)
	require.False(t, damaged)
	require.Equal(t, want, got, "read with pread")
	// 83 searches: the first pointSearches of the base read with pread,
	// the rest the mapping, and all answer alike.
	require.Equal(t, int32(pointSearches), pread.tables[tabAliases].points.Load())
	detected, detectedByRead := 0, 0
	for _, tab := range []int{tabEntries, tabAliases, tabIDs} {
		tb := base.tables[tab]
		off := binary.LittleEndian.Uint64(intact[len(indexMagic)+36+dirEntrySize*tab:]) // the table directory
		start := int(off) + 4 + 4*tb.n                                                  // its first row
		end := start + len(tb.data) - 4 - 4*tb.n
		for at := int(off) + 4; at < end; at++ { // the offsets and the rows
			data := slices.Clone(intact)
			data[at] ^= 0x20
			b, err := openBase(data)
			require.NoError(t, err, "the header is intact")
			got, damaged := lookups(b)
			if damaged {
				detected++
			} else {
				require.Equal(t, want, got, "byte %d of table %d flipped: a lookup answered wrongly", at, tab)
			}
			if at%53 != 0 { // every byte through pread took 16 s
				continue
			}
			_, err = file.WriteAt(data[at:at+1], int64(at))
			require.NoError(t, err)
			got, damaged = lookups(fromFile(data))
			if damaged {
				detectedByRead++
			} else {
				require.Equal(t, want, got, "byte %d of table %d flipped: a lookup read with pread answered wrongly", at, tab)
			}
			_, err = file.WriteAt(intact[at:at+1], int64(at))
			require.NoError(t, err)
		}
	}
	require.Positive(t, detected)
	require.Positive(t, detectedByRead)
}

// TestLookupsPastThePreadBudgetReadNoFile: once a base's pread searches
// are spent, an id or alias lookup reads the row its search ended on
// through the mapping, as the search itself did, not with two more
// preads (a cold reindex resolves every link end this way: 212,848
// preads at 100,000 records). The file is closed after the budget: a
// lookup that still read it would report damage.
func TestLookupsPastThePreadBudgetReadNoFile(t *testing.T) {
	t.Parallel()
	var entries []*IndexEntry
	for i := range 40 {
		entries = append(entries, &IndexEntry{ID: fmt.Sprintf("r%02d", i), Title: "t", Aliases: []string{fmt.Sprintf("a%02d", i)}})
	}
	data := buildBase(plumbing.ZeroHash, slices.Clone(entries))
	file, err := os.Create(filepath.Join(t.TempDir(), "base"))
	require.NoError(t, err)
	_, err = file.Write(data)
	require.NoError(t, err)
	b, err := openBase(data)
	require.NoError(t, err)
	b.setFile(file)
	ix := &Index{base: b}
	for i := range pointSearches {
		require.True(t, ix.hasID(entries[i].ID), "read with pread")
	}
	require.Equal(t, int32(pointSearches), b.tables[tabIDs].points.Load())
	require.NoError(t, file.Close())
	for _, e := range entries {
		require.True(t, ix.try(func() {
			require.True(t, ix.hasID(e.ID))
			require.False(t, ix.hasID(e.ID+"x"))
			present := ix.basePrefixKeys(tabAliases, e.ID)
			require.False(t, present("zz"))
			owner, ok := ix.aliasTarget(e.Aliases[0])
			require.True(t, ok)
			require.Equal(t, e.ID, owner)
		}), "a lookup read the closed file")
	}
}

// TestRecentReadsAnswerAsTheFirstRead: a mapped base remembers its tables'
// last search answers and point rows (recentReads); a lookup asked again
// answers as the first did, from memory, with no search; past the base's
// budget nothing more is remembered, and every lookup still answers as a
// base in memory does.
func TestRecentReadsAnswerAsTheFirstRead(t *testing.T) {
	t.Parallel()
	var entries []*IndexEntry
	for i := range 200 {
		entries = append(entries, &IndexEntry{ID: fmt.Sprintf("r%03d", i), Title: fmt.Sprintf("t%d", i), Aliases: []string{fmt.Sprintf("a%03d", i)}})
	}
	intact := buildBase(plumbing.ZeroHash, slices.Clone(entries))
	mem, err := openBase(intact)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "base")
	require.NoError(t, os.WriteFile(path, intact, 0o644))
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	b, err := openBase(intact)
	require.NoError(t, err)
	b.setFile(file)
	searches := func() int32 { return b.tables[tabIDs].points.Load() }
	lookup := func(id string) {
		t.Helper()
		require.Equal(t, mem.entryRow(id), b.entryRow(id), id)
		require.Equal(t, mem.entry(id), b.entry(id), id)
		require.Equal(t, mem.tables[tabAliases].ids("a"+id[1:]), b.tables[tabAliases].ids("a"+id[1:]), id)
	}
	for _, id := range []string{"r007", "r150", "nosuch", "r000", "r199"} {
		lookup(id)
		n := searches()
		lookup(id)
		require.Equal(t, n, searches(), "%s asked again: a search, not the remembered answer", id)
	}
	for _, e := range entries {
		lookup(e.ID)
	}
	require.Equal(t, int32(recentStores), b.tables[tabIDs].recent.stores.Load(), "the budget bounds what is remembered")
	for _, id := range []string{"r007", "r150", "nosuch", "r000", "r199"} {
		lookup(id)
	}
	require.Equal(t, int32(recentStores), b.tables[tabIDs].recent.stores.Load())
}

// TestBacklinksByPrefixesOfNamedIDs: ids that are names share long
// prefixes, and links may name a record by any unique prefix of 8
// characters or more; backlinks find each such link (the prefixes are
// looked up in one scan, or key by key when many share the range) and
// never count an ambiguous one.
func TestBacklinksByPrefixesOfNamedIDs(t *testing.T) {
	t.Parallel()
	ids := []string{"payment-api-v1-alpha", "payment-api-v1-beta", "payment-api-v2-gamma"}
	for i := range 20 {
		ids = append(ids, fmt.Sprintf("payment-api-v3-x%02d-item", i))
	}
	next := 0
	s := newTestStore(t, Options{NewID: func() string { next++; return ids[next-1] }})
	for _, id := range ids {
		create(t, s, kernel.CreateInput{Title: id})
	}
	body := "[[payment-api-v1-a]] [[payment-api-v1-alph]] [[payment-api-v2]] [[payment-a]] [[payment-api-v1-beta]] [[payment-api-v1]]"
	for i := range 20 {
		body += fmt.Sprintf(" [[payment-api-v3-x%02d]] [[payment-api-v3-x%02d-item]]", i, i)
	}
	ids = append(ids, "payment-linker")
	next = len(ids) - 1
	create(t, s, kernel.CreateInput{Title: "linker", Body: body + "\n"})
	cold := coldIndex(t, s)
	requireSameIndex(t, cold, cold)
	backlinks := func(id string) int { return len(cold.Reverse(id)) }
	require.Equal(t, 1, backlinks("payment-api-v1-alpha"), "two prefixes, one edge")
	require.Equal(t, 1, backlinks("payment-api-v2-gamma"))
	require.Equal(t, 1, backlinks("payment-api-v1-beta"))
	require.Equal(t, 1, backlinks("payment-api-v3-x07-item"), "a prefix and the id, one edge")
	require.Equal(t, 1, backlinks("payment-a"), "an ambiguous prefix is a dangling link")
}

// A merge of a base and a delta writes the file a build from every entry
// writes, byte for byte, whatever the delta holds: records added, changed
// (in list order too: created_at rewritten), removed, ids that sort
// before, between and after the base's, created_at ties, aliases, tags
// and edges shared between records. A damaged row is refused, not copied.
func TestMergeBaseWritesWhatABuildWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	word := func(n int) string {
		const letters = "abcdefgh"
		b := make([]byte, 1+rng.IntN(n))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	entry := func(id string) *IndexEntry {
		e := &IndexEntry{ID: id, Type: []string{"concept", "raw"}[rng.IntN(2)], Category: "c." + word(2), Title: "T " + word(6),
			Status: kernel.StatusActive, CreatedAt: int64(rng.IntN(20)), Blob: plumbing.NewHash(fmt.Sprintf("%040x", rng.Uint64()))}
		for range rng.IntN(3) {
			e.Aliases = append(e.Aliases, "al-"+word(3))
		}
		for range rng.IntN(3) {
			e.Tags = append(e.Tags, word(2))
		}
		for range rng.IntN(4) {
			ed := Edge{Target: word(3), Kind: []string{"related", kernel.LinkSupersedes}[rng.IntN(2)]}
			if rng.IntN(3) == 0 {
				ed.Source = word(3)
			}
			e.Edges = append(e.Edges, ed)
		}
		return e
	}
	for round := range 200 {
		all := map[string]*IndexEntry{}
		for range rng.IntN(60) {
			id := word(5)
			all[id] = entry(id)
		}
		sorted := func(m map[string]*IndexEntry) []*IndexEntry {
			var out []*IndexEntry
			for _, e := range m {
				out = append(out, e)
			}
			slices.SortFunc(out, func(a, b *IndexEntry) int { return strings.Compare(a.ID, b.ID) })
			return out
		}
		base, err := openBase(buildBase(plumbing.ZeroHash, sorted(all)))
		require.NoError(t, err)
		delta := map[string]*IndexEntry{}
		for range rng.IntN(20) {
			id := word(5)
			if _, ok := all[id]; ok && rng.IntN(3) == 0 {
				delta[id] = nil
				delete(all, id)
				continue
			}
			if rng.IntN(5) == 0 {
				delta[id] = nil // removing what is not there
				delete(all, id)
				continue
			}
			delta[id] = entry(id)
			all[id] = delta[id]
		}
		tip := plumbing.NewHash(fmt.Sprintf("%040x", round))
		want := buildBase(tip, sorted(all))
		got := mergeBase(tip, base, delta)
		require.Equal(t, want, got, "round %d: %d entries, delta of %d", round, len(all), len(delta))
	}

	// A row whose checksum fails stops the merge (Index.merged then reads
	// through guard, which rebuilds).
	e := entry("abc")
	data := buildBase(plumbing.ZeroHash, []*IndexEntry{e})
	at := bytes.Index(data, []byte(e.Title))
	require.Positive(t, at)
	data[at] ^= 1
	base, err := openBase(data)
	require.NoError(t, err)
	ok := (&Index{}).try(func() { mergeBase(plumbing.ZeroHash, base, map[string]*IndexEntry{"abd": entry("abd")}) })
	require.False(t, ok, "a damaged row was copied")
}

// TestGraphCountsOfHandles: one record naming another by its id, an alias
// and a prefix, and a dangling name twice, is one edge to each; a relation
// named by an alias counts under the record it resolves to.
func TestGraphCountsOfHandles(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "a", Aliases: []string{"alpha"}})
	b := create(t, s, kernel.CreateInput{Title: "b", Body: fmt.Sprintf("[[alpha]] [[%s]] [[%s|short]] [[missing]] [[missing|again]]\n",
		a.ID, a.ID[:kernel.MinIDPrefix])})
	create(t, s, kernel.CreateInput{Type: "relation", Title: "a affects b", Category: "links", From: "alpha", To: b.ID, Relation: "affects"})
	ix := coldIndex(t, s)
	requireGraphCounts(t, ix)
	links, sources, targets := ix.graphCounts()
	require.Equal(t, [3]int{3, 2, 3}, [3]int{links, sources, targets}, "b: a and missing once each; a: the relation's edge to b")
}

// A write killed before it renamed its temporary file leaves it beside the
// index (a whole base, 79 MB at 100k records): the next base written
// removes such files once they are old enough that no live write can own
// them, and leaves a recent one, which may be another process's.
func TestNewBaseSweepsAbandonedTemporaryFiles(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	create(t, s, kernel.CreateInput{Title: "a"})
	indexOf(t, s)
	dir := filepath.Dir(s.indexPath())
	abandoned := []string{filepath.Join(dir, ".index-1234"), filepath.Join(dir, ".delta-5678")}
	recent := filepath.Join(dir, ".index-9999")
	for _, name := range append(abandoned, recent) {
		require.NoError(t, os.WriteFile(name, []byte("half a base"), 0o644))
	}
	long := time.Now().Add(-2 * staleTemp)
	for _, name := range abandoned {
		require.NoError(t, os.Chtimes(name, long, long))
	}

	_, err := reopen(t, s).Reindex("")
	require.NoError(t, err)
	for _, name := range abandoned {
		require.NoFileExists(t, name)
	}
	require.FileExists(t, recent, "a write in progress elsewhere is left alone")
	require.FileExists(t, s.indexPath())
}

// TestEachAfterResumesAnywhere: EachAfter hands out exactly the entries
// whose ids sort after its argument, in id order, from a base and a delta
// both (records added between the base's, one updated, one removed from
// view by none), whether the argument is an id or falls between ids.
func TestEachAfterResumesAnywhere(t *testing.T) {
	s := newTestStore(t)
	for i := range 10 {
		create(t, s, kernel.CreateInput{ID: fmt.Sprintf("rec-%d0", i), Type: "concept", Category: "c", Title: "T", Body: "b", Provenance: kernel.Provenance{Agent: testAgent}})
	}
	_, err := s.Reindex("")
	require.NoError(t, err)
	for _, id := range []string{"rec-05", "rec-55", "rec-95"} {
		create(t, s, kernel.CreateInput{ID: id, Type: "concept", Category: "c", Title: "T", Body: "b", Provenance: kernel.Provenance{Agent: testAgent}})
	}
	mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, "rec-30", kernel.UpdateFields{Title: ptr("Retitled")}, ev(), env)
	})
	ix := indexOf(t, s)
	require.NotEmpty(t, ix.delta, "some records in the delta")
	ids := ix.IDs()
	require.Len(t, ids, 13)
	for _, after := range append([]string{"", "a", "rec-0", "rec-50x", "zzz"}, ids...) {
		var got []string
		ix.EachAfter(after, func(e *IndexEntry) bool { got = append(got, e.ID); return true })
		var want []string
		for _, id := range ids {
			if id > after {
				want = append(want, id)
			}
		}
		require.Equal(t, want, got, "after %q", after)
		// A page of two stops there.
		var page []string
		ix.EachAfter(after, func(e *IndexEntry) bool { page = append(page, e.ID); return len(page) < 2 })
		require.Equal(t, want[:min(2, len(want))], page, "a page after %q", after)
	}
}
