package wikilink

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// A note written elsewhere (Obsidian, zk, Foam, Dendron, Hugo, Jekyll)
// says more than its wikilinks: Markdown links to other notes, a title in
// its first heading, tags in its text. Scan reads all of it from one
// goldmark parse, for import, so that nothing inside code counts and
// every link keeps its place in the body for an exact rewrite.

// ScanOptions say what Scan reads besides wikilinks and embeds.
type ScanOptions struct {
	// MarkdownLinks: [text](dest) and ![alt](dest), whatever their
	// destination (the caller decides which name a note).
	MarkdownLinks bool
	// Title: the text of the first level-1 heading.
	Title bool
	// HashTags: #tag and #nested/tag in text, as Obsidian, zk and Foam
	// read them (not all digits, not after a word character).
	HashTags bool
	// ColonTags: zk's :tag1:tag2: (zk reads them when its notebook
	// enables colon-tags; so do we).
	ColonTags bool
}

// Scanned is what Scan found in a body.
type Scanned struct {
	// Links are the wikilinks, embeds and (with MarkdownLinks) Markdown
	// links and images, in document order.
	Links []Span
	Title string
	Tags  []string
}

// linkBudget bounds the work goldmark's link parser may do on a body whose
// Markdown links Scan reads: it walks the nodes after an opener at each
// closing bracket, and reads a destination up to the end of its line, so
// its work is bounded by openers times closers plus "](" times the longest
// line. A body over the budget (no note of thousands of links comes near
// it) is read for its wikilinks, title and tags only.
const linkBudget = 1 << 24

// maxScanDefinitions bounds the link reference definitions of a paragraph
// Scan reads as definitions when it reads Markdown links: goldmark takes
// time quadratic in their number, so this keeps that within linkBudget.
const maxScanDefinitions = 1 << 12

// linkParseBounded reports whether goldmark's link parser stays within
// linkBudget on body: one pass over it.
func linkParseBounded(body []byte) bool {
	openers, closers, destinations, line, longest := 0, 0, 0, 0, 0
	for i, c := range body {
		switch c {
		case '[':
			openers++
		case ']':
			closers++
			if i+1 < len(body) && body[i+1] == '(' {
				destinations++
			}
		case '\n':
			longest, line = max(longest, line), 0
			continue
		}
		line++
	}
	longest = max(longest, line)
	return openers*closers <= linkBudget && destinations*longest <= linkBudget
}

// Scan reads a note's links, title and tags from its Markdown syntax tree.
// What Extract leaves out as code or HTML it leaves out too; a link in a
// GFM table cell is marked InTable. Its parse is linear in the body, as
// Extract's is (a body nested too deep is read for its wikilinks as plain
// text), except for Markdown links, read within linkBudget.
func Scan(body []byte, o ScanOptions) Scanned {
	var out Scanned
	if NestsTooDeep(body) {
		readPlain(body, func(s Span) { out.Links = append(out.Links, s) })
		return out
	}
	if o.MarkdownLinks && !linkParseBounded(body) {
		o.MarkdownLinks = false
	}
	p, noDefinitions, most := extractParser, extractParserNoDefinitions, maxDefinitions
	if o.MarkdownLinks {
		// Reference links need their definitions: a site's page may list
		// a hundred in one block.
		p, noDefinitions, most = scanParser, scanParserNoDefinitions, maxScanDefinitions
	}
	pc := parser.NewContext()
	root := parseWith(body, p, noDefinitions, most, pc)
	ends, _ := pc.Get(linkEndsKey).(map[ast.Node]linkEnd)
	s := scanner{body: body, o: o, ends: ends, out: &out, seen: map[string]bool{}}
	s.walk(root, false)
	return out
}

type scanner struct {
	body []byte
	o    ScanOptions
	ends map[ast.Node]linkEnd
	out  *Scanned
	seen map[string]bool // tags already taken, lower-cased
}

func (s *scanner) walk(n ast.Node, inTable bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *Node:
			s.out.Links = append(s.out.Links, Span{Link: c.Link, Embed: c.Embed, Start: c.Start, End: c.End, InTable: inTable})
			continue
		case *ast.Heading:
			if s.o.Title && c.Level == 1 && s.out.Title == "" {
				s.out.Title = strings.Join(strings.Fields(s.plainText(c)), " ")
			}
		case *ast.Link:
			s.link(c, c.Destination, false, inTable)
		case *ast.Image:
			s.link(c, c.Destination, true, inTable)
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock, *ast.RawHTML, *ast.AutoLink:
			continue
		case *ast.Text:
			s.tags(c.Segment)
			continue
		}
		if c.Kind() == kindTableCell {
			s.walk(c, true)
			continue
		}
		s.walk(c, inTable)
	}
}

// link adds a Markdown link or image, when its place in the body is
// known; its text is walked like any other (a wikilink in it counts, and
// comes after it).
func (s *scanner) link(n ast.Node, dest []byte, image bool, inTable bool) {
	end, ok := s.ends[n]
	if !ok || !s.o.MarkdownLinks {
		return
	}
	start := n.Pos()
	open := start + 1
	if image {
		open++
	}
	if start < 0 || open > end.label || end.label > end.link || end.link > len(s.body) {
		return
	}
	d := string(dest)
	target, heading, _ := strings.Cut(d, "#")
	s.out.Links = append(s.out.Links, Span{
		Link:     Link{Target: target, Heading: heading, Label: string(s.body[open:end.label])},
		Embed:    image,
		Start:    start,
		End:      end.link,
		InTable:  inTable,
		Markdown: true,
	})
}

// plainText is a heading's text: its text segments and wikilinks' labels
// (or targets), as a reader sees them.
func (s *scanner) plainText(n ast.Node) string {
	var b strings.Builder
	var add func(ast.Node)
	add = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(s.body))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			case *Node:
				if c.Label != "" {
					b.WriteString(c.Label)
				} else {
					b.WriteString(c.Target)
				}
			default:
				add(c)
			}
		}
	}
	add(n)
	return b.String()
}

// tags reads #tags and (with ColonTags) :colon:tags: in one text segment.
// A tag starts after white space or at the start of the text, never after
// a word character (a#b, a URL's fragment), and holds letters, digits,
// '_', '-' and '/' (nesting); a tag of digits only is not one (#1).
func (s *scanner) tags(seg text.Segment) {
	if !s.o.HashTags && !s.o.ColonTags {
		return
	}
	b := s.body
	for i := seg.Start; i < seg.Stop; i++ {
		c := b[i]
		if c != '#' && c != ':' {
			continue
		}
		if i > 0 && !startsWord(b, i) {
			continue
		}
		if c == '#' && s.o.HashTags {
			j := i + 1
			for j < seg.Stop {
				r, n := utf8.DecodeRune(b[j:seg.Stop])
				if !isTagRune(r) && r != '/' {
					break
				}
				j += n
			}
			tag := strings.Trim(string(b[i+1:j]), "/")
			if tag != "" && strings.IndexFunc(tag, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0 {
				s.addTag(tag)
			}
			i = j - 1
			continue
		}
		if c == ':' && s.o.ColonTags {
			// :a:b: up to white space or the end; every part a tag, and
			// the token must end with ':'.
			j := i + 1
			for j < seg.Stop && !unicode.IsSpace(rune(b[j])) {
				j++
			}
			token := string(b[i:j])
			if len(token) > 2 && strings.HasSuffix(token, ":") && !strings.Contains(token, "::") {
				for _, t := range strings.Split(token[1:len(token)-1], ":") {
					s.addTag(t)
				}
			}
			i = j - 1
		}
	}
}

// startsWord: the byte before b[i] is white space or punctuation that
// cannot end a word ('(' , '[', ...), so b[i] starts a token.
func startsWord(b []byte, i int) bool {
	r, _ := utf8.DecodeLastRune(b[:i])
	return unicode.IsSpace(r) || r == '(' || r == '[' || r == '{' || r == '"' || r == '\''
}

func isTagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || unicode.Is(unicode.Mn, r)
}

func (s *scanner) addTag(t string) {
	k := strings.ToLower(t)
	if t == "" || s.seen[k] {
		return
	}
	s.seen[k] = true
	s.out.Tags = append(s.out.Tags, t)
}

// linkEnd is where a Markdown link's text ends (its ']') and where the
// link ends, in the body: goldmark's link nodes know only where they
// start (Pos).
type linkEnd struct{ label, link int }

var linkEndsKey = parser.NewContextKey()

// linkEnds is goldmark's link parser, noting where each link it makes
// ends: the reader's position when ']' triggers it and after it returns.
type linkEnds struct{ parser.InlineParser }

func (p linkEnds) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	closing := len(line) > 0 && line[0] == ']'
	n := p.InlineParser.Parse(parent, block, pc)
	if closing && n != nil {
		_, pos := block.Position()
		ends, _ := pc.Get(linkEndsKey).(map[ast.Node]linkEnd)
		if ends == nil {
			ends = map[ast.Node]linkEnd{}
			pc.Set(linkEndsKey, ends)
		}
		ends[n] = linkEnd{label: seg.Start, link: pos.Start}
	}
	return n
}

// CloseBlock passes the block's end on: goldmark's link parser forgets
// the block's unclosed brackets there.
func (p linkEnds) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if c, ok := p.InlineParser.(parser.CloseBlocker); ok {
		c.CloseBlock(parent, block, pc)
	}
}

// scanParser is extractParser with goldmark's link parser (wrapped to note
// where links end), for Scan.
var (
	scanParser              = sync.OnceValue(func() parser.Parser { return newExtractParser(true, true) })
	scanParserNoDefinitions = sync.OnceValue(func() parser.Parser { return newExtractParser(false, true) })
)
