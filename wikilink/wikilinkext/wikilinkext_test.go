package wikilinkext

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/git-records/git-records/internal/goldmarkext"
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
	"[[a [[b]] [[c]]]] [x]([[d]]) [[e]](f)",
	"| `a|b` | [[t\\|u]] |\n| --- | --- |\n| c | `x \\| [[y]]` |\n",
	"# [[heading]]\n\nText[[glued]]text\n\n***\n\n[[last]]",
}

// spansOf are the wikilinks goldmark.New with the GFM table extension and
// Extension parses: what wikilink.Spans must find with its own parser,
// which it builds without goldmark's renderers.
func spansOf(t *testing.T, body string) []wikilink.Span {
	md := goldmark.New(goldmark.WithExtensions(goldmarkext.Table, Extension))
	var out []wikilink.Span
	require.NoError(t, ast.Walk(md.Parser().Parse(text.NewReader([]byte(body))), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if w, ok := n.(*wikilink.Node); ok && entering {
			out = append(out, wikilink.Span{Link: w.Link, Embed: w.Embed, Start: w.Start, End: w.End})
		}
		return ast.WalkContinue, nil
	}))
	return out
}

func TestSpansAsGoldmarkNew(t *testing.T) {
	for _, body := range parsedBodies {
		want := spansOf(t, body)
		require.NotEmpty(t, want, "%q", body)
		require.Equal(t, want, wikilink.Spans([]byte(body)), "%q", body)
	}
}

// FuzzSpansAsGoldmarkNew: `go test -fuzz FuzzSpansAsGoldmarkNew ./wikilink/wikilinkext`.
func FuzzSpansAsGoldmarkNew(f *testing.F) {
	for _, body := range parsedBodies {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		require.Equal(t, spansOf(t, body), wikilink.Spans([]byte(body)), "%q", body)
	})
}
