package main

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGraphDepth walks a chain a → b → c → d: --depth counts links both
// ways from the record, and the links among the records drawn are drawn.
func TestGraphDepth(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	for _, c := range [][2]string{{"d", "end"}, {"c", "[[d]]"}, {"b", "[[c]]"}, {"a", "[[b]] and [[ghost]]"}} {
		mustRec(t, dir, "create", "--id", c[0], "--type", "concept", "--title", "T "+c[0], "--category", "g", "--body", c[1]+"\n", "--agent", "t")
	}
	type node struct {
		ID      string
		Missing bool
		Root    bool
	}
	type edge struct{ From, To, Kind string }
	type graphJSON struct {
		Root  string
		Depth int
		Nodes []node
		Edges []edge
	}
	ids := func(g graphJSON) []string {
		var out []string
		for _, n := range g.Nodes {
			out = append(out, n.ID)
		}
		return out
	}
	g := mustJSON[graphJSON](t, dir, "graph", "b")
	assert.Equal(t, []string{"a", "b", "c"}, ids(g), "depth 1 from b: its link and its backlink")
	assert.Equal(t, []edge{{"a", "b", "related"}, {"b", "c", "related"}}, g.Edges)
	assert.Equal(t, node{ID: "b", Root: true}, g.Nodes[1])

	g = mustJSON[graphJSON](t, dir, "graph", "b", "--depth", "2")
	assert.Equal(t, []string{"a", "b", "c", "d", "ghost"}, ids(g))
	assert.True(t, g.Nodes[4].Missing, "a link to no record is a missing node")
	assert.Len(t, g.Edges, 4)

	g = mustJSON[graphJSON](t, dir, "graph")
	assert.Equal(t, []string{"a", "b", "c", "d", "ghost"}, ids(g), "the whole store")
	assert.Empty(t, g.Root)

	requireError(t, rec(t, dir, "--json", "graph", "nosuch"), "NOT_FOUND", exitRefused)
	requireError(t, rec(t, dir, "--json", "graph", "b", "--depth", "0"), "USAGE", exitUsage)
	requireError(t, rec(t, dir, "--json", "graph", "--format", "svg"), "USAGE", exitUsage)

	// Graphviz reads what dot prints, where it is installed.
	if _, err := exec.LookPath("dot"); err == nil {
		out := mustRec(t, dir, "graph", "--format", "dot")
		r := execIn(t, dir, out, "dot", "-Tsvg")
		require.Equal(t, 0, r.code, "dot rejected the graph:\n%s\n%s", out, r)
		assert.Contains(t, r.stdout, "<svg")
	}
}
