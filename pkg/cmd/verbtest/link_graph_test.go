package verbtest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	graphcmd "github.com/git-records/git-records/pkg/cmd/link/graph"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdGraph: the handle, --depth and --format land in the options;
// --json means --format json unless --format says otherwise; a depth
// below 1 or an unknown format is a usage error naming the flag.
func TestNewCmdGraph(t *testing.T) {
	st := cmdtest.NewRepo(t)
	parse := func(args ...string) (*graphcmd.GraphOptions, cmdtest.Result) {
		f, _, _, _ := st.Factory()
		var got *graphcmd.GraphOptions
		r := cmdtest.Run(f, graphcmd.NewCmdGraph(f, func(o *graphcmd.GraphOptions) error { got = o; return nil }), args...)
		return got, r
	}
	o, r := parse("b", "--depth", "2", "--format", "dot")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, graphcmd.GraphOptions{Handle: "b", Depth: 2, Format: "dot"}, graphcmd.GraphOptions{Handle: o.Handle, Depth: o.Depth, Format: o.Format})
	o, _ = parse("--json")
	assert.Equal(t, "json", o.Format)
	assert.Equal(t, 1, o.Depth)
	o, _ = parse("--json", "--format", "mermaid")
	assert.Equal(t, "mermaid", o.Format, "--format wins over --json")

	_, r = parse("--json", "b", "--depth", "0")
	assert.Equal(t, "--depth", r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)["flag"])
	_, r = parse("--json", "--format", "svg")
	assert.Equal(t, "--format", r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)["flag"])
	_, r = parse("--json", "a", "b")
	r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestGraphDepth walks a chain a → b → c → d: --depth counts links both
// ways from the record, and the links among the records drawn are drawn.
func TestGraphDepth(t *testing.T) {
	st := cmdtest.NewStore(t)
	for _, c := range [][2]string{{"d", "end"}, {"c", "[[d]]"}, {"b", "[[c]]"}, {"a", "[[b]] and [[ghost]]"}} {
		st.Create(t, kernel.CreateInput{ID: c[0], Type: "concept", Title: "T " + c[0], Category: "g", Body: c[1] + "\n"})
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
	graph := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, graphcmd.NewCmdGraph(f, nil), args...)
	}
	graphOf := func(args ...string) graphJSON {
		var g graphJSON
		r := graph(append([]string{"--json"}, args...)...)
		require.Equal(t, 0, r.Code, r.String())
		r.JSON(t, &g)
		return g
	}
	ids := func(g graphJSON) []string {
		var out []string
		for _, n := range g.Nodes {
			out = append(out, n.ID)
		}
		return out
	}
	g := graphOf("b")
	assert.Equal(t, []string{"a", "b", "c"}, ids(g), "depth 1 from b: its link and its backlink")
	assert.Equal(t, []edge{{"a", "b", "related"}, {"b", "c", "related"}}, g.Edges)
	assert.Equal(t, node{ID: "b", Root: true}, g.Nodes[1])

	g = graphOf("b", "--depth", "2")
	assert.Equal(t, []string{"a", "b", "c", "d", "ghost"}, ids(g))
	assert.True(t, g.Nodes[4].Missing, "a link to no record is a missing node")
	assert.Len(t, g.Edges, 4)

	g = graphOf()
	assert.Equal(t, []string{"a", "b", "c", "d", "ghost"}, ids(g), "the whole store")
	assert.Empty(t, g.Root)

	graph("--json", "nosuch").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
	assert.True(t, strings.HasPrefix(graph("b").Stdout, "flowchart"), "Mermaid by default")

	// Graphviz reads what dot prints, where it is installed.
	if _, err := exec.LookPath("dot"); err == nil {
		out := graph("--format", "dot").Stdout
		cmd := exec.Command("dot", "-Tsvg")
		cmd.Stdin = strings.NewReader(out)
		svg, err := cmd.Output()
		require.NoError(t, err, "dot rejected the graph:\n%s", out)
		assert.Contains(t, string(svg), "<svg")
	}
}
