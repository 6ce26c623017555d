// Package graph draws the link graph of a records store: the whole graph or
// one record's neighbourhood, taken from the graph index (gitstore.Index:
// links and backlinks), in a stable order, as Mermaid, Graphviz dot, JSON or
// inline SVG. `git records graph` and the web view draw the same Graph.
package graph

import (
	"cmp"
	"slices"

	"github.com/git-records/git-records/gitstore"
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

// Whole is the graph of every record the index holds (retired ones too: a
// link to one is still a link) and the dangling targets of their links.
func Whole(ix *gitstore.Index) *Graph {
	b := newBuilder(ix)
	ids := ix.IDs()
	for _, id := range ids {
		b.node(id)
	}
	for _, id := range ids {
		for _, e := range ix.Forward(id) {
			b.edge(id, e)
		}
	}
	return b.graph("", 0)
}

// Around is the neighbourhood of root: every record within depth links of
// it, following links both ways (forward and backlinks), and the links
// among them. depth < 1 is taken as 1.
func Around(ix *gitstore.Index, root string, depth int) *Graph {
	if depth < 1 {
		depth = 1
	}
	b := newBuilder(ix)
	b.node(root)
	frontier := []string{root}
	for d := 0; d < depth && len(frontier) > 0; d++ {
		var next []string
		for _, id := range frontier {
			if ix.Entry(id) == nil {
				continue // a dangling target links nowhere
			}
			for _, e := range ix.Forward(id) {
				if b.node(e.Target) {
					next = append(next, e.Target)
				}
			}
			for _, e := range ix.Reverse(id) {
				if b.node(e.Source) {
					next = append(next, e.Source)
				}
			}
		}
		slices.Sort(next)
		frontier = next
	}
	return b.around(root, depth)
}

// Readable is root's neighbourhood one link out, as Around draws it, but
// of at most limit records: when root has more neighbours, the ones with
// the most links (counts, as Index.LinkCounts gives them) stay, ties by
// id. left is how many neighbours were left out.
func Readable(ix *gitstore.Index, root string, limit int, counts map[string]int) (g *Graph, left int) {
	b := newBuilder(ix)
	near := map[string]bool{root: true}
	var ids []string
	add := func(id string) {
		if !near[id] {
			near[id] = true
			ids = append(ids, id)
		}
	}
	for _, e := range ix.Forward(root) {
		add(e.Target)
	}
	for _, e := range ix.Reverse(root) {
		add(e.Source)
	}
	slices.SortFunc(ids, func(x, y string) int { return cmp.Or(cmp.Compare(counts[y], counts[x]), cmp.Compare(x, y)) })
	if keep := max(limit-1, 0); len(ids) > keep {
		left, ids = len(ids)-keep, ids[:keep]
	}
	b.node(root)
	for _, id := range ids {
		b.node(id)
	}
	return b.around(root, 1), left
}

// around finishes a neighbourhood of root: every link among the nodes
// drawn, not only the ones walked (two neighbours that link each other
// show it), and the root marked.
func (b *builder) around(root string, depth int) *Graph {
	for id := range b.nodes {
		if b.ix.Entry(id) == nil {
			continue
		}
		for _, e := range b.ix.Forward(id) {
			if _, ok := b.nodes[e.Target]; ok {
				b.edge(id, e)
			}
		}
	}
	g := b.graph(root, depth)
	for i := range g.Nodes {
		g.Nodes[i].Root = g.Nodes[i].ID == root
	}
	return g
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

type builder struct {
	ix    *gitstore.Index
	nodes map[string]Node
	edges map[Edge]bool
}

func newBuilder(ix *gitstore.Index) *builder {
	return &builder{ix: ix, nodes: map[string]Node{}, edges: map[Edge]bool{}}
}

// node adds id and reports whether it was new.
func (b *builder) node(id string) bool {
	if _, ok := b.nodes[id]; ok {
		return false
	}
	n := Node{ID: id, Missing: true}
	if e := b.ix.Entry(id); e != nil {
		n = Node{ID: id, Title: e.Title, Type: e.Type, Status: e.Status}
	}
	b.nodes[id] = n
	return true
}

func (b *builder) edge(from string, e gitstore.Edge) {
	b.node(e.Target)
	b.edges[Edge{From: from, To: e.Target, Kind: e.Kind, Label: e.Label}] = true
}

func (b *builder) graph(root string, depth int) *Graph {
	g := &Graph{Root: root, Depth: depth, Nodes: make([]Node, 0, len(b.nodes)), Edges: make([]Edge, 0, len(b.edges))}
	for _, n := range b.nodes {
		g.Nodes = append(g.Nodes, n)
	}
	slices.SortFunc(g.Nodes, func(x, y Node) int { return cmp.Compare(x.ID, y.ID) })
	for e := range b.edges {
		g.Edges = append(g.Edges, e)
	}
	slices.SortFunc(g.Edges, func(x, y Edge) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Label, y.Label))
	})
	return g
}
