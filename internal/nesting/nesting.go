// Package nesting measures how deeply a JSON, YAML or TOML text nests its
// arrays and tables (objects, maps) in one linear scan, so that a reader
// can refuse a text too deep before a decoder, which may recurse once per
// level or worse, reads it.
package nesting

import "bytes"

// Syntax is what a language's nesting scan must know: the strings and
// comments in which brackets do not nest, and whether keys nest by their
// dots (TOML).
type Syntax struct {
	singleQuoted bool // '…' strings (TOML literal strings, YAML single-quoted scalars)
	tripleQuoted bool // triple-quoted strings, of either quote (TOML)
	comments     byte // 't' for TOML ('#' anywhere outside a string), 'y' for YAML ('#' after a blank), 0 for none
	dottedKeys   bool // a key's dots nest tables (TOML)
}

// The languages.
var (
	TOML = Syntax{singleQuoted: true, tripleQuoted: true, comments: 't', dottedKeys: true}
	YAML = Syntax{singleQuoted: true, comments: 'y'}
	JSON = Syntax{}
)

// Depth is the deepest nesting of arrays and tables in data, or a
// number above limit once it passes limit: '[' and '{' outside strings
// and comments, and with dotted keys, the tables a key's dots open (a
// table header's key, or one before '='), within the arrays and tables
// around them. Where a front matter does not parse, the decoder refuses it
// before it reads on; the scan need only be right where it does.
func Depth(data []byte, s Syntax, limit int) int {
	// depths are the depths of the arrays ('[') and inline tables ('{')
	// open around the scan, kinds what each is.
	var depths []int
	var kinds []byte
	inKey := s.dottedKeys
	lineStart := true // nothing but blanks since the line began
	tables := 0       // the tables the last table header opened
	keyParts := 0     // dots so far in the key being read
	base := 0         // the depth of what holds the next value
	deepest := 0
	reach := func(depth int) bool {
		deepest = max(deepest, depth)
		return deepest > limit
	}
	around := func() int { // the depth of the innermost container open
		if len(depths) == 0 {
			return tables
		}
		return depths[len(depths)-1]
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n':
			if len(depths) == 0 {
				inKey, keyParts, base = s.dottedKeys, 0, tables
			}
			lineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case s.dottedKeys && c == '[' && lineStart && len(depths) == 0:
			// A table header: its key's parts nest, its brackets do not.
			end, parts := headerEnd(data, i, s)
			if tables, base = parts, parts; reach(tables) {
				return deepest
			}
			i = end
		case c == '[' || c == '{':
			depth := base + 1
			depths, kinds = append(depths, depth), append(kinds, c)
			inKey, keyParts, base = s.dottedKeys && c == '{', 0, depth
			if reach(depth) {
				return deepest
			}
		case c == ']' || c == '}':
			if len(depths) > 0 {
				depths, kinds = depths[:len(depths)-1], kinds[:len(kinds)-1]
			}
			base = around()
		case c == ',':
			inKey = s.dottedKeys && len(kinds) > 0 && kinds[len(kinds)-1] == '{'
			keyParts, base = 0, around()
		case c == '=' && inKey:
			inKey, base = false, around()+keyParts
		case c == '.' && inKey:
			keyParts++
			if reach(around() + keyParts) {
				return deepest
			}
		case c == '"':
			i = stringEnd(data, i, '"', s.tripleQuoted, true)
		case c == '\'' && s.singleQuoted:
			i = stringEnd(data, i, '\'', s.tripleQuoted, false)
		case c == '#' && (s.comments == 't' || (s.comments == 'y' && (i == 0 || isBlank(data[i-1])))):
			if end := bytes.IndexByte(data[i:], '\n'); end >= 0 {
				i += end - 1 // the newline is read next
			} else {
				i = len(data)
			}
		}
		lineStart = false
	}
	return deepest
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// headerEnd reads the TOML table header at data[open] ("[a.b]" or
// "[[a.b]]"): the index of its last byte and the tables it opens, one per
// part of its key, and one more for an array of tables.
func headerEnd(data []byte, open int, s Syntax) (end, parts int) {
	parts = 1
	if open+1 < len(data) && data[open+1] == '[' {
		parts, open = 2, open+1
	}
	for i := open + 1; i < len(data); i++ {
		switch data[i] {
		case '.':
			parts++
		case '"':
			i = stringEnd(data, i, '"', s.tripleQuoted, true)
		case '\'':
			i = stringEnd(data, i, '\'', s.tripleQuoted, false)
		case ']':
			if parts > 1 && i+1 < len(data) && data[i+1] == ']' {
				i++
			}
			return i, parts
		case '\n':
			return i - 1, parts
		}
	}
	return len(data), parts
}

// stringEnd is the index of the quote that closes the string opened by the
// quote at data[open] (the last of three for a triple-quoted string), or
// len(data) when nothing closes it.
func stringEnd(data []byte, open int, quote byte, triple, escapes bool) int {
	if triple && open+2 < len(data) && data[open+1] == quote && data[open+2] == quote {
		closing := []byte{quote, quote, quote}
		for i := open + 3; i < len(data); i++ {
			if escapes && data[i] == '\\' {
				i++
				continue
			}
			if bytes.HasPrefix(data[i:], closing) {
				// A closing run may be four or five quotes long: the first
				// one or two belong to the string.
				for i+3 < len(data) && data[i+3] == quote {
					i++
				}
				return i + 2
			}
		}
		return len(data)
	}
	for i := open + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			if escapes {
				i++
			}
		case quote:
			return i
		}
	}
	return len(data)
}
