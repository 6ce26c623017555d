package service

import (
	"cmp"
	"slices"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/graph"
)

// The link graph `graph` and the web view draw, built from the graph index
// (links and backlinks): the whole store, or one record's neighbourhood.

// wholeGraph is the graph of every record the index holds (retired ones too: a
// link to one is still a link) and the dangling targets of their links.
func wholeGraph(ix *gitstore.Index) *graph.Graph {
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

// graphAround is the neighbourhood of root: every record within depth links of
// it, following links both ways (forward and backlinks), and the links
// among them. depth < 1 is taken as 1.
func graphAround(ix *gitstore.Index, root string, depth int) *graph.Graph {
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

// readableGraph is root's neighbourhood one link out, as graphAround draws it, but
// of at most limit records: when root has more neighbours, the ones with
// the most links (counts, as View.LinkCounts gives them) stay, ties by
// id. left is how many neighbours were left out.
func readableGraph(ix *gitstore.Index, root string, limit int, counts map[string]int) (g *graph.Graph, left int) {
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
func (b *builder) around(root string, depth int) *graph.Graph {
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

type builder struct {
	ix    *gitstore.Index
	nodes map[string]graph.Node
	edges map[graph.Edge]bool
}

func newBuilder(ix *gitstore.Index) *builder {
	return &builder{ix: ix, nodes: map[string]graph.Node{}, edges: map[graph.Edge]bool{}}
}

// node adds id and reports whether it was new.
func (b *builder) node(id string) bool {
	if _, ok := b.nodes[id]; ok {
		return false
	}
	n := graph.Node{ID: id, Missing: true}
	if e := b.ix.Entry(id); e != nil {
		n = graph.Node{ID: id, Title: e.Title, Type: e.Type, Status: e.Status}
	}
	b.nodes[id] = n
	return true
}

func (b *builder) edge(from string, e gitstore.Edge) {
	b.node(e.Target)
	b.edges[graph.Edge{From: from, To: e.Target, Kind: e.Kind, Label: e.Label}] = true
}

func (b *builder) graph(root string, depth int) *graph.Graph {
	g := &graph.Graph{Root: root, Depth: depth, Nodes: make([]graph.Node, 0, len(b.nodes)), Edges: make([]graph.Edge, 0, len(b.edges))}
	for _, n := range b.nodes {
		g.Nodes = append(g.Nodes, n)
	}
	slices.SortFunc(g.Nodes, func(x, y graph.Node) int { return cmp.Compare(x.ID, y.ID) })
	for e := range b.edges {
		g.Edges = append(g.Edges, e)
	}
	slices.SortFunc(g.Edges, func(x, y graph.Edge) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Label, y.Label))
	})
	return g
}
