// Package wikilinkext is the goldmark extension of wikilinks for renderers
// (the web view): wikilink's inline parser and a renderer that writes a
// link's display text. It lives apart from wikilink, which only parses,
// so that the git-records binary (which extracts links in every command
// but renders nothing) does not link goldmark's renderers.
package wikilinkext

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"github.com/git-records/git-records/wikilink"
)

// Extension is a goldmark.Extender that adds the wikilink inline parser and a renderer that
// writes a link's display text (so rendering never silently drops it). Callers that want
// anchors register their own renderer for wikilink.KindNode with a priority below 500.
var Extension goldmark.Extender = extender{}

const rendererPriority = 500 // goldmark's own HTML renderer has 1000

type extender struct{}

func (extender) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(wikilink.ParserOption())
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(htmlRenderer{}, rendererPriority)))
}

type htmlRenderer struct{}

func (htmlRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(wikilink.KindNode, renderNode)
}

func renderNode(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	// An embed shows its target's content, which a body alone does not
	// have: rendered as its display text like a link.
	if entering {
		link := n.(*wikilink.Node)
		display := link.Label
		if display == "" {
			display = link.Target
		}
		_, _ = w.Write(util.EscapeHTML([]byte(display)))
	}
	return ast.WalkContinue, nil
}
