package kernel_test

import (
	"sort"
	"strings"

	"github.com/git-records/git-records/kernel"
)

// memView is the smallest honest View: a map of records. The alias map is
// derived from the records' own aliases (the source of truth, H.5) and ids
// are found by prefix with a plain scan. Unlike kernel/memstore (a whole store,
// which hands out copies), it gives ops the very records it holds, so the
// fixture's snapshot can show that an op never edits what it read.
type memView struct {
	records map[string]*kernel.Record
}

func newMemView(rs ...*kernel.Record) *memView {
	v := &memView{records: map[string]*kernel.Record{}}
	v.put(rs...)
	return v
}

// put stores records as a mutation's writes would land on the next tip.
func (v *memView) put(rs ...*kernel.Record) {
	for _, r := range rs {
		v.records[r.ID] = r
	}
}

// commit lands a mutation's writes; a nil mutation (an idempotent no-op) writes nothing.
func (v *memView) commit(m *kernel.Mutation) {
	if m != nil {
		v.put(m.Writes...)
	}
}

func (v *memView) Record(id string) (*kernel.Record, error) { return v.records[id], nil }

func (v *memView) Resolve(handle string) (string, error) { return kernel.ResolveHandle(v, handle) }

func (v *memView) AliasOwner(alias string) (string, error) {
	id, _ := v.AliasTarget(alias)
	return id, nil
}

func (v *memView) HasID(id string) bool { return v.records[id] != nil }

func (v *memView) AliasTarget(alias string) (string, bool) {
	for _, id := range v.sortedIDs() {
		for _, a := range v.records[id].Aliases {
			if a == alias {
				return id, true
			}
		}
	}
	return "", false
}

func (v *memView) IDsWithPrefix(prefix string, limit int) []string {
	var out []string
	for _, id := range v.sortedIDs() {
		if strings.HasPrefix(id, prefix) && len(out) < limit {
			out = append(out, id)
		}
	}
	return out
}

func (v *memView) sortedIDs() []string {
	ids := make([]string, 0, len(v.records))
	for id := range v.records {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

var (
	_ kernel.View  = (*memView)(nil)
	_ kernel.IDSet = (*memView)(nil)
)
