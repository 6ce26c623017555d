package kernel

import "fmt"

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
	if op == OpMigrate {
		// A migration rewrites the store's format: a store-level change,
		// with the policy right (its records are replayed by verify).
		return []Right{{Op: OpPolicy}}
	}
	recordOp := op
	var out []Right
	seen := map[Right]bool{}
	need := func(r Right) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, c := range changes {
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
			need(Right{Op: changeOp, Type: c.Type, Record: c.ID})
			continue
		}
		for _, r := range versions {
			need(Right{Op: changeOp, Type: r.Type, Category: r.Category, Record: c.ID})
		}
		if c.New == nil {
			continue
		}
		if c.Added() && c.New.EffectiveStatus() != StatusActive {
			// A record born implemented or retired is a retire as well.
			need(Right{Op: OpRetire, Type: c.New.Type, Category: c.New.Category, Record: c.ID})
		}
		for _, e := range newLifecycleEdges(c.Old, c.New) {
			lop := lifecycleLinks[e.kind]
			if lop == recordOp {
				continue
			}
			for _, r := range versions {
				need(Right{Op: lop, Type: r.Type, Category: r.Category, Record: c.ID})
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
					need(Right{Op: lop, Type: rec.Type, Category: rec.Category, Record: rec.ID})
				}
			}
		}
	}
	if len(out) == 0 {
		need(Right{Op: op})
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
