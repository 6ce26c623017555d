package gitstore

import (
	"bytes"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// Edge is one link in the graph index.
type Edge struct {
	Source string `json:"source_id,omitempty"`
	Target string `json:"target_id,omitempty"`
	Kind   string `json:"kind"`
	Label  string `json:"label,omitempty"`
}

// IndexEntry is what the index keeps of one record: enough to resolve
// handles, filter lists and follow links without reading the record.
type IndexEntry struct {
	ID, Type, Category, Title string
	Status                    kernel.Status
	Kind                      kernel.Kind
	Role                      kernel.Role
	Authority                 kernel.Authority
	Tags, Aliases             []string
	CreatedAt                 int64 // unix ms, for stable list order
	UpdatedAt                 int64 // unix ms, for a listing by last change
	Expires                   int64 // unix ms of effective expiry, 0 = none
	Blob                      plumbing.Hash
	// Edges are the record's outbound links: frontmatter links, body
	// wikilinks (kind related, target as written) and, for a relation
	// record, its from→to edge.
	Edges []Edge
}

// Index is the derived graph and lookup index of one tip: a base of sorted
// tables (mapped from disk, or built in memory) and a small delta of the
// records changed since the base was written. Every lookup reads only the
// rows it needs. It is a cache: the branch is the truth, Reindex rebuilds
// it, and a damaged file found during a lookup is rebuilt from the branch
// before the lookup is answered.
type Index struct {
	Tip plumbing.Hash

	mu      sync.Mutex // held while repairing
	base    *baseFile
	delta   map[string]*IndexEntry // changed since base; nil: removed
	dAlias  map[string][]string    // alias -> delta ids holding it
	dTarget map[string][]string    // link target as written -> delta holders
	dSource map[string][]string    // relation from as written -> delta holders
	onDisk  bool                   // base is the file on disk
	rebuild func(tip plumbing.Hash) (*Index, error)
}

var emptyBase = func() *baseFile {
	b, err := openBase(buildBase(plumbing.ZeroHash, nil))
	if err != nil {
		panic(err)
	}
	return b
}

// newIndex returns the index of base with delta applied, at tip.
func newIndex(tip plumbing.Hash, base *baseFile, delta map[string]*IndexEntry) *Index {
	if base == nil {
		base = emptyBase()
	}
	ix := &Index{Tip: tip, base: base}
	ix.setDelta(delta)
	return ix
}

func (ix *Index) setDelta(delta map[string]*IndexEntry) {
	if delta == nil {
		delta = map[string]*IndexEntry{}
	}
	ix.delta = delta
	ix.dAlias, ix.dTarget, ix.dSource = map[string][]string{}, map[string][]string{}, map[string][]string{}
	for _, e := range delta {
		if e == nil {
			continue
		}
		for _, a := range e.Aliases {
			ix.dAlias[a] = append(ix.dAlias[a], e.ID)
		}
		for _, ed := range e.Edges {
			ix.dTarget[ed.Target] = append(ix.dTarget[ed.Target], e.ID)
			if ed.Source != "" {
				ix.dSource[ed.Source] = append(ix.dSource[ed.Source], e.ID)
			}
		}
	}
}

// withChanges returns a new index at tip: this one with the given entries
// put (nil: removed). The receiver is not modified: views of older tips may
// still hold it.
func (ix *Index) withChanges(tip plumbing.Hash, changes map[string]*IndexEntry) *Index {
	delta := make(map[string]*IndexEntry, len(ix.delta)+len(changes))
	for id, e := range ix.delta {
		delta[id] = e
	}
	for id, e := range changes {
		delta[id] = e
	}
	n := newIndex(tip, ix.base, delta)
	n.onDisk, n.rebuild = ix.onDisk, ix.rebuild
	return n
}

// merged returns the index as one base with an empty delta.
func (ix *Index) merged() *Index {
	var data []byte
	if ix.try(func() { data = mergeBase(ix.Tip, ix.base, ix.delta) }) {
		if b, err := openBase(data); err == nil {
			n := newIndex(ix.Tip, b, nil)
			n.rebuild = ix.rebuild
			return n
		}
	}
	// A damaged base: read it through guard, which rebuilds it.
	var all []*IndexEntry
	ix.guard(func() {
		all = all[:0]
		ix.eachEntry(func(e *IndexEntry) bool { all = append(all, e); return true })
	})
	b, err := openBase(buildBase(ix.Tip, all))
	if err != nil {
		panic(err) // what buildBase writes, openBase reads
	}
	n := newIndex(ix.Tip, b, nil)
	n.rebuild = ix.rebuild
	return n
}

// guard runs a lookup; when it finds the file damaged (a bad row, or a
// mapping that faults because the file was cut short under it) it rebuilds
// the index from the branch and runs the lookup again. fn must assign its
// results, not accumulate them: it may run twice.
func (ix *Index) guard(fn func()) {
	if ix.try(fn) {
		return
	}
	ix.mu.Lock()
	err := ix.repair()
	ix.mu.Unlock()
	if err != nil {
		panic(kernel.Wrap(kernel.CodeInternal, err, "rebuild the damaged index"))
	}
	fn()
}

func (ix *Index) try(fn func()) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); r != errCorruptIndex && !fault {
				panic(r)
			}
			ok = false
		}
	}()
	fn()
	return true
}

func (ix *Index) repair() error {
	if ix.rebuild == nil {
		return errCorruptIndex
	}
	fresh, err := ix.rebuild(ix.Tip)
	if err != nil {
		return err
	}
	ix.base, ix.onDisk = fresh.base, fresh.onDisk
	ix.setDelta(fresh.delta)
	return nil
}

// entryOf derives the index entry of a decoded record.
func entryOf(r *kernel.Record, blob plumbing.Hash) *IndexEntry {
	e := &IndexEntry{ID: r.ID, Type: r.Type, Category: r.Category, Title: r.Title, Status: r.EffectiveStatus(),
		Kind: r.Kind, Role: r.Role, Authority: r.Authority, Tags: slices.Clip(r.Tags), Aliases: slices.Clip(r.Aliases),
		CreatedAt: r.CreatedAt.UnixMilli(), UpdatedAt: r.UpdatedAt.UnixMilli(), Blob: blob}
	// As the file gives them back: an empty list is no list.
	if len(e.Tags) == 0 {
		e.Tags = nil
	}
	if len(e.Aliases) == 0 {
		e.Aliases = nil
	}
	if exp, ok := r.EffectiveExpiry(); ok {
		e.Expires = exp.UnixMilli()
	}
	for _, l := range r.Links {
		e.Edges = append(e.Edges, Edge{Target: l.TargetID, Kind: l.Kind, Label: l.Label})
	}
	for _, l := range BodyLinks(r.Body) {
		e.Edges = append(e.Edges, Edge{Target: l.TargetID, Kind: l.Kind, Label: l.Label})
	}
	if r.Kind == kernel.KindRelation && r.From != "" && r.To != "" {
		// The typed edge belongs to its from record, not to the relation
		// record that carries it (Agent Kit: relations are records of their own).
		e.Edges = append(e.Edges, Edge{Source: r.From, Target: r.To, Kind: r.Relation})
	}
	return e
}

// BodyLinks are the wikilinks of a body as links of kind related, label
// kept, each target once (contract §2.3).
func BodyLinks(body string) []kernel.Link {
	if !strings.Contains(body, "[[") {
		return nil
	}
	links := wikilink.Extract([]byte(body))
	out := make([]kernel.Link, 0, len(links))
	seen := make(map[string]bool, len(links))
	for _, w := range links {
		if seen[w.Target] {
			continue
		}
		seen[w.Target] = true
		out = append(out, kernel.Link{TargetID: w.Target, Kind: kernel.LinkRelated, Label: w.Label})
	}
	return out
}

// The unguarded lookups below may panic with errCorruptIndex; the exported
// methods run them under guard.

func (ix *Index) entry(id string) *IndexEntry {
	if e, ok := ix.delta[id]; ok {
		return e
	}
	return ix.base.entry(id)
}

func (ix *Index) inDelta(id string) bool { _, ok := ix.delta[id]; return ok }

func (ix *Index) hasID(id string) bool {
	if e, ok := ix.delta[id]; ok {
		return e != nil
	}
	return ix.base.entryRow(id) >= 0
}

// aliasTarget: the smallest id holding the alias. The kernel never gives
// one alias to two records, but a merge or a hand edit can; the owner must
// then not depend on the order records were indexed in.
func (ix *Index) aliasTarget(a string) (string, bool) {
	owner := ""
	for _, id := range ix.base.tables[tabAliases].ids(a) {
		if !ix.inDelta(id) && (owner == "" || id < owner) {
			owner = id
		}
	}
	for _, id := range ix.dAlias[a] {
		if owner == "" || id < owner {
			owner = id
		}
	}
	return owner, owner != ""
}

func (ix *Index) idsWithPrefix(prefix string, limit int) []string {
	out := ix.base.idsWithPrefix(prefix, limit, func(id string) bool {
		e, ok := ix.delta[id]
		return ok && e == nil
	})
	for id, e := range ix.delta {
		if e != nil && strings.HasPrefix(id, prefix) && ix.base.entryRow(id) < 0 {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), limit)]
}

// idSet answers kernel.IDSet without guard, for use inside a guarded lookup.
type idSet struct{ ix *Index }

func (s idSet) HasID(id string) bool                       { return s.ix.hasID(id) }
func (s idSet) AliasTarget(a string) (string, bool)        { return s.ix.aliasTarget(a) }
func (s idSet) IDsWithPrefix(p string, limit int) []string { return s.ix.idsWithPrefix(p, limit) }

// resolveTarget maps a link end as written (id, alias or prefix) to an id;
// unresolvable and ambiguous ones stay as written (dangling).
func (ix *Index) resolveTarget(t string) string {
	if id, err := kernel.ResolveHandle(idSet{ix}, t); err == nil && id != "" {
		return id
	}
	return t
}

// HasID, AliasTarget and IDsWithPrefix make the index a kernel.IDSet.
func (ix *Index) HasID(id string) (ok bool) {
	ix.guard(func() { ok = ix.hasID(id) })
	return ok
}

func (ix *Index) AliasTarget(alias string) (id string, ok bool) {
	ix.guard(func() { id, ok = ix.aliasTarget(alias) })
	return id, ok
}

func (ix *Index) IDsWithPrefix(prefix string, limit int) (ids []string) {
	ix.guard(func() { ids = ix.idsWithPrefix(prefix, limit) })
	return ids
}

// Resolve applies the handle rules of Addendum H.
func (ix *Index) Resolve(handle string) (id string, err error) {
	ix.guard(func() { id, err = kernel.ResolveHandle(idSet{ix}, handle) })
	return id, err
}

// ShortHandle is the handle a listing prints for id (service.HandleFor):
// its shortest prefix of at least MinIDPrefix characters that Resolve
// turns back into id, or id itself. The loop HandleFor would run instead
// resolves each longer prefix in turn, three searches each (id, alias,
// prefix); here one search of the ids gives id's neighbours, and the
// longest prefix id shares with them, plus one, is the shortest one no
// other id starts with. One search of the aliases then shows whether any
// alias is a prefix of id (it would sort just before id): an alias
// resolves before a prefix does, so then, and when id or its neighbours
// are in the delta, ok is false and the caller takes the long way.
func (ix *Index) ShortHandle(id string) (h string, ok bool) {
	ix.guard(func() { h, ok = ix.shortHandle(id) })
	return h, ok
}

func (ix *Index) shortHandle(id string) (string, bool) {
	if len(id) <= 12 {
		return id, true // ShortID's whole id: HandleFor tries no prefix
	}
	if ix.inDelta(id) {
		return "", false
	}
	t := &ix.base.tables[tabIDs]
	i := t.search([]byte(id), idKey)
	if i >= t.n || string(t.near(i, i)) != id {
		return "", false
	}
	shared := 0 // the longest prefix id shares with another id
	for _, j := range [2]int{i - 1, i + 1} {
		if j < 0 || j >= t.n {
			continue
		}
		nb := t.near(j, i)
		if e, ok := ix.delta[string(nb)]; ok && e == nil {
			return "", false // removed: the next one would be the neighbour
		}
		shared = max(shared, commonPrefix(string(nb), id))
	}
	for did, e := range ix.delta {
		if e != nil {
			shared = max(shared, commonPrefix(did, id))
		}
	}
	// Any alias key that is a prefix of id sorts before id, and so does
	// every key between the two (each starts with that alias): the last
	// key before id shares at least MinIDPrefix characters with id if one
	// of MinIDPrefix or more does.
	at := &ix.base.tables[tabAliases]
	if p := at.search([]byte(id), pairKey); p > 0 && commonPrefix(string(pairKey(at.near(p-1, p))), id) >= kernel.MinIDPrefix {
		return "", false
	}
	if len(ix.dAlias) > 0 {
		for n := kernel.MinIDPrefix; n < len(id); n++ {
			if _, ok := ix.dAlias[id[:n]]; ok {
				return "", false
			}
		}
	}
	if n := max(kernel.MinIDPrefix, shared+1); n < len(id) {
		return id[:n], true
	}
	return id, true
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Entry returns the entry of the record with exactly this id, or nil.
func (ix *Index) Entry(id string) (e *IndexEntry) {
	ix.guard(func() { e = ix.entry(id) })
	return e
}

// Len is the number of records.
func (ix *Index) Len() (n int) {
	ix.guard(func() {
		// The header's count is the table's only if its last row ends
		// the table (a header edited with fewer rows would hide some).
		if n = ix.base.tables[tabEntries].n; n > 0 {
			ix.base.pointRow(tabEntries, n-1)
		}
		for id, e := range ix.delta {
			switch inBase := ix.base.entryRow(id) >= 0; {
			case e == nil && inBase:
				n--
			case e != nil && !inBase:
				n++
			}
		}
	})
	return n
}

// IDs lists every record id, sorted.
func (ix *Index) IDs() (ids []string) {
	ix.guard(func() {
		ids = ids[:0]
		ix.eachEntryID(func(id string) { ids = append(ids, id) })
	})
	return ids
}

// Each calls fn with every entry in id order until fn returns false.
func (ix *Index) Each(fn func(*IndexEntry) bool) { ix.EachAfter("", fn) }

// EachAfter calls fn with every entry whose id sorts after after, in id
// order, until fn returns false: a page of a listing resumes where the
// one before ended without walking the ids before it.
func (ix *Index) EachAfter(after string, fn func(*IndexEntry) bool) {
	seen := after
	ix.guard(func() {
		// A repaired rerun resumes after the last entry handed out.
		ix.walkAfter(seen, func(id string, row int, e *IndexEntry) bool {
			if e == nil {
				if e = ix.base.entryAt(row); e.ID != id {
					corrupt() // the ids table and the entry rows disagree
				}
			}
			seen = e.ID
			return fn(e)
		})
	})
}

// eachEntryID walks base ids and delta ids merged, in order, without
// decoding base entries.
func (ix *Index) eachEntryID(fn func(id string)) {
	ix.walk(func(id string, row int, e *IndexEntry) bool { fn(id); return true })
}

func (ix *Index) eachEntry(fn func(*IndexEntry) bool) {
	ix.walk(func(id string, row int, e *IndexEntry) bool {
		if e == nil {
			if e = ix.base.entryAt(row); e.ID != id {
				corrupt() // the ids table and the entry rows disagree
			}
		}
		return fn(e)
	})
}

// walk merges the base's entry rows with the delta's ids in id order; for
// a base row e is nil and row is its number.
func (ix *Index) walk(fn func(id string, row int, e *IndexEntry) bool) { ix.walkAfter("", fn) }

// walkAfter is walk of the ids that sort after after.
func (ix *Index) walkAfter(after string, fn func(id string, row int, e *IndexEntry) bool) {
	added := make([]string, 0, len(ix.delta))
	for id, e := range ix.delta {
		if e != nil && id > after {
			added = append(added, id)
		}
	}
	slices.Sort(added)
	t := &ix.base.tables[tabIDs]
	start := 0
	if after != "" {
		// The first row past after; its neighbour's check proves it.
		if start = t.search([]byte(after), idKey); start < t.n && string(t.row(start)) == after {
			start++
		}
	}
	j := 0
	for i := start; i < t.n; i++ {
		id := string(t.row(i))
		for ; j < len(added) && added[j] < id; j++ {
			if !fn(added[j], -1, ix.delta[added[j]]) {
				return
			}
		}
		if j < len(added) && added[j] == id {
			j++
		}
		if e, ok := ix.delta[id]; ok {
			if e == nil {
				continue
			}
			if !fn(id, -1, e) {
				return
			}
			continue
		}
		if !fn(id, i, nil) {
			return
		}
	}
	for ; j < len(added); j++ {
		if !fn(added[j], -1, ix.delta[added[j]]) {
			return
		}
	}
}

// resolvedEdge is one edge of a holder with both ends resolved.
type resolvedEdge struct {
	Source, Target, Kind, Label string
	relation                    bool // a relation record's typed edge: its Source is the from record
}

// edgesOf resolves a holder's edges: a frontmatter link and a body [[alias]]
// to the same record are one edge (the first, the frontmatter's with its
// label, stands); a relation record's edge starts at its from record.
func (ix *Index) edgesOf(e *IndexEntry) []resolvedEdge {
	out := make([]resolvedEdge, 0, len(e.Edges))
	seen := map[[2]string]bool{}
	for _, ed := range e.Edges {
		t := ix.resolveTarget(ed.Target)
		if ed.Source != "" {
			out = append(out, resolvedEdge{Source: ix.resolveTarget(ed.Source), Target: t, Kind: ed.Kind, Label: ed.Label, relation: true})
			continue
		}
		if key := [2]string{t, ed.Kind}; !seen[key] {
			seen[key] = true
			out = append(out, resolvedEdge{Source: e.ID, Target: t, Kind: ed.Kind, Label: ed.Label})
		}
	}
	return out
}

// handlesOf lists the link ends as written that resolve to id: the id, its
// aliases that it owns and that are no record's id, and its prefixes of at
// least MinIDPrefix characters that name it alone. Only the ones some edge
// uses (in tab, or in the delta's map) are returned.
func (ix *Index) handlesOf(id string, tab int, dmap map[string][]string) []string {
	inBase := ix.basePrefixKeys(tab, id)
	used := func(h string) bool { return len(dmap[h]) > 0 || inBase(h) }
	out := []string{id}
	if e := ix.entry(id); e != nil {
		for _, a := range e.Aliases {
			if used(a) && ix.resolveTarget(a) == id {
				out = append(out, a)
			}
		}
	}
	for n := kernel.MinIDPrefix; n < len(id); n++ {
		if p := id[:n]; used(p) && ix.resolveTarget(p) == id {
			out = append(out, p)
		}
	}
	return out
}

// basePrefixKeys reports which keys of tab that are id's prefixes of at
// least MinIDPrefix characters (and the aliases asked about) hold rows. The
// prefixes are found in one scan from the shortest, as their keys sort
// together before id's own rows: a listing asks this of every record, and
// a search per prefix length was most of its time. Ids that share a long
// prefix with many others (names, not random ids) could make that range
// long; past a few keys it falls back to a search per key.
func (ix *Index) basePrefixKeys(tab int, id string) func(h string) bool {
	t := &ix.base.tables[tab]
	search := func(h string) bool {
		i := t.search([]byte(h), pairKey)
		return i < t.n && string(pairKey(t.near(i, i))) == h
	}
	if len(id) <= kernel.MinIDPrefix {
		return search
	}
	shortest := id[:kernel.MinIDPrefix]
	found := map[string]bool{}
	const maxKeys = 16
	i := t.search([]byte(shortest), pairKey)
	for n := 0; i < t.n; n++ {
		if n == maxKeys {
			return search
		}
		k := pairKey(t.near(i, i))
		if string(k) >= id || !bytes.HasPrefix(k, []byte(shortest)) {
			break
		}
		if strings.HasPrefix(id, string(k)) {
			found[string(k)] = true
		}
		i = t.search(append(slices.Clip(k), 0), pairKey) // past this key's rows
	}
	return func(h string) bool {
		if len(h) >= kernel.MinIDPrefix && len(h) < len(id) && strings.HasPrefix(id, h) {
			return found[h]
		}
		return search(h) // an alias, or id itself
	}
}

// holders lists, sorted, the records with an edge keyed (in tab) by one
// of the handles.
func (ix *Index) holders(handles []string, tab int, dmap map[string][]string) []string {
	var out []string
	for _, h := range handles {
		for _, id := range ix.base.tables[tab].ids(h) {
			if !ix.inDelta(id) {
				out = append(out, id)
			}
		}
		out = append(out, dmap[h]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Forward returns the outbound edges of id, targets resolved to ids: its
// own links and the typed edges of relation records whose from is id.
func (ix *Index) Forward(id string) (out []Edge) {
	ix.guard(func() { out = ix.forward(id) })
	return out
}

func (ix *Index) forward(id string) []Edge {
	e := ix.entry(id)
	if e == nil {
		return nil
	}
	out := make([]Edge, 0, len(e.Edges))
	for _, ed := range ix.edgesOf(e) {
		if !ed.relation {
			out = append(out, Edge{Target: ed.Target, Kind: ed.Kind, Label: ed.Label})
		}
	}
	for _, h := range ix.holders(ix.handlesOf(id, tabSources, ix.dSource), tabSources, ix.dSource) {
		if he := ix.entry(h); he != nil {
			for _, ed := range ix.edgesOf(he) {
				if ed.relation && ed.Source == id {
					out = append(out, Edge{Target: ed.Target, Kind: ed.Kind, Label: ed.Label})
				}
			}
		}
	}
	return out
}

// Reverse returns the inbound edges of id (backlinks), sources sorted.
// A target that is no record (a dangling link) has backlinks too.
func (ix *Index) Reverse(id string) (out []Edge) {
	ix.guard(func() { out, _ = ix.reverse(id, false) })
	if len(out) == 0 {
		return nil
	}
	return out
}

// Backlink is a reverse edge with the title of its source as the index
// has it (Titled false: the source is no record, or a relation's from
// whose title was not read).
type Backlink struct {
	Edge
	Title  string
	Titled bool
}

// handlesTo lists every link end as written that resolves to id; nil when
// id is a name for another record (no edge resolves to it).
func (ix *Index) handlesTo(id string) []string {
	if ix.hasID(id) {
		return ix.handlesOf(id, tabTargets, ix.dTarget)
	}
	if ix.resolveTarget(id) != id {
		return nil
	}
	return []string{id} // a dangling target has backlinks too
}

// inbound is one edge to a record, found under one of its handles: its
// fields in the file's bytes, in a read buffer's (EachBacklink), or the
// delta's.
type inbound struct {
	holder, source, kind, label, title []byte
	index                              int
}

// eachInbound calls fn with every edge whose target as written is one of
// handles: the base's edge rows (read in place, never the holders' entry
// rows) of holders the delta does not replace, then the delta's holders.
// fn returns false to stop.
func (ix *Index) eachInbound(handles []string, fn func(e inbound) bool) {
	t := &ix.base.tables[tabTargets]
	for _, h := range handles {
		first := t.search([]byte(h), pairKey)
		for i := first; i < t.n; i++ {
			r := parseEdgeRow(t.near(i, first))
			if string(r.target) != h {
				break
			}
			if len(ix.delta) > 0 && ix.inDelta(string(r.holder)) {
				continue
			}
			if !fn(inbound{holder: r.holder, index: int(r.index), source: r.source, kind: r.kind, label: r.label, title: r.title}) {
				return
			}
		}
		for _, hid := range ix.dTarget[h] {
			e := ix.delta[hid]
			for i, ed := range e.Edges {
				if ed.Target == h && !fn(inbound{holder: []byte(hid), index: i, source: []byte(ed.Source), kind: []byte(ed.Kind), label: []byte(ed.Label), title: []byte(e.Title)}) {
					return
				}
			}
		}
	}
}

// backlinks is reverse's rule for which inbound edges are backlinks of
// their own, applied to the edges given in their holders' order and each
// holder's edges in its own order.
type backlinks struct {
	kinds  []string // of the holder's edges to id, but relations'
	holder []byte   // the edge before's, a copy: e's bytes may be a read buffer's
	index  int
	n      int
	kindOf map[string]string
}

// add reports whether e is a backlink of its own: not an edge listed
// again, nor a holder's second edge of one kind (a frontmatter link and a
// body [[alias]] to the same record are one edge: the first stands, as in
// edgesOf). A relation's edge always is.
func (b *backlinks) add(e inbound) bool {
	if b.n > 0 && e.index == b.index && string(e.holder) == string(b.holder) {
		return false // one edge, listed once per holder even if twice in the file
	}
	if b.n == 0 || string(e.holder) != string(b.holder) {
		b.kinds = b.kinds[:0]
		b.holder = append(b.holder[:0], e.holder...)
	}
	b.index, b.n = e.index, b.n+1
	if len(e.source) > 0 { // a relation's edge starts at its from record
		return true
	}
	if k := b.kind(e.kind); !slices.Contains(b.kinds, k) {
		b.kinds = append(b.kinds, k)
		return true
	}
	return false
}

// kind is the string of a kind: the kinds are few, each one string, not
// one a row.
func (b *backlinks) kind(p []byte) string {
	k, ok := b.kindOf[string(p)]
	if !ok {
		if b.kindOf == nil {
			b.kindOf = map[string]string{}
		}
		k = string(p)
		b.kindOf[k] = k
	}
	return k
}

// reverse returns the inbound edges of id and, withTitles, their
// sources' titles as the edge rows have them (OK false for a relation's
// from, whose title the rows do not carry).
func (ix *Index) reverse(id string, withTitles bool) (edges []Edge, titles []EndTitle) {
	handles := ix.handlesTo(id)
	if handles == nil {
		return nil, nil
	}
	// An edge points at id exactly when its target as written is one of
	// the handles; only a relation's from is resolved.
	//
	// The rows' strings are copied into one builder that each edge's
	// strings are slices of (a Builder never moves what it has written):
	// a hub's 10,000 rows cost one allocation, not four or five each, and
	// no copy of it. A process does not collect its garbage before 64 MiB
	// (cmdutil.Execute), so every byte allocated here is a page faulted
	// in: the edges go straight to the answer, through no slice between.
	n, size := 0, 0
	ix.eachInbound(handles, func(e inbound) bool {
		n, size = n+1, size+len(e.holder)+len(e.source)+len(e.label)+len(e.title)
		return true
	})
	var sb strings.Builder
	sb.Grow(size)
	str := func(p []byte) string {
		if len(p) == 0 {
			return ""
		}
		at := sb.Len()
		sb.Write(p)
		return sb.String()[at:]
	}
	var b backlinks
	edges = make([]Edge, 0, n)
	if withTitles {
		titles = make([]EndTitle, 0, n)
	}
	add := func(e inbound) {
		if !b.add(e) {
			return
		}
		if len(e.source) > 0 {
			edges = append(edges, Edge{Source: ix.resolveTarget(string(e.source)), Kind: b.kind(e.kind), Label: str(e.label)})
			if withTitles {
				titles = append(titles, EndTitle{})
			}
			return
		}
		edges = append(edges, Edge{Source: str(e.holder), Kind: b.kind(e.kind), Label: str(e.label)})
		if withTitles {
			titles = append(titles, EndTitle{Text: str(e.title), OK: true})
		}
	}
	// The rows of one handle in the base come in their holders' order,
	// and each holder's edges in its own order: they are added as read.
	// Found under several handles, or some in the delta, they are sorted
	// first.
	if len(handles) == 1 && len(ix.dTarget[handles[0]]) == 0 {
		ix.eachInbound(handles, func(e inbound) bool {
			add(e)
			return true
		})
		return edges, titles
	}
	in := make([]inbound, 0, n)
	ix.eachInbound(handles, func(e inbound) bool {
		in = append(in, e)
		return true
	})
	slices.SortStableFunc(in, func(a, b inbound) int {
		if c := bytes.Compare(a.holder, b.holder); c != 0 {
			return c
		}
		return a.index - b.index
	})
	for _, e := range in {
		add(e)
	}
	return edges, titles
}

// EachBacklink calls fn with each backlink of id and its source's title,
// as ReverseTitled gives them, one at a time, when the index can give
// them so in their sources' order: id has one handle as written and no
// relation's edge links to it (the base's rows then come sorted by
// holder, and the delta's holders are merged in by id). Otherwise it
// returns false and calls fn never: the caller takes ReverseTitled.
//
// The edge rows are read with pread, a piece at a time, into one buffer,
// and the strings fn is given are views of it, valid only during the call
// (fn must copy what it keeps). A hub's 10,000 backlinks were 2 MB of
// fresh memory as ReverseTitled's slices and the builder of their
// strings, each page of it a fault (20-45 us on a VM); here they are one
// buffer of at most 32 KiB. Every row is read and checked (its checksum,
// its holder's order) before fn is first called, so that a damaged file
// is rebuilt before a line is given, not after half of them.
func (ix *Index) EachBacklink(id string, fn func(Edge, EndTitle)) (streamed bool, err error) {
	given := false
	ix.guard(func() {
		streamed = false
		if given {
			// Damaged between the check and the reading (the file is
			// replaced by rename, never rewritten): what was given stands.
			err = kernel.Errorf(kernel.CodeInternal, "the index file changed while it was read; run the command again")
			return
		}
		handles := ix.handlesTo(id)
		if handles == nil {
			streamed = true
			return
		}
		h := handles[0]
		if len(handles) != 1 {
			return
		}
		// The delta's holders of edges to h, in the order of their ids
		// (dTarget lists a holder once per edge), merged below with the
		// base's rows, whose own holders in the delta are left out.
		hids := slices.Clone(ix.dTarget[h])
		slices.Sort(hids)
		var changed []inbound
		for _, hid := range slices.Compact(hids) {
			e := ix.delta[hid]
			for i, ed := range e.Edges {
				if ed.Target != h {
					continue
				}
				if ed.Source != "" {
					return // a relation's edge: its end is its from, out of order
				}
				changed = append(changed, inbound{holder: []byte(hid), index: i, kind: []byte(ed.Kind), label: []byte(ed.Label), title: []byte(e.Title)})
			}
		}
		var buf []byte
		rows := func(fn func(r *edgeRow) bool) {
			t := &ix.base.tables[tabTargets]
			ix.base.eachRow(tabTargets, t.search([]byte(h), pairKey), &buf, func(p []byte) bool {
				r := parseEdgeRow(p)
				if string(r.target) != h {
					return false
				}
				if len(ix.delta) > 0 && ix.inDelta(string(r.holder)) {
					return true
				}
				return fn(&r)
			})
		}
		var last []byte
		ok := true
		rows(func(r *edgeRow) bool {
			if len(r.source) > 0 {
				ok = false // a relation's edge: its end is its from, out of order
				return false
			}
			if bytes.Compare(r.holder, last) < 0 {
				corrupt() // the rows were written sorted by holder
			}
			last = append(last[:0], r.holder...)
			return true
		})
		if !ok {
			return
		}
		var b backlinks
		give := func(e inbound) {
			if b.add(e) {
				given = true
				fn(Edge{Source: bufString(e.holder), Kind: b.kind(e.kind), Label: bufString(e.label)}, EndTitle{Text: bufString(e.title), OK: true})
			}
		}
		rows(func(r *edgeRow) bool {
			for len(changed) > 0 && bytes.Compare(changed[0].holder, r.holder) < 0 {
				give(changed[0])
				changed = changed[1:]
			}
			give(inbound{holder: r.holder, index: int(r.index), kind: r.kind, label: r.label, title: r.title})
			return true
		})
		for _, e := range changed {
			give(e)
		}
		streamed = true
	})
	return streamed, err
}

// bufString is a view of p as a string, without a copy: for strings given
// to a callback that may not keep them, p being a buffer read again.
func bufString(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	return unsafe.String(&p[0], len(p))
}

// Backlinks is Reverse with the title of each source: from the edge rows
// for a record's own links (no entry row is read), from the entry of a
// relation's from record.
func (ix *Index) Backlinks(id string) (out []Backlink) {
	edges, titles := ix.ReverseTitled(id)
	if len(edges) > 0 {
		out = make([]Backlink, len(edges))
		for i := range edges {
			out[i] = Backlink{Edge: edges[i], Title: titles[i].Text, Titled: titles[i].OK}
		}
	}
	return out
}

// ReverseTitled is Backlinks as two slices, edge by edge: what a link
// listing keeps (View.Links), built without a slice between.
func (ix *Index) ReverseTitled(id string) (edges []Edge, titles []EndTitle) {
	ix.guard(func() {
		edges, titles = ix.reverse(id, true)
		for i := range titles {
			if t := &titles[i]; !t.OK {
				t.Text, t.OK = ix.title(edges[i].Source)
			}
		}
	})
	return edges, titles
}

// HasBacklink reports whether some edge of this kind points at id (is it
// superseded?), reading the kinds of its edge rows in place and stopping
// at the first: a hub's 10,000 backlinks are not listed to answer it.
//
// Of kind supersedes (a listing asks it of every record it prints) it
// reads the supersedes table, which holds those edges alone, not the edge
// rows of every kind: the searches of a record's handles there touch a
// few pages, where in the edge rows (14 MB at 100,000 records) each of
// their probes faulted one in.
func (ix *Index) HasBacklink(id, kind string) (found bool) {
	ix.guard(func() {
		found = false
		if kind == kernel.LinkSupersedes {
			found = ix.hasSupersedes(id)
			return
		}
		if handles := ix.handlesTo(id); handles != nil {
			ix.eachInbound(handles, func(e inbound) bool {
				found = string(e.kind) == kind
				return !found
			})
		}
	})
	return found
}

// hasSupersedes is HasBacklink(id, supersedes) read from the supersedes
// table and the delta: handlesTo's handles, as that table uses them.
func (ix *Index) hasSupersedes(id string) bool {
	var handles []string
	switch {
	case ix.hasID(id):
		handles = ix.handlesOf(id, tabSupersedes, ix.dTarget)
	case ix.resolveTarget(id) == id:
		handles = []string{id} // a dangling target has backlinks too
	}
	t := &ix.base.tables[tabSupersedes]
	for _, h := range handles {
		first := t.search([]byte(h), pairKey)
		for i := first; i < t.n; i++ {
			k, holder := pair(t.near(i, first))
			if string(k) != h {
				break
			}
			if !ix.inDelta(string(holder)) {
				return true
			}
		}
		for _, hid := range ix.dTarget[h] {
			for _, ed := range ix.delta[hid].Edges {
				if ed.Target == h && ed.Kind == kernel.LinkSupersedes {
					return true
				}
			}
		}
	}
	return false
}

// Title returns the title of the record with exactly this id, reading only
// that much of its entry.
func (ix *Index) Title(id string) (title string, ok bool) {
	ix.guard(func() { title, ok = ix.title(id) })
	return title, ok
}

func (ix *Index) title(id string) (string, bool) {
	if e, inDelta := ix.delta[id]; inDelta {
		if e == nil {
			return "", false
		}
		return e.Title, true
	}
	if row := ix.base.entryRow(id); row >= 0 {
		p := ix.base.pointRow(tabEntries, row)
		if string(entryID(p)) != id {
			corrupt() // the ids table and the entry rows disagree
		}
		return rowTitle(p), true
	}
	return "", false
}
