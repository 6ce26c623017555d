package gitstore

import (
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// indexVersion changes whenever the cached form changes; an old cache is
// then rebuilt instead of misread.
const indexVersion = 3

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
	Expires                   int64 // unix ms of effective expiry, 0 = none
	Blob                      plumbing.Hash
	// Edges are the record's outbound links: frontmatter links, body
	// wikilinks (kind related, target as written) and, for a relation
	// record, its from→to edge.
	Edges []Edge
}

// Index is the derived graph and lookup index of one tip. It is a cache:
// the branch is the truth, and Reindex rebuilds it.
type Index struct {
	Tip     plumbing.Hash
	Entries map[string]*IndexEntry

	aliases   map[string]string // slug -> id
	sorted    []string          // ids, sorted, for prefix lookups; nil until needed, then kept in step
	reverse   map[string][]Edge // target id -> inbound edges; nil until needed
	relations map[string][]Edge // from id -> typed edges of relation records; with reverse
}

func newIndex() *Index {
	return &Index{Entries: map[string]*IndexEntry{}, aliases: map[string]string{}}
}

// entryOf derives the index entry of a decoded record.
func entryOf(r *kernel.Record, blob plumbing.Hash) *IndexEntry {
	e := &IndexEntry{ID: r.ID, Type: r.Type, Category: r.Category, Title: r.Title, Status: r.EffectiveStatus(),
		Kind: r.Kind, Role: r.Role, Authority: r.Authority, Tags: r.Tags, Aliases: r.Aliases,
		CreatedAt: r.CreatedAt.UnixMilli(), Blob: blob}
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

func (ix *Index) put(e *IndexEntry) {
	old := ix.Entries[e.ID]
	if old == nil && ix.sorted != nil {
		i := sort.SearchStrings(ix.sorted, e.ID)
		ix.sorted = slices.Insert(ix.sorted, i, e.ID)
	}
	ix.Entries[e.ID] = e
	if old != nil {
		ix.dropAliases(old, e.Aliases)
	}
	for _, a := range e.Aliases {
		ix.claimAlias(a, e.ID)
	}
	ix.reverse, ix.relations = nil, nil
}

func (ix *Index) remove(id string) {
	if old := ix.Entries[id]; old != nil {
		delete(ix.Entries, id)
		ix.dropAliases(old, nil)
		if i := sort.SearchStrings(ix.sorted, id); i < len(ix.sorted) && ix.sorted[i] == id {
			ix.sorted = slices.Delete(ix.sorted, i, i+1)
		}
		ix.reverse, ix.relations = nil, nil
	}
}

// claimAlias gives alias a to id unless a smaller id holds it. The kernel
// never gives one alias to two records, but a merge or a hand edit can; the
// owner must then not depend on the order records were indexed in, or a
// handle would resolve differently from one cache to the next.
func (ix *Index) claimAlias(a, id string) {
	if cur, ok := ix.aliases[a]; !ok || id <= cur {
		ix.aliases[a] = id
	}
}

// dropAliases releases the aliases e held and keep does not; one that
// another record also holds passes to it (a scan, but only when an alias
// is given up, which no op does).
func (ix *Index) dropAliases(e *IndexEntry, keep []string) {
	for _, a := range e.Aliases {
		if ix.aliases[a] != e.ID || containsString(keep, a) {
			continue
		}
		delete(ix.aliases, a)
		for id, other := range ix.Entries {
			if containsString(other.Aliases, a) {
				ix.claimAlias(a, id)
			}
		}
	}
}

// HasID, AliasTarget and IDsWithPrefix make the index a kernel.IDSet.
func (ix *Index) HasID(id string) bool { _, ok := ix.Entries[id]; return ok }

func (ix *Index) AliasTarget(alias string) (string, bool) {
	id, ok := ix.aliases[alias]
	return id, ok
}

func (ix *Index) IDsWithPrefix(prefix string, limit int) []string {
	if ix.sorted == nil {
		ix.sorted = make([]string, 0, len(ix.Entries))
		for id := range ix.Entries {
			ix.sorted = append(ix.sorted, id)
		}
		sort.Strings(ix.sorted)
	}
	var out []string
	for i := sort.SearchStrings(ix.sorted, prefix); i < len(ix.sorted) && strings.HasPrefix(ix.sorted[i], prefix) && len(out) < limit; i++ {
		out = append(out, ix.sorted[i])
	}
	return out
}

// Resolve applies the handle rules of Addendum H.
func (ix *Index) Resolve(handle string) (string, error) { return kernel.ResolveHandle(ix, handle) }

// resolveTarget maps a link target as written (id, alias or prefix) to an
// id; unresolvable and ambiguous targets stay as written (dangling).
func (ix *Index) resolveTarget(t string) string {
	if id, err := ix.Resolve(t); err == nil && id != "" {
		return id
	}
	return t
}

// Forward returns the outbound edges of id, targets resolved to ids: its
// own links and the typed edges of relation records whose from is id.
func (ix *Index) Forward(id string) []Edge {
	e := ix.Entries[id]
	if e == nil {
		return nil
	}
	ix.derive()
	out := make([]Edge, 0, len(e.Edges))
	seen := map[[2]string]bool{}
	for _, ed := range e.Edges {
		if ed.Source != "" {
			continue // a relation record's edge: listed under its from record
		}
		ed.Target = ix.resolveTarget(ed.Target)
		// A frontmatter link and a body [[alias]] to the same record are one
		// edge; the first (the frontmatter's, with its label) stands.
		if key := [2]string{ed.Target, ed.Kind}; !seen[key] {
			seen[key] = true
			out = append(out, ed)
		}
	}
	return append(out, ix.relations[id]...)
}

// Reverse returns the inbound edges of id (backlinks), sources sorted.
func (ix *Index) Reverse(id string) []Edge {
	ix.derive()
	return ix.reverse[id]
}

// derive builds the backlinks and the relation edges by source, once per
// index version (put and remove reset them).
func (ix *Index) derive() {
	if ix.reverse != nil {
		return
	}
	ix.reverse, ix.relations = map[string][]Edge{}, map[string][]Edge{}
	ids := make([]string, 0, len(ix.Entries))
	for src := range ix.Entries {
		ids = append(ids, src)
	}
	sort.Strings(ids)
	for _, holder := range ids {
		seen := map[[2]string]bool{} // as in Forward: one edge per (target, kind)
		for _, ed := range ix.Entries[holder].Edges {
			src := holder
			t := ix.resolveTarget(ed.Target)
			key := [2]string{t, ed.Kind}
			if ed.Source == "" && seen[key] {
				continue
			}
			seen[key] = ed.Source == "" || seen[key]
			if ed.Source != "" {
				src = ix.resolveTarget(ed.Source)
				ix.relations[src] = append(ix.relations[src], Edge{Target: t, Kind: ed.Kind, Label: ed.Label})
			}
			ix.reverse[t] = append(ix.reverse[t], Edge{Source: src, Kind: ed.Kind, Label: ed.Label})
		}
	}
}
