package wikilink

import (
	"sort"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// codeSpanParser reads code spans as CommonMark defines them: a run of
// backticks opens one, the next run of exactly as many closes it, and an
// opener with no closer is text. goldmark's own parser looks for each
// opener's closer to the end of the block, so a block holding runs of
// every length from 1 to k is read k times over; this one lists the
// block's runs once, by length, and finds each closer by a binary search.
type codeSpanParser struct{}

// CodeSpanParser is goldmark's inline parser of code spans (its priority
// there is 100) in time linear in the block: the nodes it makes are the
// ones goldmark's own makes, so a renderer that takes it shows code spans
// as goldmark does.
func CodeSpanParser() parser.InlineParser { return codeSpanParser{} }

func (codeSpanParser) Trigger() []byte { return []byte{'`'} }

// backtickRuns are the runs of backticks of one block from where its
// first code span opens: by length, the source offsets they start at,
// ascending.
type backtickRuns struct {
	block  ast.Node
	starts map[int][]int
}

var backtickRunsKey = parser.NewContextKey()

func (codeSpanParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	n := 0
	for n < len(line) && line[n] == '`' {
		n++
	}
	// A trigger byte is never padding: seg.Start is where the run starts.
	opened := seg.Start + n
	closeAt, ok := runsOf(parent, block, pc).next(n, opened)
	block.Advance(n)
	if !ok {
		return ast.NewTextSegment(seg.WithStop(opened))
	}
	span := ast.NewCodeSpan()
	for {
		line, seg := block.PeekLine()
		if line == nil {
			return span // not reached: the closer is in this block
		}
		if closeAt < seg.Stop {
			if closeAt > seg.Start {
				span.AppendChild(span, ast.NewRawTextSegment(text.NewSegment(seg.Start, closeAt)))
			}
			block.Advance(seg.Padding + closeAt - seg.Start + n)
			trimSpace(span, block.Source())
			return span
		}
		span.AppendChild(span, ast.NewRawTextSegment(seg))
		block.AdvanceLine()
	}
}

// next is where the first run of n backticks at or after offset starts.
func (r *backtickRuns) next(n, offset int) (int, bool) {
	starts := r.starts[n]
	i := sort.SearchInts(starts, offset)
	if i == len(starts) {
		return 0, false
	}
	return starts[i], true
}

// runsOf lists the runs of the block parent's inline text from the
// reader's position on, once per block: goldmark reads a block's inlines
// in order, with no other block's in between.
func runsOf(parent ast.Node, block text.Reader, pc parser.Context) *backtickRuns {
	if r, ok := pc.Get(backtickRunsKey).(*backtickRuns); ok && r.block == parent {
		return r
	}
	r := &backtickRuns{block: parent, starts: map[int][]int{}}
	line, pos := block.Position()
	for {
		bytes, seg := block.PeekLine()
		if bytes == nil {
			break
		}
		for i := 0; i < len(bytes); i++ {
			if bytes[i] != '`' {
				continue
			}
			start := i
			for i < len(bytes) && bytes[i] == '`' {
				i++
			}
			r.starts[i-start] = append(r.starts[i-start], seg.Start+start-seg.Padding)
		}
		block.AdvanceLine()
	}
	block.SetPosition(line, pos)
	pc.Set(backtickRunsKey, r)
	return r
}

// trimSpace takes one space (a line ending counts as one) from each end of
// a code span's text when both ends have one and the text is not all
// spaces, as CommonMark asks, so that a span can start or end with a
// backtick.
func trimSpace(span *ast.CodeSpan, source []byte) {
	first, firstOK := span.FirstChild().(*ast.Text)
	last, lastOK := span.LastChild().(*ast.Text)
	if !firstOK || !lastOK || span.IsBlank(source) {
		return
	}
	spaceAt := func(i int) bool { return source[i] == ' ' || source[i] == '\n' }
	if first.Segment.IsEmpty() || !spaceAt(first.Segment.Start) || last.Segment.IsEmpty() || !spaceAt(last.Segment.Stop-1) {
		return
	}
	first.Segment = first.Segment.WithStart(first.Segment.Start + 1)
	last.Segment = last.Segment.WithStop(last.Segment.Stop - 1)
}
