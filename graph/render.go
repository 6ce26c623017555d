package graph

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Formats are the text forms Write knows.
var Formats = []string{"mermaid", "dot", "json"}

// label is what a node says: the record's title over its id, or that no
// record answers to a dangling link's target. Newlines and control
// characters fold to spaces: a title may hold them, a label line may not.
func (n Node) label() (title, id string) {
	if n.Missing {
		return "(no such record)", oneLine(n.ID)
	}
	return oneLine(n.Title), n.ID
}

// Mermaid writes g as a Mermaid flowchart (GitHub renders it in Markdown).
// Nodes are named n0, n1, … in id order, so no id can collide with a
// Mermaid keyword; every label is a quoted string with the characters
// Mermaid gives a meaning escaped as entity codes.
func Mermaid(w io.Writer, g *Graph) error {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	name := make(map[string]string, len(g.Nodes))
	for i, n := range g.Nodes {
		name[n.ID] = "n" + strconv.Itoa(i)
		title, id := n.label()
		fmt.Fprintf(&b, "  %s[\"%s<br/>%s\"]\n", name[n.ID], mermaidText(title), mermaidText(id))
	}
	for _, e := range g.Edges {
		text := e.Kind
		if e.Label != "" {
			text += ": " + oneLine(e.Label)
		}
		fmt.Fprintf(&b, "  %s -->|\"%s\"| %s\n", name[e.From], mermaidText(text), name[e.To])
	}
	var missing, root []string
	for _, n := range g.Nodes {
		if n.Missing {
			missing = append(missing, name[n.ID])
		}
		if n.Root {
			root = append(root, name[n.ID])
		}
	}
	if len(missing) > 0 {
		b.WriteString("  classDef missing stroke-dasharray: 4 4\n")
		fmt.Fprintf(&b, "  class %s missing\n", strings.Join(missing, ","))
	}
	if len(root) > 0 {
		b.WriteString("  classDef root stroke-width: 3px\n")
		fmt.Fprintf(&b, "  class %s root\n", strings.Join(root, ","))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidText escapes s for a quoted Mermaid string: Mermaid decodes
// #name; and #number; entity codes in labels, so every character that could
// end the string, start markup or an entity, or end a statement is written
// as #number; and the rest (unicode included) is kept.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"', '#', '<', '>', '&', '`', '|', ';', '\\', '[', ']', '{', '}', '(', ')', '*', '_', '~':
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Dot writes g as a Graphviz digraph; ids are quoted strings, so any id,
// title or label is written as data.
func Dot(w io.Writer, g *Graph) error {
	var b strings.Builder
	b.WriteString("digraph records {\n  rankdir=LR;\n  node [shape=box, fontname=\"sans-serif\"];\n  edge [fontname=\"sans-serif\", fontsize=10];\n")
	for _, n := range g.Nodes {
		title, id := n.label()
		attrs := fmt.Sprintf("label=%s", dotQuote(title+"\n"+id))
		if n.Missing {
			attrs += ", style=dashed"
		}
		if n.Root {
			attrs += ", penwidth=3"
		}
		fmt.Fprintf(&b, "  %s [%s];\n", dotQuote(n.ID), attrs)
	}
	for _, e := range g.Edges {
		text := e.Kind
		if e.Label != "" {
			text += ": " + oneLine(e.Label)
		}
		fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", dotQuote(e.From), dotQuote(e.To), dotQuote(text))
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotQuote is s as a dot double-quoted string. Backslashes are doubled (a
// label's \N, \G, \l would otherwise be escapes), quotes escaped, and a
// newline becomes dot's \n line break.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}

// oneLine folds whitespace runs (newlines included) and drops control
// characters.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
