package web

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/git-records/git-records/wikilink"
)

// A body is laid out as GitHub Flavored Markdown by goldmark, whose parse
// is quadratic in the body on some shapes (docs/design.md lists them): the
// work of its link parser, its emphasis and strikethrough delimiters, link
// reference definitions and tables grows with the square of the brackets,
// delimiters, definitions or rows of one block. Anyone who can push writes
// a body, so those parsers are metered: each charges what a call may cost
// it, worst case, to a budget linear in the body, before the call; a call
// the budget cannot pay is not made, and what it would have read stays
// text (a limited block shows its brackets and stars as written). Code
// spans are read by wikilink's linear parser, and `\|` in a table's code
// by tableCodePipes. Bodies that nest blocks too deep for goldmark's block
// parse are shown as plain text (renderPlain).

// The budget of one body: markdownWorkBase plus markdownWorkPerByte for
// each of its bytes, in units of a node or byte goldmark visits. Ordinary
// Markdown spends about one a byte (docs/limits.md).
const (
	markdownWorkBase    = 64 << 10
	markdownWorkPerByte = 32
)

// markdownWork is the budget of one parse, in its parser.Context.
type markdownWork struct {
	left int
	// limited: a block was read with some of its Markdown left as text.
	limited bool
}

var markdownWorkKey = parser.NewContextKey()

// newMarkdownContext is the parser.Context of one body's parse, with its budget.
func newMarkdownContext(bodyLen int) (parser.Context, *markdownWork) {
	w := &markdownWork{left: markdownWorkBase + markdownWorkPerByte*bodyLen}
	pc := parser.NewContext()
	pc.Set(markdownWorkKey, w)
	return pc, w
}

func workOf(pc parser.Context) *markdownWork { return pc.Get(markdownWorkKey).(*markdownWork) }

// spend takes n from the budget when it holds n; otherwise it takes
// nothing, notes the parse as limited and returns false.
func (w *markdownWork) spend(n int) bool {
	if n > w.left {
		w.limited = true
		return false
	}
	w.left -= n
	return true
}

// meteredParser is goldmark's parser with GitHub Flavored Markdown
// (tables, strikethrough, autolinked URLs, task lists) and wikilinks, as
// goldmark.WithExtensions(extension.GFM, wikilinkext.Extension) builds
// it, with its quadratic parsers metered. Parse with newMarkdownContext.
// It is shared: goldmark keeps a parse's state in its context, and so do
// the meters.
var meteredParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		// goldmark's priorities (parser.DefaultInlineParsers and its extensions').
		parser.WithInlineParsers(
			util.Prioritized(extension.NewTaskCheckBoxParser(), 0),
			util.Prioritized(wikilink.CodeSpanParser(), 100),
			util.Prioritized(meteredLinks{parser.NewLinkParser()}, 200),
			util.Prioritized(parser.NewAutoLinkParser(), 300),
			util.Prioritized(parser.NewRawHTMLParser(), 400),
			util.Prioritized(meteredDelimiters{parser.NewEmphasisParser()}, 500),
			util.Prioritized(meteredDelimiters{extension.NewStrikethroughParser()}, 500),
			util.Prioritized(extension.NewLinkifyParser(), 999),
		),
		parser.WithParagraphTransformers(
			util.Prioritized(meteredDefinitions{parser.LinkReferenceParagraphTransformer}, 100),
			util.Prioritized(meteredTables{extension.NewTableParagraphTransformer()}, 200),
		),
		parser.WithASTTransformers(util.Prioritized(tableCodePipes{}, 0)),
		wikilink.ParserOption(),
	)
})

// newMarkdownRenderer is goldmark's HTML renderer (safe: raw HTML left
// out, dangerous links dropped) with GitHub Flavored Markdown's, and
// nodeRenderers, which must render wikilink.KindNode.
func newMarkdownRenderer(nodeRenderers ...util.PrioritizedValue) renderer.Renderer {
	return renderer.NewRenderer(renderer.WithNodeRenderers(append([]util.PrioritizedValue{
		util.Prioritized(html.NewRenderer(), 1000),
		util.Prioritized(extension.NewTableHTMLRenderer(), 500),
		util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500),
		util.Prioritized(extension.NewTaskCheckBoxHTMLRenderer(), 500),
	}, nodeRenderers...)...))
}

// blockWork is what the metered inline parsers know of the block they
// read: the link openers goldmark holds, the delimiters it has taken,
// and which parsers the budget stopped.
type blockWork struct {
	block        ast.Node
	lines        int // of the block
	openers      []linkOpener
	delimiters   int
	noLinks      bool
	noDelimiters bool
}

// linkOpener is a '[' goldmark holds open: where it is, on which line of
// its block, and the last delimiter before it (goldmark's bottom for the
// link's emphasis).
type linkOpener struct {
	pos, line int
	bottom    ast.Node
}

var blockWorkKey = parser.NewContextKey()

// blockWorkOf is the work of parent, the block being read: goldmark reads
// one block's inlines at a time, so one blockWork serves a whole parse.
func blockWorkOf(parent ast.Node, pc parser.Context) *blockWork {
	b, ok := pc.Get(blockWorkKey).(*blockWork)
	if !ok {
		b = &blockWork{}
		pc.Set(blockWorkKey, b)
	}
	if b.block != parent {
		*b = blockWork{block: parent, lines: parent.Lines().Len(), openers: b.openers[:0]}
	}
	return b
}

// meteredLinks is goldmark's link parser, metered. goldmark keeps a
// block's unclosed '[' on a stack, and a ']' takes the top one, then:
// walks every node after it for a link inside (nested brackets make that
// quadratic), and when a link is made with emphasis in it, the block's
// nodes back to the last delimiter before it (emphasis in links); reads
// the destination to the end of its line when "(<" never closes
// (unclosed destinations), and a title or reference label to its
// closing character; and reads each line's part of the link text, title
// and label as a value, looking for that line from the last line of the
// block (shortcut references on many lines, titles over many lines).
// Each ']' that meets an opener is charged all of that first. A link's
// destination and title are charged after, as they are written out at
// each use of a reference.
type meteredLinks struct{ parser.InlineParser }

func (p meteredLinks) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	b, w := blockWorkOf(parent, pc), workOf(pc)
	if b.noLinks {
		return nil
	}
	if w.left < 0 { // spent on what references wrote out
		w.limited = true
		return nil
	}
	line, seg := block.PeekLine()
	if line[0] != ']' {
		// '[' or "![": goldmark pushes an opener, whose bottom is the last delimiter.
		opener := linkOpener{pos: seg.Start}
		opener.line, _ = block.Position()
		if last := pc.LastDelimiter(); last != nil {
			opener.bottom = last
		}
		n := p.InlineParser.Parse(parent, block, pc)
		if n != nil {
			b.openers = append(b.openers, opener)
		}
		return n
	}
	if len(b.openers) == 0 {
		return p.InlineParser.Parse(parent, block, pc) // nothing to close: goldmark reads no further
	}
	top := b.openers[len(b.openers)-1]
	walked := seg.Start - top.pos
	if last := pc.LastDelimiter(); last != nil && ast.Node(last) != top.bottom {
		walked += 2 * parent.ChildCount() // twice back over the block's nodes, to the bottom at most
	}
	if !w.spend(walked) {
		b.noLinks = true
		return nil
	}
	read, lineEnds := linkTailWork(block, w.left)
	if !w.spend(read) || !w.spend((3+lineEnds)*(b.lines-top.line)) {
		b.noLinks = true
		return nil
	}
	b.openers = b.openers[:len(b.openers)-1]
	n := p.InlineParser.Parse(parent, block, pc)
	switch n := n.(type) {
	case *ast.Link:
		w.left -= len(n.Destination) + len(n.Title)
	case *ast.Image:
		w.left -= len(n.Destination) + len(n.Title)
	}
	return n
}

// CloseBlock passes the block's end to goldmark's parser, which turns the
// block's unclosed openers into text there.
func (p meteredLinks) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if c, ok := p.InlineParser.(parser.CloseBlocker); ok {
		c.CloseBlock(parent, block, pc)
	}
}

// linkTailWork is what goldmark may read after the ']' at the reader
// when it closes a link text: "(", blanks, a destination ("<...>" to its
// first '>' not escaped, else to a blank, within its line), blanks and a
// title to its closing quote or parenthesis; or "[" and a reference label
// to the next bracket. It returns the bytes and the line ends it reads,
// and stops once it has read more than most bytes.
func linkTailWork(block text.Reader, most int) (read, lineEnds int) {
	l, pos := block.Position()
	defer block.SetPosition(l, pos)
	block.Advance(1)
	switch block.Peek() {
	case '[':
		block.Advance(1)
		return closingWork(block, '[', ']', most)
	case '(':
		block.Advance(1)
	default:
		return 0, 0
	}
	_, blanks, _ := block.SkipSpaces()
	line, _ := block.PeekLine()
	read = blanks + destinationLength(line, most)
	if read > most || (len(line) > 0 && line[0] == '<' && line[read-blanks-1] != '>') {
		return read, 0 // goldmark reads no title after an unclosed "<"
	}
	block.Advance(read - blanks)
	_, blanks, _ = block.SkipSpaces()
	read += blanks
	var title int
	switch q := block.Peek(); q {
	case '"', '\'':
		block.Advance(1)
		title, lineEnds = closingWork(block, q, q, most-read)
	case '(':
		block.Advance(1)
		title, lineEnds = closingWork(block, '(', ')', most-read)
	}
	return read + title, lineEnds
}

// destinationLength is the length of the link destination at the start
// of line: "<...>" up to its first '>' not escaped (the whole line when
// there is none), else up to a blank. It reads at most most+1 bytes.
func destinationLength(line []byte, most int) int {
	n := 0
	if len(line) > 0 && line[0] == '<' {
		for n = 1; n < len(line) && n <= most; n++ {
			if line[n] == '>' {
				return n + 1
			}
			if line[n] == '\\' {
				n++
			}
		}
		return min(n, len(line))
	}
	for n < len(line) && n <= most && !util.IsSpace(line[n]) {
		n++
	}
	return n
}

// closingWork is what goldmark reads from the reader, across lines, to
// the first closer not escaped by a backslash, or to an opener (it does
// not nest these), or to the end of the block. It returns the bytes and
// the line ends it reads, and stops once it has read more than most bytes.
func closingWork(block text.Reader, opener, closer byte, most int) (read, lineEnds int) {
	for {
		line, _ := block.PeekLine()
		if line == nil {
			return read, lineEnds
		}
		for i := 0; i < len(line); i++ {
			if read++; read > most {
				return read, lineEnds
			}
			switch c := line[i]; {
			case c == '\\' && i+1 < len(line) && util.IsPunct(line[i+1]):
				i++
				read++
			case c == closer || c == opener:
				return read, lineEnds
			}
		}
		lineEnds++
		block.AdvanceLine()
	}
}

// meteredDelimiters is goldmark's emphasis or strikethrough parser,
// metered. goldmark matches a block's delimiters at its end: each run
// that can close looks back through the runs before it for an opener,
// once for each of its characters it may use, and a run that takes none
// may stay on the list; runs of emphasis markers make that quadratic. A
// run that can close is charged its length times the runs before it.
type meteredDelimiters struct{ parser.InlineParser }

func (p meteredDelimiters) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	b := blockWorkOf(parent, pc)
	if b.noDelimiters {
		return nil
	}
	line, _ := block.PeekLine()
	run := 1
	for run < len(line) && line[run] == line[0] {
		run++
	}
	cost := run * (b.delimiters + 1)
	if b.delimiters >= 16 { // worth a look: a run that cannot close costs its length
		if d := parser.ScanDelimiter(line, block.PrecendingCharacter(), 1, anyDelimiter{}); d == nil || !d.CanClose {
			cost = run
		}
	}
	if !workOf(pc).spend(cost) {
		b.noDelimiters = true
		return nil
	}
	n := p.InlineParser.Parse(parent, block, pc)
	if n != nil {
		b.delimiters++
	}
	return n
}

// anyDelimiter lets parser.ScanDelimiter read a run of any character, as
// emphasis and strikethrough read theirs, for what it can open and close.
type anyDelimiter struct{}

func (anyDelimiter) IsDelimiter(byte) bool                     { return true }
func (anyDelimiter) CanOpenCloser(_, _ *parser.Delimiter) bool { return false }
func (anyDelimiter) OnMatch(int) ast.Node                      { return nil }

// meteredDefinitions is goldmark's reader of link reference definitions,
// metered. Definitions open a paragraph; taking each one out copies the
// paragraph's lines after it, and each line of a label or title is read
// as a value, looking for that line from the paragraph's last: quadratic
// in a paragraph of many definitions, or of one title over many lines. A
// paragraph that opens with '[' is charged its lines times its lines and
// three times the lines that may start a definition; one it cannot pay
// keeps its definitions as text.
type meteredDefinitions struct{ parser.ParagraphTransformer }

func (t meteredDefinitions) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines, source := node.Lines(), reader.Source()
	starts := 0
	for i := range lines.Len() {
		seg := lines.At(i)
		if line := bytes.TrimLeft(seg.Value(source), " \t"); len(line) > 0 && line[0] == '[' {
			starts++
		} else if i == 0 {
			break // goldmark reads no definition here
		}
	}
	if starts == 0 || workOf(pc).spend((lines.Len()+3*starts)*lines.Len()) {
		t.ParagraphTransformer.Transform(node, reader, pc)
	}
}

// meteredTables is goldmark's reader of GFM tables, metered: every row
// of a table gets a cell for each column of its delimiter row, written
// or not, so a table of many short rows under a wide header is quadratic
// in its size (and so is its page). A table is charged tableCellWork for
// each cell its rows leave out; one it cannot pay stays a paragraph.
type meteredTables struct{ parser.ParagraphTransformer }

// tableCellWork is the charge for a cell written empty: a node, and an
// element on the page, cost goldmark as much as tens of bytes of text.
const tableCellWork = 64

func (t meteredTables) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	if workOf(pc).spend(tableCellWork * wikilink.TableMissingCells(reader.Source(), node.Lines())) {
		t.ParagraphTransformer.Transform(node, reader, pc)
	}
}

// tableCodePipes applies GFM's rule for `\|` in a table cell inside a code
// span: the cell goes on past the pipe, and the backslash is not shown.
// (goldmark's table extension does it by comparing every code span of such
// cells with every such pipe of the document, which is quadratic.) It
// must run before any other AST transformer that reads code spans.
type tableCodePipes struct{}

func (tableCodePipes) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	if !bytes.Contains(source, []byte(`\|`)) {
		return
	}
	inCells := 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.Kind() {
		case east.KindTableCell:
			if entering {
				inCells++
			} else {
				inCells--
			}
		case ast.KindCodeSpan:
			if entering && inCells > 0 {
				dropPipeEscapes(n, source)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// dropPipeEscapes splits each text of a code span around the backslash of
// every `\|` it holds, leaving the backslash out.
func dropPipeEscapes(span ast.Node, source []byte) {
	for c := span.FirstChild(); c != nil; {
		next := c.NextSibling()
		t, ok := c.(*ast.Text)
		if !ok {
			c = next
			continue
		}
		at := t.Segment
		for {
			// A `\|` counts when its backslash is in the text.
			i := bytes.Index(source[at.Start:min(at.Stop+1, len(source))], []byte(`\|`))
			if i < 0 || i >= at.Len() {
				break
			}
			before := ast.NewRawTextSegment(at.WithStop(at.Start + i))
			span.InsertBefore(span, c, before)
			at = at.WithStart(at.Start + i + 1)
		}
		if at != t.Segment {
			span.ReplaceChild(span, c, ast.NewRawTextSegment(at))
		}
		c = next
	}
}
