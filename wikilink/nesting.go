package wikilink

// MaxNesting bounds how deeply a body's block quotes and list items may
// nest for Extract and Spans to read it as Markdown. goldmark's block
// parser does work on every line for each container open on it, and for
// each one a line opens it reads the line again, so its cost grows with
// the square of the depth; within this bound the parse is linear in the
// body. A deeper body is read as plain text (readPlain).
const MaxNesting = 32

// container is a block quote or list item that may be open, for
// nestsTooDeep: a list item is continued by a line indented at least to
// col, a block quote by a '>'.
type container struct {
	quote bool
	col   int
}

// NestsTooDeep reports whether goldmark could open more than MaxNesting
// block quotes and list items at once in body, in one pass over it: a
// renderer shows such a body without goldmark's block parse.
func NestsTooDeep(body []byte) bool { return containerDepth(body, MaxNesting) > MaxNesting }

// containerDepth is at least the number of block quotes and list items
// goldmark keeps open at once in body, or a number above limit. It reads
// each line once and over-estimates where it cannot tell: it takes every
// line that fails to continue a container for a lazy continuation, which
// keeps the container open, unless a blank line or a new container rules
// that out; it counts containers inside code blocks.
func containerDepth(body []byte, limit int) int {
	var open []container
	depth := 0
	prevBlank := true
	for start := 0; start < len(body); {
		end := start
		for end < len(body) && body[end] != '\n' {
			end++
		}
		line := lineCursor{b: body[start:end]}
		start = end + 1

		matched := 0
		for ; matched < len(open); matched++ {
			c := open[matched]
			if c.quote {
				if !line.quoteMarker() {
					break
				}
				continue
			}
			if !line.blank() && !line.indentTo(c.col) {
				break
			}
		}
		var opened []container
		for matched+len(opened) <= limit {
			if line.quoteMarker() {
				opened = append(opened, container{quote: true})
			} else if col, ok := line.listMarker(); ok {
				opened = append(opened, container{col: col})
			} else {
				break
			}
		}
		if matched+len(opened) > limit {
			return matched + len(opened)
		}
		blank := line.blank()
		if matched < len(open) && (len(opened) > 0 || blank || prevBlank) {
			// Not a lazy continuation line: what it did not continue is closed.
			open = open[:matched]
		}
		open = append(open, opened...)
		depth = max(depth, len(open))
		if depth > limit {
			return depth
		}
		prevBlank = blank && len(opened) == 0
	}
	return depth
}

// lineCursor reads one line's container markers from the left, keeping
// the column (tabs stop every 4 columns, as in CommonMark).
type lineCursor struct {
	b   []byte
	pos int
	col int
}

// spaces is the width of the blanks at the cursor, and the byte after them.
func (l *lineCursor) spaces() (width, next int) {
	col, i := l.col, l.pos
	for ; i < len(l.b) && (l.b[i] == ' ' || l.b[i] == '\t'); i++ {
		if l.b[i] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	return col - l.col, i
}

func (l *lineCursor) blank() bool {
	_, next := l.spaces()
	return next == len(l.b) || (next == len(l.b)-1 && l.b[next] == '\r')
}

// skipTo moves past the blanks at the cursor, to column col at most: a
// tab that spans col is taken whole, which only lets more lines continue
// a container.
func (l *lineCursor) skipTo(col int) {
	for l.pos < len(l.b) && l.col < col && (l.b[l.pos] == ' ' || l.b[l.pos] == '\t') {
		if l.b[l.pos] == '\t' {
			l.col += 4 - l.col%4
		} else {
			l.col++
		}
		l.pos++
	}
}

// indentTo continues a list item whose content starts at column col.
func (l *lineCursor) indentTo(col int) bool {
	width, _ := l.spaces()
	if l.col+width < col {
		return false
	}
	l.skipTo(col)
	return true
}

// quoteMarker reads "> " after any blanks (CommonMark allows three
// columns; goldmark counts tabs its own way, and more only over-estimates).
func (l *lineCursor) quoteMarker() bool {
	width, next := l.spaces()
	if next >= len(l.b) || l.b[next] != '>' {
		return false
	}
	l.skipTo(l.col + width)
	l.pos, l.col = l.pos+1, l.col+1
	if l.pos < len(l.b) && (l.b[l.pos] == ' ' || l.b[l.pos] == '\t') {
		l.skipTo(l.col + 1)
	}
	return true
}

// listMarker reads a list item's marker ("-", "+", "*", or digits then
// "." or ")", then a blank or the line's end) after any blanks, as
// quoteMarker does, and returns the least column its content can start at.
func (l *lineCursor) listMarker() (int, bool) {
	width, i := l.spaces()
	if i >= len(l.b) {
		return 0, false
	}
	end := i
	switch c := l.b[i]; {
	case c == '-' || c == '+' || c == '*':
		end = i + 1
	case c >= '0' && c <= '9':
		for end < len(l.b) && l.b[end] >= '0' && l.b[end] <= '9' {
			end++
		}
		if end == len(l.b) || (l.b[end] != '.' && l.b[end] != ')') {
			return 0, false
		}
		end++
	default:
		return 0, false
	}
	if end < len(l.b) && l.b[end] != ' ' && l.b[end] != '\t' && l.b[end] != '\r' {
		return 0, false
	}
	l.skipTo(l.col + width)
	l.col += end - l.pos
	l.pos = end
	content := l.col + 1
	if l.pos < len(l.b) {
		l.skipTo(content)
	}
	return content, true
}
