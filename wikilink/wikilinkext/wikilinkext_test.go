package wikilinkext

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/git-records/git-records/wikilink"
)

func TestExtensionNode(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(Extension))
	src := []byte("see [[rec1#Scope|the <scope>]] and [[rec2]]")
	doc := md.Parser().Parse(text.NewReader(src))

	var nodes []*wikilink.Node
	require.NoError(t, ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Kind() == wikilink.KindNode {
			nodes = append(nodes, n.(*wikilink.Node))
		}
		return ast.WalkContinue, nil
	}))
	require.Len(t, nodes, 2)
	assert.Equal(t, wikilink.Link{Target: "rec1", Heading: "Scope", Label: "the <scope>"}, nodes[0].Link)
	assert.Equal(t, "rec2", nodes[1].Target)

	var out bytes.Buffer
	require.NoError(t, md.Convert(src, &out))
	assert.Equal(t, "<p>see the &lt;scope&gt; and rec2</p>\n", out.String())
}

// parsedBodies hold wikilinks where Markdown decides: tables (a cell's
// "\|"), code spans and blocks, raw HTML, escapes, embeds, lists.
var parsedBodies = []string{
	"see [[rec1]] and ![[img.png]]",
	"| a | b |\n|---|---|\n| [[x\\|label]] | `[[code]]` |\n| [[y#h]] | ![[z]] |\n",
	"a | b\n-- | --\n[[p]] | q\n",
	"```\n[[fenced]]\n```\n\n    [[indented]]\n\n<div>\n[[html]]\n</div>\n\n[[after]]",
	"`[[span]]` \\[[not]] [[ok|a \\| b]] <span>[[raw]]</span>",
	"- [[item1]]\n- [ ] [[task]]\n  > [[quote]]\n\n1. [[n#head|lbl]]",
	"[[a [[b]] [[c]]]] [x] [[e]] [y [[g]]]",
	"| `a|b` | [[t\\|u]] |\n| --- | --- |\n| c | `x \\| [[y]]` |\n",
	"# [[heading]]\n\nText[[glued]]text\n\n***\n\n[[last]]",
	// Tables: the text before one, a cell past the header's count, a header with fewer
	// cells, an escaped backslash before a pipe, a table in a list and a quote, indents.
	"[[before]]\n| a | b |\n|:-|-:|\n| [[x]] | y | [[excess]] |\n[[row]]\n\n[[after]]",
	"[[h]]\n--- | :-:\n| [[p]] | [[q]] |",
	"`[[fewer]]\n-|-\n`", // a code span cut by the cells
	"0||\n-|\n[[0|]]\n\n[[a]] ||\n-|-|\n[[b|c]] | [[d]] |\n\n| |\n:-\n[[e|f]]",
	"| a \\\\| [[b]] | \\| [[c]] |\n| - | - | - |\n| [[d\\\\|e]] | [[f]] |",
	"- | [[a]] | b |\n  | - | - |\n  | [[c|d]] | [[e\\|f]] |\n\n> [[q]] |\n> -|\n> [[r]]",
	"[x]: http://y\n| [[a]] |\n|-|\n\ta\t|\t[[b]]\t\n    |-|\n[[c]]",
	"| [[a]] | b |\n    |---|---|\n| [[c]] |",
	"`a\n[[a]]\nb` ``` x [[b]] ` y \\`[[c]]` `x\\`[[d]]` `` a ` [[e]] ``[[f]]",
}

// spansOf are the wikilinks goldmark.New with the GFM table extension and
// Extension parses, as the web view renders them, each in a table cell or
// not: what wikilink.Spans must
// find with its own parser, which reads tables itself so that git-records
// links neither goldmark's renderers nor its extension package.
func spansOf(t *testing.T, body string) []wikilink.Span {
	md := goldmark.New(goldmark.WithExtensions(extension.Table, Extension))
	var out []wikilink.Span
	require.NoError(t, ast.Walk(md.Parser().Parse(text.NewReader([]byte(body))), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if w, ok := n.(*wikilink.Node); ok && entering {
			inTable := false
			for p := n.Parent(); p != nil; p = p.Parent() {
				inTable = inTable || p.Kind() == extast.KindTableCell
			}
			out = append(out, wikilink.Span{Link: w.Link, Embed: w.Embed, Start: w.Start, End: w.End, InTable: inTable})
		}
		return ast.WalkContinue, nil
	}))
	return out
}

// markdownLinks reports whether body may hold a Markdown inline link or a
// link reference definition: wikilink's parser leaves those to the
// renderer, so a wikilink in a link's destination or title counts there.
func markdownLinks(body string) bool {
	return strings.Contains(body, "](") || strings.Contains(body, "]:")
}

func TestSpansAsGoldmarkNew(t *testing.T) {
	for _, body := range parsedBodies {
		want := spansOf(t, body)
		require.NotEmpty(t, want, "%q", body)
		require.Equal(t, want, wikilink.Spans([]byte(body)), "%q", body)
	}
	// In a Markdown link's destination the renderer sees a URL; Spans sees
	// a wikilink, as it sees one in the link's text.
	body := "[[a [[b]] [[c]]]] [x]([[d]]) [[e]](f) [y [[g]]](h)"
	assert.Equal(t, []string{"b", "c", "e", "g"}, targets(spansOf(t, body)))
	assert.Equal(t, []string{"b", "c", "d", "e", "g"}, targets(wikilink.Spans([]byte(body))))
}

func targets(spans []wikilink.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Target)
	}
	return out
}

// tablePieces build the lines of bodies where tables may start, end, lose
// or gain cells; delimiterPieces build lines that may be delimiter rows.
var (
	tablePieces = []string{
		"|", "|", "| ", " |", "||", "\\|", "\\\\", "-", ":-", " ", "\t", "    ",
		"[[a]]", "[[b|c]]", "[[d\\|e]]", "x", "`", "> ", "- ", "1. ", "[r]: u", "---", "===", "",
	}
	delimiterPieces = []string{"|", "|", "-", "-", "--", ":", " ", "\t"}
)

// TestSpansAsGoldmarkNewOnTables: random bodies of table pieces, where the
// table reader decides which text is a cell, are read as goldmark reads them.
func TestSpansAsGoldmarkNewOnTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	line := func(pieces []string) string {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	tables := 0
	for range 5000 {
		lines := []string{line(tablePieces)}
		for range 1 + rng.IntN(5) {
			if rng.IntN(2) == 0 {
				lines = append(lines, line(delimiterPieces))
			} else {
				lines = append(lines, line(tablePieces))
			}
		}
		body := strings.Join(lines, "\n")
		if rng.IntN(2) == 0 {
			body += "\n"
		}
		require.Equal(t, spansOf(t, body), wikilink.Spans([]byte(body)), "%q", body)
		if hasTable(body) {
			tables++
		}
	}
	require.Greater(t, tables, 500, "random bodies hold tables often enough to be tested")
}

// hasTable says whether goldmark's table extension finds a table in body.
func hasTable(body string) bool {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	found := false
	_ = ast.Walk(md.Parser().Parse(text.NewReader([]byte(body))), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		found = found || n.Kind() == extast.KindTable
		return ast.WalkContinue, nil
	})
	return found
}

// FuzzSpansAsGoldmarkNew: `go test -fuzz FuzzSpansAsGoldmarkNew ./wikilink/wikilinkext`.
func FuzzSpansAsGoldmarkNew(f *testing.F) {
	for _, body := range parsedBodies {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if markdownLinks(body) {
			return
		}
		require.Equal(t, spansOf(t, body), wikilink.Spans([]byte(body)), "%q", body)
	})
}
