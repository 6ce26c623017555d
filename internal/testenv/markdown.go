package testenv

import (
	"sort"
	"strings"
)

// HostileMarkdown are Markdown bodies of about n bytes, by name, each of
// a shape that goldmark parses in time quadratic in n, each with a
// wikilink and a code span (linked) so that a reader of links can neither
// skip the parse nor read the body as plain text.
var HostileMarkdown = map[string]func(n int) string{
	"nested brackets":       func(n int) string { return strings.Repeat("[", n/2) + linked + strings.Repeat("]", n/2) },
	"unclosed destinations": func(n int) string { return strings.Repeat("[a](<b", n/6) + linked },
	"emphasis runs":         func(n int) string { return "a**b" + strings.Repeat("c* ", n/3) + linked },
	"link reference runs":   func(n int) string { return strings.Repeat("[a]: u\n", n/7) + linked },
	"link reference paragraphs": func(n int) string {
		return strings.Repeat(strings.Repeat("[a]: u\n", 64)+"\n", n/(64*7+1)) + linked
	},
	"block quotes on one line": func(n int) string { return strings.Repeat("> ", n/2) + linked },
	"backtick runs of every length": func(n int) string {
		var b strings.Builder
		for i := 1; b.Len() < n; i++ {
			b.WriteString("e" + strings.Repeat("`", i))
		}
		return b.String() + "\n\n" + linked
	},
	"escaped pipes in table code": func(n int) string {
		return "| a |\n|---|\n" + strings.Repeat("| `x\\|y` |\n", n/11) + "|" + linked + "|\n"
	},
	"nested list staircase": func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(strings.Repeat(" ", 2*i) + "- " + linked + "\n")
		}
		return b.String()
	},
}

const linked = " [[a]] `x` "

// HostileRendering are more bodies of about n bytes that goldmark lays
// out in time (or output) quadratic in n, in syntax that a reader of
// links does not parse but a renderer of GitHub Flavored Markdown does:
// link titles and references, emphasis in links, strikethrough, tables.
// Each holds a wikilink and a code span (linked), as HostileMarkdown's do.
var HostileRendering = map[string]func(n int) string{
	"emphasis in links":  func(n int) string { return "*a " + strings.Repeat("[*](b) ", n/7) + linked },
	"strikethrough runs": func(n int) string { return "a~~b" + strings.Repeat("c~ ", n/3) + linked },
	"a run of tildes":    func(n int) string { return "a " + strings.Repeat("~", n) + linked },
	"shortcut references on many lines": func(n int) string {
		return "[a]: u\n\n" + strings.Repeat("[a]\n", n/4) + linked
	},
	"link title over many lines": func(n int) string { return "[a](b '\n" + strings.Repeat("x\n", n/2) + "')" + linked },
	"definition title over many lines": func(n int) string {
		return "[a]: b '\n" + strings.Repeat("x\n", n/2) + "'\n\n" + linked
	},
	"reference label over many lines": func(n int) string { return "[a][\n" + strings.Repeat("x\n", n/2) + "]" + linked },
	"wide table of short rows": func(n int) string {
		return strings.Repeat("|a", n/8) + "|\n" + strings.Repeat("|-", n/8) + "|\n" + strings.Repeat("b\n", n/4) + linked
	},
	"references to a long destination": func(n int) string {
		return "[a]: /" + strings.Repeat("u", n/2) + "\n\n" + strings.Repeat("[a]", n/6) + linked
	},
}

// deepBlocks are the HostileMarkdown shapes that nest block quotes or list
// items so deep that a reader of links takes the whole body as plain text.
var deepBlocks = map[string]bool{"block quotes on one line": true, "nested list staircase": true}

// HostileBody is a body of about n bytes made of the HostileMarkdown shapes
// a reader of links parses as Markdown (all but deepBlocks), as paragraphs
// of equal size.
func HostileBody(n int) string {
	names := make([]string, 0, len(HostileMarkdown))
	for name := range HostileMarkdown {
		if !deepBlocks[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = HostileMarkdown[name](n / len(names))
	}
	return strings.Join(parts, "\n\n")
}
