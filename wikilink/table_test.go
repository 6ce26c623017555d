package wikilink

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/yuin/goldmark/text"
)

// TestTableMissingCells: the cells a table's rows leave out, which a
// renderer writes empty.
func TestTableMissingCells(t *testing.T) {
	for body, want := range map[string]int{
		"a | b\n":                                    0, // no delimiter row
		"| a | b |\n|---|:-:|\n| c | d |\n":          0,
		"| a | b |\n|---|---|\n| c |\n|\n":           2, // a row of no cell is read as one empty cell
		"a\n|---|---|---|\n| c | `d\\|e` |\n":        2 + 1,
		"| a | b | c |\n|---|---|\n| c |\n":          0, // more header cells than columns: no table
		"text\n| a |\n|---|\nb\nc\n":                 0,
		"| a |\n|---|\n" + strings.Repeat("b\n", 10): 0,
		strings.Repeat("|a", 5) + "|\n" + strings.Repeat("|-", 5) + "|\n" + strings.Repeat("b\n", 10): 40,
	} {
		got := TableMissingCells([]byte(body), linesOf(body))
		assert.Equal(t, want, got, "%q", body)
	}
}

// linesOf is body's lines as a paragraph holds them.
func linesOf(body string) *text.Segments {
	lines := text.NewSegments()
	for start := 0; start < len(body); {
		end := strings.IndexByte(body[start:], '\n') + start + 1
		if end == start {
			end = len(body)
		}
		lines.Append(text.NewSegment(start, end))
		start = end
	}
	return lines
}
