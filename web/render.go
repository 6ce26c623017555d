package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
	"github.com/git-records/git-records/wikilink"
)

// Bounds of one page's embeds: each embed reads its record, and an
// embedded note is parsed and rendered again. Past them an embed is a link.
const (
	maxEmbedReads       = 64        // records read for embeds on one page
	maxTranscluded      = 16        // notes shown in place on one page
	maxTranscludedBytes = 256 << 10 // of their bodies, all together: a page renders its own body and at most this much more
	transcludeDepth     = 1         // a note shown in place shows its own embeds of notes as links
)

// bodyRenderer renders the bodies of one page at one view of the tip:
// wikilinks become links to their records, embeds show their attachment
// (a picture, or a download) or the note they name, and Markdown links
// and images to a record (an imported attachment) point at it.
type bodyRenderer struct {
	v      *service.View
	depth  int
	budget *embedBudget
}

type embedBudget struct{ reads, transcluded, transcludedBytes int }

func newBodyRenderer(v *service.View) *bodyRenderer {
	return &bodyRenderer{v: v, budget: &embedBudget{}}
}

// render renders body as HTML with goldmark: raw HTML is left out and
// unsafe link destinations dropped (goldmark's defaults). With heading
// set, only that section is rendered (an embed of [[note#heading]]), or
// the whole body when it has no such heading. Its time is linear in the
// body (meteredParser): Markdown that would cost more is shown as written,
// under a notice.
func (br *bodyRenderer) render(body, heading string) (template.HTML, error) {
	src := []byte(body)
	if wikilink.NestsTooDeep(src) {
		return br.renderPlain(src), nil
	}
	pc, work := newMarkdownContext(len(src))
	reader := text.NewReader(src)
	doc := meteredParser().Parse(reader, parser.WithContext(pc)).(*ast.Document)
	br.Transform(doc, reader, pc)
	if heading != "" {
		section(doc, src, heading)
	}
	var buf bytes.Buffer
	if work.limited {
		buf.WriteString(limitedNotice)
	}
	if err := newMarkdownRenderer(util.Prioritized(br, 100)).Render(&buf, src, doc); err != nil {
		return "", kernel.Wrap(kernel.CodeInternal, err, "render the body")
	}
	return template.HTML(buf.String()), nil
}

const (
	limitedNotice = `<p class="muted body-notice">Some of this body's Markdown is shown as written: ` +
		`laying it out would take time out of proportion to its size.</p>` + "\n"
	plainNotice = `<p class="muted body-notice">This body is shown as plain text: its block quotes and lists ` +
		`nest too deep to lay out.</p>` + "\n"
)

// renderPlain shows a body nested too deep for goldmark's block parse
// (wikilink.NestsTooDeep) as its text, with its wikilinks as links, as
// wikilink reads such a body.
func (br *bodyRenderer) renderPlain(src []byte) template.HTML {
	var b bytes.Buffer
	b.WriteString(plainNotice + `<pre class="plain">`)
	at := 0
	for _, s := range wikilink.Spans(src) {
		b.WriteString(template.HTMLEscapeString(string(src[at:s.Start])))
		br.writeWikilink(&b, s.Link, s.Embed, false)
		at = s.End
	}
	b.WriteString(template.HTMLEscapeString(string(src[at:])))
	b.WriteString("</pre>\n")
	return template.HTML(b.String())
}

// embedBlock is a paragraph that holds one embed and nothing else: the
// embed is shown as a block (a note in place, a picture on its own).
type embedBlock struct{ ast.BaseBlock }

var kindEmbedBlock = ast.NewNodeKind("EmbedBlock")

func (*embedBlock) Kind() ast.NodeKind              { return kindEmbedBlock }
func (b *embedBlock) Dump(source []byte, level int) { ast.DumpHelper(b, source, level, nil, nil) }

// Transform makes each paragraph that is one embed an embedBlock, and
// points Markdown images and links whose destination is a local path
// (an imported note's ![alt](diagram.png), [spec](spec.pdf)) at the record
// that path names: its payload for an image, its page for a link.
func (br *bodyRenderer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var paragraphs []*ast.Paragraph
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Paragraph:
			paragraphs = append(paragraphs, n)
		case *ast.Image:
			if id := br.localTarget(n.Destination); id != "" && br.hasPayload(id) {
				n.Destination = []byte(AttachmentURL(id))
			}
		case *ast.Link:
			if id := br.localTarget(n.Destination); id != "" {
				n.Destination = []byte(RecordURL(id))
			}
		}
		return ast.WalkContinue, nil
	})
	for _, p := range paragraphs {
		if embed := soleEmbed(p, src); embed != nil {
			b := &embedBlock{}
			p.RemoveChild(p, embed)
			b.AppendChild(b, embed)
			p.Parent().ReplaceChild(p.Parent(), p, b)
		}
	}
}

// soleEmbed is the embed a paragraph holds, when it holds nothing else
// but spaces.
func soleEmbed(p *ast.Paragraph, src []byte) *wikilink.Node {
	var embed *wikilink.Node
	for c := p.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *wikilink.Node:
			if !c.Embed || embed != nil {
				return nil
			}
			embed = c
		case *ast.Text:
			if len(bytes.TrimSpace(c.Segment.Value(src))) > 0 {
				return nil
			}
		default:
			return nil
		}
	}
	return embed
}

// localTarget is the record a Markdown destination names when it is a
// path in the vault, not a URL: the path whole, then without .md, then its
// file name. "" when it is a URL, an anchor, absolute, or names nothing.
func (br *bodyRenderer) localTarget(dest []byte) string {
	s := string(dest)
	if s == "" || s[0] == '#' || s[0] == '/' || s[0] == '\\' {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.Path == "" {
		return ""
	}
	p := strings.TrimPrefix(u.Path, "./")
	for _, h := range []string{p, strings.TrimSuffix(p, ".md"), path.Base(p), strings.TrimSuffix(path.Base(p), ".md")} {
		if id := br.resolve(h); id != "" {
			return id
		}
	}
	return ""
}

func (br *bodyRenderer) resolve(handle string) string {
	if handle == "" || handle == "." {
		return ""
	}
	id, err := br.v.Resolve(handle)
	if err != nil {
		return ""
	}
	return id
}

// record reads id for an embed, within the page's budget: nil past it.
func (br *bodyRenderer) record(id string) *kernel.Record {
	if br.budget.reads >= maxEmbedReads {
		return nil
	}
	br.budget.reads++
	r, err := br.v.Record(id)
	if err != nil {
		return nil
	}
	return r
}

func (br *bodyRenderer) hasPayload(id string) bool { return payloadRef(br.record(id)) != "" }

func (br *bodyRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(wikilink.KindNode, br.renderWikilink)
	reg.Register(kindEmbedBlock, func(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`<div class="embed">`)
		} else {
			_, _ = w.WriteString("</div>\n")
		}
		return ast.WalkContinue, nil
	})
}

// renderWikilink writes a wikilink as an anchor to the record it names
// (dangling: marked so), and an embed as what it embeds.
func (br *bodyRenderer) renderWikilink(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	l := n.(*wikilink.Node)
	if err := br.writeWikilink(w, l.Link, l.Embed, n.Parent().Kind() == kindEmbedBlock); err != nil {
		return ast.WalkStop, err
	}
	return ast.WalkContinue, nil
}

// writeWikilink writes l as renderWikilink does; alone says that an embed
// is the only thing in its paragraph, where a note it names is shown.
func (br *bodyRenderer) writeWikilink(w io.Writer, l wikilink.Link, embed, alone bool) error {
	display := l.Label
	if display == "" {
		display = l.Target
	}
	esc := template.HTMLEscapeString
	id := br.resolve(l.Target)
	if id == "" {
		fmt.Fprintf(w, `<span class="dangling" title="no such record">%s</span>`, esc(display))
		return nil
	}
	anchor := func(class string) {
		fmt.Fprintf(w, `<a class="%s" href="%s">%s</a>`, class, esc(RecordURL(id)), esc(display))
	}
	if !embed {
		anchor("wikilink")
		return nil
	}
	rec := br.record(id)
	switch a := attachmentOf(rec); {
	case rec == nil:
		anchor("wikilink embed")
	case a != nil && a.Image:
		fmt.Fprintf(w, `<a class="embed-image" href="%s"><img src="%s" alt="%s"></a>`, esc(RecordURL(id)), esc(a.URL), esc(display))
	case a != nil:
		fmt.Fprintf(w, `<a class="attachment" href="%s" download="%s">%s</a>`, esc(a.URL), esc(a.Name), esc(display))
	case br.depth < transcludeDepth && br.budget.transcluded < maxTranscluded && alone &&
		br.budget.transcludedBytes+len(rec.Body) <= maxTranscludedBytes:
		br.budget.transcluded++
		br.budget.transcludedBytes += len(rec.Body)
		sub := &bodyRenderer{v: br.v, depth: br.depth + 1, budget: br.budget}
		body, err := sub.render(rec.Body, l.Heading)
		if err != nil {
			return err
		}
		title := rec.Title
		if l.Heading != "" {
			title += " › " + l.Heading
		}
		fmt.Fprintf(w, `<div class="embed-title"><a class="wikilink" href="%s">%s</a></div><div class="embed-body">%s</div>`, esc(RecordURL(id)), esc(title), body)
	default:
		anchor("wikilink embed")
	}
	return nil
}

// section keeps, of doc's top-level blocks, the heading whose text is
// heading (case aside) and what follows it up to the next heading of its
// level or above; doc is left whole when no heading matches.
func section(doc *ast.Document, src []byte, heading string) {
	var start *ast.Heading
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if h, ok := c.(*ast.Heading); ok && strings.EqualFold(strings.TrimSpace(plainText(h, src)), strings.TrimSpace(heading)) {
			start = h
			break
		}
	}
	if start == nil {
		return
	}
	var drop []ast.Node
	inside := false
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if c == ast.Node(start) {
			inside = true
			continue
		}
		if h, ok := c.(*ast.Heading); ok && inside && h.Level <= start.Level {
			inside = false
		}
		if !inside {
			drop = append(drop, c)
		}
	}
	for _, c := range drop {
		doc.RemoveChild(doc, c)
	}
}

// plainText is the text of n's inline children, as a reader sees it.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		case *wikilink.Node:
			if c.Label != "" {
				b.WriteString(c.Label)
			} else {
				b.WriteString(c.Target)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
