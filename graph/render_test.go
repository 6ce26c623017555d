package graph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is a graph whose titles, ids and labels hold everything that
// means something to Mermaid or dot: quotes, brackets, entity starts,
// HTML, pipes, semicolons, backslash escapes, newlines and unicode.
func hostile() *Graph {
	return &Graph{Root: "a", Depth: 1,
		Nodes: []Node{
			{ID: "a", Title: "He said \"hi\" [x] {y} (z) #1 <b>&amp; | ; \\N \\l\nnext line: é 日本", Root: true},
			{ID: "end", Title: "end"},
			{ID: "gone\"]; click a", Missing: true},
		},
		Edges: []Edge{
			{From: "a", To: "end", Kind: "related", Label: "the \"RFC\" |x| -->"},
			{From: "a", To: "gone\"]; click a", Kind: "source"},
		}}
}

func TestMermaidEscapesLabels(t *testing.T) {
	var b strings.Builder
	require.NoError(t, Mermaid(&b, hostile()))
	want := `flowchart LR
  n0["He said #34;hi#34; #91;x#93; #123;y#125; #40;z#41; #35;1 #60;b#62;#38;amp#59; #124; #59; #92;N #92;l next line: é 日本<br/>a"]
  n1["end<br/>end"]
  n2["#40;no such record#41;<br/>gone#34;#93;#59; click a"]
  n0 -->|"related: the #34;RFC#34; #124;x#124; --#62;"| n1
  n0 -->|"source"| n2
  classDef missing stroke-dasharray: 4 4
  class n2 missing
  classDef root stroke-width: 3px
  class n0 root
`
	assert.Equal(t, want, b.String())
	// Each label is one quoted string: the only quotes left are the ones
	// that open and close it.
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		assert.Contains(t, []int{0, 2}, strings.Count(line, `"`), line)
	}
}

func TestDotEscapesLabels(t *testing.T) {
	var b strings.Builder
	require.NoError(t, Dot(&b, hostile()))
	want := `digraph records {
  rankdir=LR;
  node [shape=box, fontname="sans-serif"];
  edge [fontname="sans-serif", fontsize=10];
  "a" [label="He said \"hi\" [x] {y} (z) #1 <b>&amp; | ; \\N \\l next line: é 日本\na", penwidth=3];
  "end" [label="end\nend"];
  "gone\"]; click a" [label="(no such record)\ngone\"]; click a", style=dashed];
  "a" -> "end" [label="related: the \"RFC\" |x| -->"];
  "a" -> "gone\"]; click a" [label="source"];
}
`
	assert.Equal(t, want, b.String())
}
