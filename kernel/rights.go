package kernel

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Right is one thing a commit needs the policy to allow: an op on a
// record of a type in a category. A store-level op (policy, init, merge)
// needs it with no record.
type Right struct {
	Op       Op     `json:"op"`
	Type     string `json:"type,omitempty"`
	Category string `json:"category,omitempty"`
	Record   string `json:"record,omitempty"`
}

func (r Right) String() string {
	if r.Record == "" {
		return string(r.Op) + " the store"
	}
	return fmt.Sprintf("%s %s %s in %s", r.Op, r.Type, r.Record, r.Category)
}

// lifecycleLinks are the link kinds with lifecycle meaning, and the op
// that has that meaning: a supersedes link makes its target superseded
// however it was added, so adding one needs the supersede right.
var lifecycleLinks = map[string]Op{
	LinkSupersedes: OpSupersede,
	LinkProposes:   OpPropose,
}

// RequiredRights says which rights a commit of op making changes needs:
// the op on every record it changes, as the record was (its old type and
// category) and as it becomes, so a record cannot be moved out of a
// category the principal may not change; and, for every edge it adds whose
// kind has lifecycle meaning (newLifecycleEdges: a frontmatter link, or a
// relation record's typed edge), that lifecycle op's right on the record
// holding it and on the records it joins (as before has them; before may
// be nil). The CLI's gate and verify both ask the policy about each.
func RequiredRights(op Op, changes []RecordChange, before View) []Right {
	n := newNeededRights(op, before)
	for _, c := range changes {
		n.add(c)
	}
	return n.list()
}

// neededRights are the rights of RequiredRights gathered one change at a
// time, kept compact for a commit of many records: each scope (op, type,
// category) once, as the policy decides it, and which record asks for it.
type neededRights struct {
	op     Op
	before View
	// scopes are the distinct scopes in the order first asked, each with
	// the first record asking for it.
	scopes  []Right
	scopeOf map[Right]int32 // a scope (no record) -> its place in scopes
	// asks are in the order asked; a repeated one is dropped by done.
	asks []rightAsk
}

// rightAsk is one record's need of a scope (scopes[scope]).
type rightAsk struct {
	scope  int32
	record string
}

func newNeededRights(op Op, before View) *neededRights {
	return &neededRights{op: op, before: before, scopeOf: map[Right]int32{}}
}

func (n *neededRights) need(r Right) {
	record := r.Record
	r.Record = ""
	i, ok := n.scopeOf[r]
	if !ok {
		i = int32(len(n.scopes))
		n.scopeOf[r] = i
		first := r
		first.Record = record
		n.scopes = append(n.scopes, first)
	}
	n.asks = append(n.asks, rightAsk{i, record})
}

// add gathers the rights change c needs.
func (n *neededRights) add(c RecordChange) {
	op, before := n.op, n.before
	if op == OpMigrate {
		return // see list
	}
	recordOp := op
	var versions []*Record
	for _, r := range []*Record{c.Old, c.New} {
		if r != nil {
			versions = append(versions, r)
		}
	}
	changeOp := recordOp
	if op == OpImport {
		// An import creates its records and updates those a new
		// version of their note changes: it needs those rights.
		changeOp = OpUpdate
		if c.Added() {
			changeOp = OpCreate
		}
	}
	if op == OpCompact {
		// A compaction creates its rollup and retires what it rolls up:
		// it needs the rights of those ops.
		changeOp = OpRetire
		if c.Added() {
			changeOp = OpCreate
		}
	}
	if len(versions) == 0 {
		n.need(Right{Op: changeOp, Type: c.Type, Record: c.ID})
		return
	}
	for _, r := range versions {
		n.need(Right{Op: changeOp, Type: r.Type, Category: r.Category, Record: c.ID})
	}
	if c.New == nil {
		return
	}
	if c.Added() && c.New.EffectiveStatus() != StatusActive {
		// A record born implemented or retired is a retire as well.
		n.need(Right{Op: OpRetire, Type: c.New.Type, Category: c.New.Category, Record: c.ID})
	}
	for _, e := range newLifecycleEdges(c.Old, c.New) {
		lop := lifecycleLinks[e.kind]
		if lop == recordOp {
			continue
		}
		for _, r := range versions {
			n.need(Right{Op: lop, Type: r.Type, Category: r.Category, Record: c.ID})
		}
		if before == nil {
			continue
		}
		for _, end := range e.ends {
			// A hand-written link may name its target by alias or prefix.
			id, err := before.Resolve(end)
			if err != nil || id == "" {
				continue
			}
			rec, err := before.Record(id)
			if err == nil && rec != nil {
				n.need(Right{Op: lop, Type: rec.Type, Category: rec.Category, Record: rec.ID})
			}
		}
	}
}

// done completes the rights once every change is added: a migration
// needs the policy right alone, a commit that changes no record the op's
// right on the store.
func (n *neededRights) done() {
	if n.op == OpMigrate {
		// A migration rewrites the store's format: a store-level change,
		// with the policy right (its records are replayed by verify).
		*n = *newNeededRights(n.op, n.before)
		n.need(Right{Op: OpPolicy})
		return
	}
	if len(n.asks) == 0 {
		n.need(Right{Op: n.op})
	}
	n.asks = firstAsks(n.asks)
}

// firstAsks is asks with each ask kept where it is first made: found by
// sorting their places (no set of every ask is held, for a commit of many
// records).
func firstAsks(asks []rightAsk) []rightAsk {
	at := make([]int32, len(asks))
	for i := range at {
		at[i] = int32(i)
	}
	slices.SortFunc(at, func(x, y int32) int {
		a, b := asks[x], asks[y]
		return cmp.Or(cmp.Compare(a.scope, b.scope), strings.Compare(a.record, b.record), cmp.Compare(x, y))
	})
	repeated := map[int32]bool{}
	for k := 1; k < len(at); k++ {
		if asks[at[k]] == asks[at[k-1]] {
			repeated[at[k]] = true
		}
	}
	if len(repeated) == 0 {
		return asks
	}
	out := asks[:0]
	for i, a := range asks {
		if !repeated[int32(i)] {
			out = append(out, a)
		}
	}
	return out
}

// list is every right, in the order asked.
func (n *neededRights) list() []Right {
	n.done()
	out := make([]Right, len(n.asks))
	for i, a := range n.asks {
		out[i] = n.scopes[a.scope]
		out[i].Record = a.record
	}
	return out
}

// lifecycleEdge is an edge with lifecycle meaning a record holds: its kind
// (a key of lifecycleLinks) and the handles of the records it joins besides
// its holder (a link's target; a relation's from and to).
type lifecycleEdge struct {
	kind string
	ends []string
}

// newLifecycleEdges are the edges with lifecycle meaning r holds that old
// (its previous version, or nil) did not. The index reads a relation
// record's from/to/relation as an edge of its from record
// (gitstore entryOf), so a relation whose relation, or whose namespaced
// relation's maps_to, is supersedes supersedes its to as a link would.
// Body wikilinks are always of kind related and carry no such meaning.
func newLifecycleEdges(old, r *Record) []lifecycleEdge {
	if r == nil {
		return nil
	}
	var out []lifecycleEdge
	had := map[linkKey]bool{}
	if old != nil {
		for _, l := range old.Links {
			had[keyOf(l)] = true
		}
	}
	for _, l := range r.Links {
		if _, ok := lifecycleLinks[l.Kind]; ok && !had[keyOf(l)] {
			out = append(out, lifecycleEdge{kind: l.Kind, ends: []string{l.TargetID}})
		}
	}
	if kind := relationLifecycle(r); kind != "" {
		if old == nil || relationLifecycle(old) != kind || old.From != r.From || old.To != r.To {
			out = append(out, lifecycleEdge{kind: kind, ends: []string{r.From, r.To}})
		}
	}
	return out
}

// relationLifecycle is the lifecycle kind a relation record's edge has:
// its relation, or the core relation a namespaced one maps to, when that
// has lifecycle meaning; "" otherwise.
func relationLifecycle(r *Record) string {
	if r.Kind != KindRelation || r.From == "" || r.To == "" {
		return ""
	}
	for _, kind := range []string{r.Relation, r.MapsTo} {
		if _, ok := lifecycleLinks[kind]; ok {
			return kind
		}
	}
	return ""
}
