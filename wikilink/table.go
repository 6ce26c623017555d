package wikilink

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// GitHub Flavored Markdown tables (https://github.github.com/gfm/#tables-extension-), read
// only as far as link extraction needs: which text is a cell. The inline pass reads each cell
// apart, so a link cannot run across a '|' ("| [[a|b]] |" is two cells and no link, which is
// why tables write [[a\|b]]), and a cell past the header's count is dropped, as the web view,
// which renders with goldmark's table extension, drops it. The cells keep their place in the
// source, so spans point into the body.

// tableParagraphs turns a paragraph that holds a table into a tableBlock after what precedes
// the table's header row. Goldmark's link reference definitions (priority 100) are taken out
// of the paragraph first.
type tableParagraphs struct{}

const tablePriority = 200

func tableParserOption() parser.Option {
	return parser.WithParagraphTransformers(util.Prioritized(tableParagraphs{}, tablePriority))
}

// tableBlock is a table's cells in reading order, header first; it has no rows: nothing reads them.
type tableBlock struct{ ast.BaseBlock }

// tableCell is one cell: a block of one line, its text without the spaces around it.
type tableCell struct{ ast.BaseBlock }

var (
	kindTableBlock = ast.NewNodeKind("WikilinkTable")
	kindTableCell  = ast.NewNodeKind("WikilinkTableCell")
)

func (*tableBlock) Kind() ast.NodeKind              { return kindTableBlock }
func (*tableCell) Kind() ast.NodeKind               { return kindTableCell }
func (b *tableBlock) Dump(source []byte, level int) { ast.DumpHelper(b, source, level, nil, nil) }
func (c *tableCell) Dump(source []byte, level int)  { ast.DumpHelper(c, source, level, nil, nil) }

// Transform finds the first delimiter row of the paragraph (its line 1 or later). The line
// before it is the header row, and every line after it a data row. The GFM spec wants as many
// header cells as delimiter cells; goldmark refuses only more, and what it renders decides.
func (tableParagraphs) Transform(p *ast.Paragraph, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	lines := p.Lines()
	d, columns, header := tableAt(source, lines)
	if d == 0 {
		return
	}
	table := &tableBlock{}
	addCells(table, header)
	for r := d + 1; r < lines.Len(); r++ {
		cells := rowCells(source, lines.At(r))
		addCells(table, cells[:min(len(cells), columns)])
	}
	parent := p.Parent()
	if d-1 == 0 {
		parent.ReplaceChild(parent, p, table)
	} else {
		lines.SetSliced(0, d-1)
		parent.InsertAfter(parent, p, table)
	}
}

// tableAt finds the table in a paragraph's lines: the index of its
// delimiter row (the first line, from line 1, that is one), its columns
// and its header row's cells. d is 0 when the lines hold no table.
func tableAt(source []byte, lines *text.Segments) (d, columns int, header []text.Segment) {
	for d := 1; d < lines.Len(); d++ {
		line := lines.At(d)
		if columns = delimiterRowColumns(line.Value(source)); columns == 0 {
			continue
		}
		if header = rowCells(source, lines.At(d-1)); len(header) > columns {
			return 0, 0, nil
		}
		return d, columns, header
	}
	return 0, 0, nil
}

// TableMissingCells counts the cells that the rows of the table in a
// paragraph's lines leave out (0 when they hold no table): a renderer
// writes each of them, empty, to give every row as many cells as the
// delimiter row has columns, so a wide table of short rows renders in
// time and space quadratic in its size. It may count one cell a row
// less (a row of no cell is read as one empty cell), and hyphens alone
// never make a delimiter row here, where goldmark may take them for one
// of a single column: neither costs more than a cell a row.
func TableMissingCells(source []byte, lines *text.Segments) int {
	d, columns, header := tableAt(source, lines)
	if d == 0 {
		return 0
	}
	missing := columns - len(header)
	for r := d + 1; r < lines.Len(); r++ {
		missing += max(0, columns-len(rowCells(source, lines.At(r))))
	}
	return missing
}

func addCells(table *tableBlock, cells []text.Segment) {
	for _, c := range cells {
		if c.Len() == 0 {
			continue
		}
		cell := &tableCell{}
		cell.Lines().Append(c)
		table.AppendChild(table, cell)
	}
}

// rowCells splits a row at its pipes, except a pipe right after a backslash: "\\|" is a
// backslash and an escaped pipe too, as the GFM reference implementation and goldmark read
// it. The pipes at either end open and close the row rather than separate cells. Each cell is
// trimmed of the white space around it.
func rowCells(source []byte, line text.Segment) []text.Segment {
	row := trimmedSegment(source, line.Start, line.Stop)
	start, stop := row.Start, row.Stop
	separator := func(i int) bool { return source[i] == '|' && (i == row.Start || source[i-1] != '\\') }
	if start < stop && separator(start) {
		start++
	}
	if start < stop && separator(stop-1) {
		stop--
	}
	var cells []text.Segment
	cellStart := start
	for i := start; i < stop; i++ {
		if separator(i) {
			cells = append(cells, trimmedSegment(source, cellStart, i))
			cellStart = i + 1
		}
	}
	// A last pipe closes the row ("a||" is one cell, as goldmark reads it).
	if cellStart < stop || len(cells) == 0 {
		cells = append(cells, trimmedSegment(source, cellStart, stop))
	}
	return cells
}

func trimmedSegment(source []byte, start, stop int) text.Segment {
	for start < stop && util.IsSpace(source[start]) {
		start++
	}
	for stop > start && util.IsSpace(source[stop-1]) {
		stop--
	}
	return text.NewSegment(start, stop)
}

// delimiterRowColumns returns how many cells line (with its line ending) has when it is a
// delimiter row, 0 when it is not one: cells of hyphens with an optional colon at either end
// (alignment), between optional pipes, indented less than a code block. Hyphens alone are a
// setext heading's underline where they can be one; where they cannot (a lazy continuation
// line of a list item or a quote), goldmark reads them as a delimiter row, except on the
// body's last line when it has no line ending.
func delimiterRowColumns(line []byte) int {
	if w, _ := util.IndentWidth(line, 0); w > 3 || isHyphens(line) {
		return 0
	}
	line = util.TrimRightSpace(util.TrimLeftSpace(line))
	if len(line) == 0 {
		return 0
	}
	if line[0] == '|' {
		line = line[1:]
	}
	if n := len(line); n > 0 && line[n-1] == '|' {
		line = line[:n-1]
	}
	columns := 0
	for {
		cell, rest, more := bytes.Cut(line, []byte{'|'})
		if !isDelimiterCell(util.TrimRightSpace(util.TrimLeftSpace(cell))) {
			return 0
		}
		columns++
		if !more {
			return columns
		}
		line = rest
	}
}

// isDelimiterCell: one hyphen or more, with an optional colon before and after.
func isDelimiterCell(cell []byte) bool {
	return isHyphens(bytes.TrimSuffix(bytes.TrimPrefix(cell, []byte{':'}), []byte{':'}))
}

func isHyphens(b []byte) bool {
	return len(b) > 0 && len(bytes.TrimLeft(b, "-")) == 0
}
