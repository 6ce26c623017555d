// Package wikilink finds [[id]] links in record bodies. It is a goldmark inline parser rather
// than a regular expression so that Markdown decides what is code, raw HTML or an escape:
// a link written inside a code block is an example, not a relation.
package wikilink

import (
	"bytes"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Link is one [[...]] occurrence in a Markdown body.
type Link struct {
	Target  string // the record handle before '#' or '|', trimmed
	Heading string // after '#', optional
	Label   string // after '|', optional (unescaped)
}

// Node is the AST node of one wikilink. It embeds Link so that renderers and Extract read
// the same fields. It has no children: the label is plain text, not inline Markdown.
type Node struct {
	ast.BaseInline
	Link
	// Embed is an Obsidian embed, ![[target]]: a note or an attachment
	// shown in place. It links to its target as [[target]] does.
	Embed bool
	// Start and End are the byte offsets of the whole link in the source,
	// the '!' of an embed included.
	Start, End int
}

// KindNode is the ast.NodeKind of Node.
var KindNode = ast.NewNodeKind("WikiLink")

// Kind implements ast.Node.
func (n *Node) Kind() ast.NodeKind { return KindNode }

// Dump implements ast.Node.
func (n *Node) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{
		"Target":  n.Target,
		"Heading": n.Heading,
		"Label":   n.Label,
	}, nil)
}

// Goldmark tries the inline parsers of a trigger byte in ascending priority order and its link
// parser has 200; ours must run first or the link parser would open a label at "[[". Equal
// priorities are not an option: goldmark sorts them with an unstable sort.
const parserPriority = 199

// ParserOption adds the wikilink inline parser to a goldmark parser. The
// goldmark.Extender that also renders links is wikilinkext.Extension: this
// package only parses, so that what extracts links (every git-records
// command links it) does not link goldmark's renderers.
func ParserOption() parser.Option {
	return parser.WithInlineParsers(util.Prioritized(inlineParser{}, parserPriority))
}

type inlineParser struct{}

// Trigger: '!' is for embeds, which goldmark's link parser would
// otherwise read as the start of an image.
func (inlineParser) Trigger() []byte { return []byte{'[', '!'} }

// Parse reads a wikilink from the current line only, which is what keeps newlines out of links.
func (inlineParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	embed := len(line) > 0 && line[0] == '!'
	if embed {
		line = line[1:]
	}
	link, n, ok := parse(line)
	if !ok {
		return nil
	}
	if embed {
		n++
	}
	block.Advance(n)
	return &Node{Link: link, Embed: embed, Start: seg.Start, End: seg.Start + n}
}

// parse reads the wikilink at the start of line and returns it with the number of bytes it
// spans. The first '|' or '\|' (the form GFM tables require) ends target and heading; the first
// '#' before it starts the heading. A backslash escapes the next punctuation byte and is
// removed. An unescaped '[' or a lone ']' makes the text not a link, so in "[[a [[b]]" only the
// inner link counts. A backtick does too: code spans bind tighter than links in CommonMark, and
// a "]]" inside a code span must not close a link. Stopping at '[' also keeps the inline pass
// linear: a failed attempt never scans past the next opener.
func parse(line []byte) (Link, int, bool) {
	end, hash, pipe, labelStart, ok := scan(line)
	if !ok {
		return Link{}, 0, false
	}
	link, ok := build(string(line[:end]), end, hash, pipe, labelStart)
	return link, end + 2, ok
}

// scan finds the separators of the wikilink at the start of line and the
// "]]" that closes it (at end), by parse's rules.
func scan(line []byte) (end, hash, pipe, labelStart int, ok bool) {
	if len(line) < 5 || line[0] != '[' || line[1] != '[' {
		return 0, 0, 0, 0, false
	}
	hash, pipe, labelStart = -1, -1, -1
	for i := 2; i < len(line); i++ {
		switch line[i] {
		case '\\':
			if i+1 < len(line) && util.IsPunct(line[i+1]) {
				if line[i+1] == '|' && pipe < 0 {
					pipe, labelStart = i, i+2
				}
				i++
			}
		case '|':
			if pipe < 0 {
				pipe, labelStart = i, i+1
			}
		case '#':
			if hash < 0 && pipe < 0 {
				hash = i
			}
		case ']':
			if i+1 < len(line) && line[i+1] == ']' {
				return i, hash, pipe, labelStart, true
			}
			return 0, 0, 0, 0, false
		case '[', '`', '\n', '\r':
			return 0, 0, 0, 0, false
		}
	}
	return 0, 0, 0, 0, false
}

// build cuts the parts of s[2:end] (the link text, s[:end] copied into one string) at the
// separator positions found by scan and slices the parts from it, so a link costs at most one
// allocation unless a part needs unescaping.
func build(s string, end, hash, pipe, labelStart int) (Link, bool) {
	targetEnd, headingEnd := end, end
	if pipe >= 0 {
		targetEnd, headingEnd = pipe, pipe
	}
	if hash >= 0 {
		targetEnd = hash
	}
	link := Link{Target: part(s, 2, targetEnd)}
	if link.Target == "" {
		return Link{}, false
	}
	if hash >= 0 {
		link.Heading = part(s, hash+1, headingEnd)
	}
	if pipe >= 0 {
		link.Label = part(s, labelStart, end)
	}
	return link, true
}

// part returns s[start:end] trimmed and with backslash escapes removed. Only escaped
// punctuation is unescaped, so unescaping never exposes edge whitespace or empties a part.
func part(s string, start, end int) string {
	p := strings.TrimSpace(s[start:end])
	if strings.IndexByte(p, '\\') < 0 {
		return p
	}
	return string(util.UnescapePunctuations([]byte(p)))
}

// extractParser is shared by all Extract calls: goldmark keeps per-parse state in the
// parser.Context it creates for each Parse, builds its parser tables once under a sync.Once,
// and every parser installed here is stateless, so concurrent use is safe. Tables are read as
// cells (table.go) so that "\|" reaches the wikilink parser and a bare '|' ends a cell.
// It is built on first use: a process that extracts no links (show, list)
// does not build it at start-up.
//
// Of goldmark's inline syntax it parses only what can hide a link (code
// spans, autolinks, raw HTML): links and emphasis never hide a wikilink,
// and goldmark spends time quadratic in the body on nested brackets,
// unclosed link destinations and runs of emphasis markers. So a wikilink
// in a Markdown link's destination or title counts here. Code spans are
// read by codeSpanParser, in linear time.
var extractParser = sync.OnceValue(func() parser.Parser { return newExtractParser(true, false) })

// extractParserNoDefinitions is extractParser without link reference
// definitions, for a body that may hold more than maxDefinitions in one
// paragraph: goldmark takes time quadratic in their number to take them
// out of the paragraph.
var extractParserNoDefinitions = sync.OnceValue(func() parser.Parser { return newExtractParser(false, false) })

// newExtractParser builds extractParser; markdownLinks adds goldmark's
// link parser (wrapped to note where links end), for Scan.
func newExtractParser(definitions, markdownLinks bool) parser.Parser {
	// goldmark's own priorities (parser.DefaultInlineParsers).
	inlines := []util.PrioritizedValue{
		util.Prioritized(codeSpanParser{}, 100),
		util.Prioritized(parser.NewAutoLinkParser(), 300),
		util.Prioritized(parser.NewRawHTMLParser(), 400),
	}
	if markdownLinks {
		inlines = append(inlines, util.Prioritized(linkEnds{parser.NewLinkParser()}, 200))
	}
	opts := []parser.Option{
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inlines...),
		tableParserOption(), ParserOption(),
	}
	if definitions {
		opts = append(opts, parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
	}
	return parser.NewParser(opts...)
}

// parseMarkdown is the Markdown parse of a body, by extractParser when the
// body holds at most maxDefinitions link reference definitions in a paragraph.
func parseMarkdown(body []byte) ast.Node {
	return parseWith(body, extractParser, extractParserNoDefinitions, maxDefinitions, parser.NewContext())
}

// parseWith parses body with p, or with noDefinitions when the body may
// hold more than most link reference definitions in a paragraph.
func parseWith(body []byte, p, noDefinitions func() parser.Parser, most int, pc parser.Context) ast.Node {
	if mayHoldDefinitions(body, most+1) {
		p = noDefinitions
	}
	return p().Parse(text.NewReader(body), parser.WithContext(pc))
}

// maxDefinitions bounds the link reference definitions of one paragraph
// that Extract reads as definitions (whose text holds no link).
const maxDefinitions = 64

// mayHoldDefinitions reports whether body may hold n link reference
// definitions in one paragraph. Every definition holds "]:", and no
// paragraph runs across a blank line, so it counts "]:" between blank lines.
func mayHoldDefinitions(body []byte, n int) bool {
	count := 0
	for start := 0; start < len(body); {
		end := bytes.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		line := body[start:end]
		start = end + 1
		if len(bytes.TrimSpace(line)) == 0 {
			count = 0
			continue
		}
		if count += bytes.Count(line, []byte("]:")); count >= n {
			return true
		}
	}
	return false
}

var opener = []byte("[[")

// Extract returns the wikilinks of a Markdown body in document order, duplicates kept
// (callers dedupe). Links inside code spans, fenced or indented code blocks, HTML blocks and
// raw HTML are ignored. Forms: [[id]], [[id|label]], [[id#heading]], [[id#heading|label]],
// and each as an embed, ![[id]].
// Inside GFM tables the label pipe is written `\|` ([[id\|label]]) and parses the same.
// Empty targets ([[]], [[ |x]]) and targets containing newlines are not links.
// It returns nil when there is no link. A body nested deeper than MaxNesting
// is read as plain text: every [[...]] in it counts, code or not.
func Extract(body []byte) []Link {
	// Most bodies have no link at all; skip the Markdown parse for them.
	hint := bytes.Count(body, opener)
	if hint == 0 {
		return nil
	}
	if links, ok := extractPlain(body, hint); ok {
		return links
	}
	if NestsTooDeep(body) {
		var links []Link
		readPlain(body, func(s Span) { links = append(links, s.Link) })
		return links
	}
	return extractParsed(body, hint)
}

// extractParsed is Extract through the Markdown parse.
func extractParsed(body []byte, hint int) []Link {
	var links []Link
	walk(parseMarkdown(body), func(w *Node) {
		if links == nil {
			links = make([]Link, 0, hint) // "[[" counts bound the links
		}
		links = append(links, w.Link)
	})
	return links
}

// Span is one wikilink or embed with its place in the body: body[Start:End]
// is its source text ("[[a|b]]", "![[image.png]]").
type Span struct {
	Link
	Embed      bool
	Start, End int
	// InTable: the link is in a GFM table cell, where a label's pipe is
	// written `\|` (a bare one would end the cell).
	InTable bool
	// Markdown: a Markdown link or image ([text](dest), ![alt](dest)),
	// read by Scan only. Target is its destination up to '#' and Heading
	// the fragment, both as written (percent escapes kept), Label the
	// link text as written.
	Markdown bool
}

// Spans returns every wikilink and embed of a Markdown body in document
// order, with byte offsets and whether each is an embed, for a caller that
// rewrites them (import and export). What Extract leaves out as code or
// HTML it leaves out too.
func Spans(body []byte) []Span {
	if !bytes.Contains(body, opener) {
		return nil
	}
	if NestsTooDeep(body) {
		var out []Span
		readPlain(body, func(s Span) { out = append(out, s) })
		return out
	}
	return Scan(body, ScanOptions{}).Links
}

// walk calls f for each wikilink node below n, in document order.
func walk(n ast.Node, f func(*Node)) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if w, ok := c.(*Node); ok {
			f(w)
			continue
		}
		walk(c, f)
	}
}

// readPlain calls f with each wikilink and embed of body read as plain
// text, without Markdown: parse's links at each "[[" in order. parse stops
// at the next '[', so this is linear in the body.
func readPlain(body []byte, f func(Span)) {
	for i := 0; i < len(body); i++ {
		if body[i] != '[' {
			continue
		}
		link, n, ok := parse(body[i:])
		if !ok {
			continue
		}
		start := i
		if start > 0 && body[start-1] == '!' {
			start--
		}
		f(Span{Link: link, Embed: start < i, Start: start, End: i + n})
		i += n - 1
	}
}

// extractPlain is Extract without the Markdown parse, for bodies where
// Markdown cannot hide or split a link: no code (no backtick, tilde, tab,
// or four spaces in a row, which every indented code block needs), no
// HTML or autolink (no '<'), no escape, no carriage return or NUL, and
// every '[', ']' and '|' inside a link the inline parser accepts (so no
// Markdown link, reference definition or table cell around one). In such
// a body goldmark reaches every "[[" and calls parse there, so the links
// are parse's at each "[[" in order; ok is false for any other body.
// The parse is most of the cost of indexing a record (FuzzExtractPlain
// holds the two to the same answers).
func extractPlain(body []byte, hint int) ([]Link, bool) {
	if bytes.IndexAny(body, "`~<\\\t\r\x00") >= 0 || bytes.Contains(body, []byte("    ")) {
		return nil, false
	}
	links := make([]Link, 0, hint)
	var text string // the body as one string: links are slices of it
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '[':
			end, hash, pipe, labelStart, ok := scan(body[i:])
			if !ok {
				return nil, false
			}
			if text == "" {
				text = string(body)
			}
			link, ok := build(text[i:i+end], end, hash, pipe, labelStart)
			if !ok {
				return nil, false
			}
			links = append(links, link)
			i += end + 1
		case ']', '|':
			return nil, false
		}
	}
	if len(links) == 0 {
		return nil, true
	}
	return links, true
}
