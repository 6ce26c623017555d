package gitstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/search"
)

// Filter selects records for List. Zero fields do not filter.
type Filter struct {
	Type           string
	Category       string
	CategoryPrefix bool // Category matches itself and its descendants
	Tag            string
	Status         kernel.Status
	Kind           kernel.Kind
	Role           kernel.Role
	Authority      kernel.Authority
	IncludeRetired bool
	StaleOnly      bool      // only records past their effective expiry (J.5)
	Now            time.Time // for StaleOnly; default time.Now
	// AsStored: EachRecord gives each record as its file has it, without
	// its body links among its links (export writes files back).
	AsStored bool
}

func (f Filter) match(e *IndexEntry, now int64) bool {
	switch {
	case f.Type != "" && e.Type != f.Type,
		f.Category != "" && !categoryMatch(e.Category, f.Category, f.CategoryPrefix),
		f.Tag != "" && !containsString(e.Tags, f.Tag),
		f.Status != "" && e.Status != f.Status,
		f.Status == "" && !f.IncludeRetired && e.Status == kernel.StatusRetired,
		f.Kind != "" && e.Kind != f.Kind,
		f.Role != "" && e.Role != f.Role,
		f.Authority != "" && e.Authority != f.Authority,
		f.StaleOnly && (e.Expires == 0 || now < e.Expires):
		return false
	}
	return true
}

// categoryMatch: exact, or with prefix also every descendant segment-wise
// ("eng" matches "eng.api" but not "engineering").
func categoryMatch(c, want string, prefix bool) bool {
	if c == want {
		return true
	}
	return prefix && strings.HasPrefix(c, want+".")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// List returns the records that match f, oldest first (ties by id), with
// their body links, reading only the matching records.
func (v *View) List(f Filter) ([]*kernel.Record, error) {
	var out []*kernel.Record
	err := v.EachRecord(f, func(r *kernel.Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// EachRecord calls fn with each record that matches f, in List's order and
// with its body links, as it reads them: the blobs go through one batched
// reader and each record is decoded once and then dropped, so a full read
// (list --json, export) holds one record at a time, not the store.
func (v *View) EachRecord(f Filter, fn func(*kernel.Record) error) error {
	ix, err := v.Index()
	if err != nil {
		return err
	}
	now := f.now()
	var blobs []plumbing.Hash // 20 bytes a record: what the walk keeps
	ix.guard(func() {
		blobs = blobs[:0]
		ix.listEntries(f, now, func(e *IndexEntry) { blobs = append(blobs, e.Blob) })
	})
	var prepare prepareDecoded
	if !f.AsStored {
		prepare = func(d *decoded, _ plumbing.Hash) { d.r = WithBodyLinks(d.r) }
	}
	return v.s.eachDecodedWith(blobs, prepare, func(i int, d decoded) error {
		if d.err != nil {
			return kernel.Wrap(kernel.CodeOf(d.err), d.err, "record blob %s", blobs[i])
		}
		return fn(d.r)
	})
}

// ListEntries is List without reading the records.
func (v *View) ListEntries(f Filter) ([]*IndexEntry, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	now := f.now()
	var out []*IndexEntry
	ix.guard(func() {
		out = out[:0]
		ix.listEntries(f, now, func(e *IndexEntry) { out = append(out, e) })
	})
	return out, nil
}

func (f Filter) now() int64 {
	if f.Now.IsZero() {
		return time.Now().UnixMilli()
	}
	return f.Now.UnixMilli()
}

// listEntries calls fn with the entries that match f in list order. A
// category, type or tag is read from its table (rows of the matching
// records only, then sorted); anything else walks every entry in the
// order the base keeps, merged with the delta's.
func (ix *Index) listEntries(f Filter, now int64, fn func(*IndexEntry)) {
	var tab int
	var key string
	switch {
	case f.Category != "":
		tab, key = tabCategory, f.Category
	case f.Type != "":
		tab, key = tabType, f.Type
	case f.Tag != "":
		tab, key = tabTag, f.Tag
	default:
		ix.eachInListOrder(func(e *IndexEntry) {
			if f.match(e, now) {
				fn(e)
			}
		})
		return
	}
	var out []*IndexEntry
	keep := func(e *IndexEntry) {
		if e != nil && f.match(e, now) {
			out = append(out, e)
		}
	}
	fromBase := func(_, id []byte) {
		if s := string(id); !ix.inDelta(s) {
			keep(ix.base.entry(s))
		}
	}
	t := &ix.base.tables[tab]
	t.scanKeys([]byte(key), func(k []byte) bool { return string(k) == key }, fromBase)
	if tab == tabCategory && f.CategoryPrefix {
		sub := []byte(key + ".")
		t.scanKeys(sub, func(k []byte) bool { return bytes.HasPrefix(k, sub) }, fromBase)
	}
	for _, e := range ix.delta {
		keep(e)
	}
	slices.SortFunc(out, listOrder)
	for _, e := range out {
		fn(e)
	}
}

// eachInListOrder walks every entry in list order: the base's byCreated
// table merged with the delta's entries.
func (ix *Index) eachInListOrder(fn func(*IndexEntry)) {
	var added []*IndexEntry
	for _, e := range ix.delta {
		if e != nil {
			added = append(added, e)
		}
	}
	slices.SortFunc(added, listOrder)
	order, entries := &ix.base.tables[tabByCreated], &ix.base.tables[tabEntries]
	j := 0
	for k := 0; k < order.n; k++ {
		p := order.row(k)
		if len(p) != 4 {
			corrupt()
		}
		row := entries.row(int(binary.LittleEndian.Uint32(p)))
		if ix.inDelta(string(entryID(row))) {
			continue
		}
		e, ok := decodeEntry(row)
		if !ok {
			corrupt()
		}
		for ; j < len(added) && listOrder(added[j], e) < 0; j++ {
			fn(added[j])
		}
		fn(e)
	}
	for ; j < len(added); j++ {
		fn(added[j])
	}
}

// Links are a record's forward links and backlinks.
type Links struct {
	Forward []Edge `json:"forward"`
	Reverse []Edge `json:"reverse"`
	// ForwardTitles and ReverseTitles are, edge by edge, the title of the
	// record at the other end of Forward's and Reverse's edges as the index
	// has them (for a link line): a hub's 10,000 titles in a slice, not a
	// map built for one read each.
	ForwardTitles []EndTitle `json:"-"`
	ReverseTitles []EndTitle `json:"-"`
}

// EndTitle is the title of the record at a link's other end; OK false
// when no record answers to that end (a dangling link).
type EndTitle struct {
	Text string
	OK   bool
}

// Links resolves a handle and returns its links from the index; an
// unresolved handle gives empty lists (contract H.3).
func (v *View) Links(handle string) (Links, error) { return v.links(handle, true) }

// ForwardLinks is Links without the backlinks (Reverse and ReverseTitles
// empty): what a listing takes before it gives the backlinks one at a
// time (EachBacklink).
func (v *View) ForwardLinks(handle string) (Links, error) { return v.links(handle, false) }

// EachBacklink resolves a handle and gives its backlinks one at a time as
// Index.EachBacklink does: false, fn never called, when the index cannot
// (then Links has them); an unresolved handle has none.
func (v *View) EachBacklink(handle string, fn func(Edge, EndTitle)) (bool, error) {
	id, err := v.Resolve(handle)
	if err != nil || id == "" {
		return true, err
	}
	ix, err := v.Index()
	if err != nil {
		return false, err
	}
	return ix.EachBacklink(id, fn)
}

func (v *View) links(handle string, reverse bool) (Links, error) {
	out := Links{Forward: []Edge{}, Reverse: []Edge{}, ForwardTitles: []EndTitle{}, ReverseTitles: []EndTitle{}}
	id, err := v.Resolve(handle)
	if err != nil || id == "" {
		return out, err
	}
	ix, err := v.Index()
	if err != nil {
		return out, err
	}
	if f := ix.Forward(id); f != nil {
		out.Forward = f
	}
	out.ForwardTitles = make([]EndTitle, len(out.Forward))
	for i, e := range out.Forward {
		t := &out.ForwardTitles[i]
		t.Text, t.OK = ix.Title(e.Target)
	}
	if !reverse {
		return out, nil
	}
	if back, titles := ix.ReverseTitled(id); len(back) > 0 {
		out.Reverse, out.ReverseTitles = back, titles
	}
	return out, nil
}

// ReindexResult is the contract's reindex answer (§5.2), with what the
// rebuild found: the index was current, only behind the tip (normal: another
// process wrote and nothing has read since), missing, or in drift (it
// disagreed with the branch: Drift names the records, and graph-index.json
// when that file disagreed).
type ReindexResult struct {
	Records        int      `json:"records"`
	Links          int      `json:"links"`
	ForwardSources int      `json:"forwardSources"`
	ReverseTargets int      `json:"reverseTargets"`
	Changed        bool     `json:"changed"`
	State          string   `json:"state"`
	Drift          []string `json:"drift,omitempty"`
	Broken         []string `json:"broken,omitempty"` // files under records/ that do not decode
	// Search is the state of the full-text search index, which reindex
	// rebuilds and checks when there is one ("" when search was never used).
	Search string `json:"search,omitempty"`
}

// The states of an index that reindex reports.
const (
	IndexCurrent = "current" // it reflected the tip and agreed with the branch
	IndexBehind  = "behind"  // it reflected an older tip; caught up, it agrees
	IndexMissing = "missing" // there was none, or it could not be read
	IndexDrift   = "drift"   // it disagreed with the records on the branch
)

// Reindex rebuilds the index from every record at the tip, compares it with
// the cached one (order-independently, after catching a cache that is
// merely behind up to the tip) to report drift, and saves it. With
// graphFile set it also rewrites that graph-index.json and counts a
// difference there as drift.
func (s *Store) Reindex(graphFile string) (*ReindexResult, error) {
	return s.ReindexProgress(graphFile, nil)
}

// ReindexProgress is Reindex telling progress of each record it reads.
func (s *Store) ReindexProgress(graphFile string, progress Progress) (*ReindexResult, error) {
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	cached, _ := s.loadIndex()
	// The search index is rebuilt in the same read; the one it replaces
	// is loaded first, to be compared.
	_, statErr := os.Lstat(s.searchDeltaPath())
	hadSearch := statErr == nil
	var cachedSearch *search.Index
	if hadSearch {
		cachedSearch = s.loadSearchIndex()
	}
	sb := s.newSearchBuild()
	defer sb.release()
	ix, broken, err := s.buildIndexProgress(v.tip, v.trees, progress, sb)
	if err != nil {
		return nil, err
	}
	defer ix.base.written.drop() // when it fails before saveIndex
	res := &ReindexResult{Records: ix.Len(), Broken: broken}
	res.Links, res.ForwardSources, res.ReverseTargets = ix.graphCounts()
	res.State, res.Drift = s.compareCache(cached, ix, v)
	if graphFile != "" {
		g := ix.Graph()
		old, _ := readGraphFile(graphFile)
		switch {
		case old == nil && res.State != IndexDrift:
			res.State = IndexMissing
		case old == nil || !reflect.DeepEqual(old.normalized(), g.normalized()):
			res.State, res.Drift = IndexDrift, append(res.Drift, "graph-index.json")
		}
		if err := g.WriteFile(graphFile); err != nil {
			return nil, err
		}
	}
	for _, p := range []string{s.indexPath(), s.deltaPath(), s.searchDeltaPath(), s.searchBasePath(v.tip)} {
		if err := removeDirAtFile(p); err != nil {
			return nil, err
		}
	}
	if s.index, err = s.saveIndex(ix); err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "save index")
	}
	// The graph's rows are released by now: the search base is merged
	// from its runs with the memory they held.
	if res.Search, err = s.reindexSearch(v, hadSearch, cachedSearch, sb); err != nil {
		return nil, err
	}
	if res.Search == IndexDrift {
		res.State, res.Drift = IndexDrift, append(res.Drift, "search index")
	}
	// A search index that was used but could not be read was rebuilt too.
	res.Changed = res.State == IndexDrift || res.State == IndexMissing || res.Search == IndexMissing
	return res, nil
}

// compareCache judges a cached index against one rebuilt at v's tip. A cache
// of an older tip is first caught up by the tree diff, as every read does,
// so only a disagreement that catching up would not mend counts as drift.
func (s *Store) compareCache(cached, rebuilt *Index, v *View) (string, []string) {
	if cached == nil {
		return IndexMissing, nil
	}
	if !cached.base.verify() {
		// Damaged bytes that no read has met yet: reads would rebuild
		// when they did.
		return IndexDrift, []string{"index file"}
	}
	state := IndexCurrent
	if cached.Tip != rebuilt.Tip {
		caught, _, err := s.catchUp(cached, rebuilt.Tip, v.trees)
		if err != nil {
			// Its tip is not in this history (a rewritten branch, a gc).
			return IndexDrift, nil
		}
		cached, state = caught, IndexBehind
	}
	if d := differingEntries(cached, rebuilt); len(d) > 0 {
		return IndexDrift, d
	}
	return state, nil
}

// differingEntries lists, sorted, the ids whose entries differ between two
// indexes; the graph is derived from the entries, so equal entries mean an
// equal graph. It walks a and looks each entry up in b (one entry of each
// held at a time), then lists b's ids a lacks.
func differingEntries(a, b *Index) []string {
	var ids []string
	a.Each(func(e *IndexEntry) bool {
		if !reflect.DeepEqual(e, b.Entry(e.ID)) {
			ids = append(ids, e.ID)
		}
		return true
	})
	for _, id := range b.IDs() {
		if !a.HasID(id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// Graph is graph-index.json, schema 1.0 (contract §5.1).
type Graph struct {
	SchemaVersion string                  `json:"schema_version"`
	Forward       map[string][]GraphEdge  `json:"forward"`
	Reverse       map[string][]GraphBlink `json:"reverse"`
}

// GraphEdge is a forward entry; GraphBlink a reverse one.
type GraphEdge struct {
	TargetID string `json:"target_id"`
	Kind     string `json:"kind"`
	Label    string `json:"label,omitempty"`
}

type GraphBlink struct {
	SourceID string `json:"source_id"`
	Kind     string `json:"kind"`
}

// Graph renders the index as the contract's graph index: records processed
// in id order, so the file is deterministic. Each record's forward edges are
// its own links, then the typed edges of the relation records whose from it
// is, as Forward gives them.
func (ix *Index) Graph() *Graph {
	var g *Graph
	ix.guard(func() {
		g = &Graph{SchemaVersion: "1.0", Forward: map[string][]GraphEdge{}, Reverse: map[string][]GraphBlink{}}
		var ids []string
		own := map[string][]GraphEdge{}
		relations := map[string][]GraphEdge{}
		ix.eachEntry(func(e *IndexEntry) bool {
			ids = append(ids, e.ID)
			for _, ed := range ix.edgesOf(e) {
				ge := GraphEdge{TargetID: ed.Target, Kind: ed.Kind, Label: ed.Label}
				if ed.relation {
					relations[ed.Source] = append(relations[ed.Source], ge)
				} else {
					own[e.ID] = append(own[e.ID], ge)
				}
			}
			return true
		})
		for _, id := range ids {
			for _, e := range append(own[id], relations[id]...) {
				g.Forward[id] = append(g.Forward[id], e)
				g.Reverse[e.TargetID] = append(g.Reverse[e.TargetID], GraphBlink{SourceID: id, Kind: e.Kind})
			}
		}
	})
	return g
}

// graphCounts counts the edges, sources and targets Graph would hold,
// without building it (reindex reports them; a large store's graph is
// hundreds of megabytes of maps).
func (ix *Index) graphCounts() (links, sources, targets int) {
	if len(ix.delta) == 0 {
		return ix.baseGraphCounts()
	}
	ix.guard(func() {
		links = 0
		from, to := map[string]struct{}{}, map[string]struct{}{}
		ix.eachEntry(func(e *IndexEntry) bool {
			for _, ed := range ix.edgesOf(e) {
				src := e.ID
				if ed.relation {
					if src = ed.Source; !ix.hasID(src) {
						continue // Graph lists a relation's edge under its from record only
					}
				}
				links++
				from[src], to[ed.Target] = struct{}{}, struct{}{}
			}
			return true
		})
		sources, targets = len(from), len(to)
	})
	return links, sources, targets
}

// baseGraphCounts is graphCounts of an index that is its base alone (what
// reindex has just built): it reads each entry row's edges in place instead
// of decoding entries, and resolves each link end once, however many edges
// name it. It counts what edgesOf gives, edge for edge: a record's own
// edges once per resolved target and kind, a relation's edge when its from
// resolves to a record.
func (ix *Index) baseGraphCounts() (links, sources, targets int) {
	// Two halves of the entry rows are counted at once, each on a
	// goroutine of its own (the base is read only), and their sets of
	// sources and targets united: at 100,000 records this was half a
	// second of reindex with one core idle.
	// Any index of two records or more is split, so that the tests'
	// small stores count the way a large one does.
	parts := 1
	if ix.base.tables[tabEntries].n > 1 && runtime.GOMAXPROCS(0) > 1 {
		parts = 2
	}
	counts := make([]*edgeCount, parts)
	oks := make([]bool, parts)
	var wg sync.WaitGroup
	n := ix.base.tables[tabEntries].n
	for k := range counts {
		wg.Go(func() {
			oks[k] = ix.try(func() { counts[k] = ix.countBaseEdges(n*k/parts, n*(k+1)/parts) })
		})
	}
	wg.Wait()
	for _, ok := range oks {
		if !ok {
			// A damaged row: guard rebuilds the base, and the count
			// starts over on what it rebuilt.
			var c *edgeCount
			ix.guard(func() { c = ix.countBaseEdges(0, ix.base.tables[tabEntries].n) })
			return c.links, c.from.count(), c.to.count() + len(c.toNames)
		}
	}
	all := counts[0]
	for _, c := range counts[1:] {
		all.links += c.links
		all.from.or(c.from)
		all.to.or(c.to)
		for name := range c.toNames {
			all.toNames[name] = struct{}{}
		}
	}
	return all.links, all.from.count(), all.to.count() + len(all.toNames)
}

// edgeCount is what countBaseEdges counts: the links, and the sets of
// their sources and targets. A source is always a record (its entry row);
// a target is a record's row, or a name that resolves to none.
type edgeCount struct {
	links   int
	from    rowSet
	to      rowSet
	toNames map[string]struct{}
}

// rowSet is a set of entry rows, a bit each.
type rowSet []uint64

func newRowSet(n int) rowSet { return make(rowSet, (n+63)/64) }

func (s rowSet) add(i int32) { s[i>>6] |= 1 << (i & 63) }

func (s rowSet) or(o rowSet) {
	for i := range s {
		s[i] |= o[i]
	}
}

func (s rowSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// countBaseEdges counts the edges of entry rows lo to hi as baseGraphCounts
// does. Each link end is resolved once (a search of the ids table for its
// row), and the sets are bits by row: a map of strings per end made this a
// tenth of a second of reindex at 100,000 records, with collections. The
// caller guards.
func (ix *Index) countBaseEdges(lo, hi int) *edgeCount {
	n := ix.base.tables[tabEntries].n
	c := &edgeCount{from: newRowSet(n), to: newRowSet(n), toNames: map[string]struct{}{}}
	// A resolved end: its row, or -1-k for the k'th name that resolves
	// to no record.
	ends := map[string]int32{}
	var names []string
	resolve := func(t []byte) int32 {
		if at, ok := ends[string(t)]; ok {
			return at
		}
		name := string(t)
		at := int32(ix.base.entryRow(name))
		if at < 0 {
			// Not an id (entryRow is HasID, the first thing
			// ResolveHandle asks): an alias, a prefix, or nothing.
			if id := ix.resolveTarget(name); id != name {
				at = int32(ix.base.entryRow(id))
			}
			if at < 0 {
				at = int32(-1 - len(names))
				names = append(names, name)
			}
		}
		ends[name] = at
		return at
	}
	addTarget := func(at int32) {
		if at >= 0 {
			c.to.add(at)
		} else {
			c.toNames[names[-1-at]] = struct{}{}
		}
	}
	kinds := map[string]uint32{}
	var own []uint64 // this row's own edges: resolved target and kind
	t := &ix.base.tables[tabEntries]
	for i := lo; i < hi; i++ {
		own = own[:0]
		eachRowEdge(t.row(i), func(source, target, kind, _ []byte) {
			tr := resolve(target)
			if len(source) > 0 {
				src := resolve(source)
				if src < 0 {
					return // Graph lists a relation's edge under its from record only
				}
				c.links++
				c.from.add(src)
				addTarget(tr)
				return
			}
			k, ok := kinds[string(kind)]
			if !ok {
				k = uint32(len(kinds))
				kinds[string(kind)] = k
			}
			own = append(own, uint64(uint32(tr))<<32|uint64(k))
		})
		if len(own) == 0 {
			continue
		}
		// Once per resolved target and kind.
		slices.Sort(own)
		own = slices.Compact(own)
		c.links += len(own)
		c.from.add(int32(i))
		for _, key := range own {
			addTarget(int32(key >> 32))
		}
	}
	return c
}

// normalized sorts every list so two graphs compare order-independently.
func (g *Graph) normalized() *Graph {
	n := &Graph{SchemaVersion: g.SchemaVersion, Forward: map[string][]GraphEdge{}, Reverse: map[string][]GraphBlink{}}
	for k, es := range g.Forward {
		c := append([]GraphEdge(nil), es...)
		sort.Slice(c, func(i, j int) bool { return c[i].TargetID+"\x00"+c[i].Kind < c[j].TargetID+"\x00"+c[j].Kind })
		n.Forward[k] = c
	}
	for k, es := range g.Reverse {
		c := append([]GraphBlink(nil), es...)
		sort.Slice(c, func(i, j int) bool { return c[i].SourceID+"\x00"+c[i].Kind < c[j].SourceID+"\x00"+c[j].Kind })
		n.Reverse[k] = c
	}
	return n
}

// WriteFile writes the graph atomically.
func (g *Graph) WriteFile(path string) error {
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	// Not os.CreateTemp, which makes the file 0600: graph-index.json is for
	// clients to read, so it gets the mode any file gets (0666 less umask).
	var tmp *os.File
	for range 100 {
		name := filepath.Join(filepath.Dir(path), ".graph-index-"+strconv.FormatUint(rand.Uint64(), 36))
		if tmp, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "write %s", path)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func readGraphFile(path string) (*Graph, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g Graph
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, err
	}
	if g.Forward == nil {
		g.Forward = map[string][]GraphEdge{}
	}
	if g.Reverse == nil {
		g.Reverse = map[string][]GraphBlink{}
	}
	return &g, nil
}
