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
var lifecycleLinks = lazy[map[string]Op]{build: func() map[string]Op {
	return map[string]Op{
		LinkSupersedes: OpSupersede,
		LinkProposes:   OpPropose,
	}
}}

// RequiredRights says which rights a commit of op making changes needs:
// the op on every record it changes, as the record was (its old type and
// category) and as it becomes, so a record cannot be moved out of a
// category the principal may not change; and, for every link it adds whose
// kind has lifecycle meaning, that lifecycle op's right on the record
// holding the link and on its target (as before has it; before may be
// nil). The CLI's gate and verify both ask the policy about each.
func RequiredRights(op Op, changes []RecordChange, before View) []Right {
	// An import creates its records: it needs what a create of each
	// needs, so it cannot create what a create could not.
	if op == OpMigrate {
		// A migration rewrites the store's format: a store-level change,
		// with the policy right (its records are replayed by verify).
		return []Right{{Op: OpPolicy}}
	}
	recordOp := op
	if op == OpImport {
		recordOp = OpCreate
	}
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
		had := map[linkKey]bool{}
		if c.Old != nil {
			for _, l := range c.Old.Links {
				had[keyOf(l)] = true
			}
		}
		for _, l := range c.New.Links {
			lop, ok := lifecycleLinks.get()[l.Kind]
			if !ok || lop == recordOp || had[keyOf(l)] {
				continue
			}
			for _, r := range versions {
				need(Right{Op: lop, Type: r.Type, Category: r.Category, Record: c.ID})
			}
			if before == nil {
				continue
			}
			// A hand-written link may name its target by alias or prefix.
			id, err := before.Resolve(l.TargetID)
			if err != nil || id == "" {
				continue
			}
			target, err := before.Record(id)
			if err == nil && target != nil {
				need(Right{Op: lop, Type: target.Type, Category: target.Category, Record: target.ID})
			}
		}
	}
	if len(out) == 0 {
		need(Right{Op: op})
	}
	return out
}
