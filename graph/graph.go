// Package graph is the link graph of a records store, the whole graph or
// one record's neighbourhood (service builds it from the graph index), and
// its drawings: in a stable order, as Mermaid, Graphviz dot, JSON or inline
// SVG. `git records graph` and the web view draw the same Graph.
package graph

import (
	"cmp"
	"slices"

	"github.com/git-records/git-records/kernel"
)

// Node is one record of the graph, or the target of a dangling link.
type Node struct {
	ID      string        `json:"id"`
	Title   string        `json:"title,omitempty"`
	Type    string        `json:"type,omitempty"`
	Status  kernel.Status `json:"status,omitempty"`
	Missing bool          `json:"missing,omitempty"` // a link names it, no record answers to it
	Root    bool          `json:"root,omitempty"`    // the record the neighbourhood is drawn around
}

// Edge is one link, from the record that holds it to its target.
type Edge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Kind  string `json:"kind"`
	Label string `json:"label,omitempty"`
}

// Graph is a set of nodes sorted by id and the edges between them sorted by
// (from, to, kind, label), so the same store always draws the same picture.
type Graph struct {
	Root  string `json:"root,omitempty"`
	Depth int    `json:"depth,omitempty"`
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// MostLinked is the n records with the most links in counts, most first,
// ties by id.
func MostLinked(counts map[string]int, n int) []string {
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(x, y string) int { return cmp.Or(cmp.Compare(counts[y], counts[x]), cmp.Compare(x, y)) })
	return ids[:min(n, len(ids))]
}
