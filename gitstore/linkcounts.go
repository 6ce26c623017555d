package gitstore

import "github.com/git-records/git-records/kernel"

// LinkCounts is, for each record that has a link to or from another
// record, how many it has either way, as Forward lists them: a holder's
// links to one record of one kind once, each relation record's typed edge
// for its from record; a link to no record or to itself does not count.
// It walks the entries once and resolves each link end as written once,
// ids and aliases from the entries it walked: what a picture of the store
// opens on (its most linked records) without building the whole graph.
func (ix *Index) LinkCounts() (counts map[string]int) {
	ix.guard(func() {
		var entries []*IndexEntry
		ids := map[string]bool{}
		aliases := map[string]string{} // alias -> the smallest id holding it, as aliasTarget
		ix.eachEntry(func(e *IndexEntry) bool {
			entries = append(entries, e)
			ids[e.ID] = true
			for _, a := range e.Aliases {
				if owner, ok := aliases[a]; !ok || e.ID < owner {
					aliases[a] = e.ID
				}
			}
			return true
		})
		resolved := map[string]string{} // a link end as written -> its record, "" for none
		record := func(end string) string {
			if ids[end] {
				return end
			}
			id, ok := resolved[end]
			if !ok {
				if id, ok = aliases[end]; !ok {
					id, _ = kernel.ResolveHandle(idSet{ix}, end) // a prefix; ambiguous: no record
				}
				resolved[end] = id
			}
			return id
		}
		counts = map[string]int{}
		type link struct{ from, to, kind string }
		seen := map[link]bool{}
		for _, e := range entries {
			clear(seen)
			for _, ed := range e.Edges {
				from := e.ID
				if ed.Source != "" {
					from = record(ed.Source)
				}
				to := record(ed.Target)
				if from == "" || to == "" || from == to {
					continue
				}
				// A holder's own links to one record, by id and by alias,
				// are one link (as Forward has them); a relation is a
				// record of its own.
				if l := (link{from, to, ed.Kind}); ed.Source == "" {
					if seen[l] {
						continue
					}
					seen[l] = true
				}
				counts[from]++
				counts[to]++
			}
		}
	})
	return counts
}
