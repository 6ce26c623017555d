package gitdir

import (
	"fmt"
	"strings"
)

// parseConfig reads the text of a git config file by the syntax of
// git-config(1), section "CONFIGURATION FILE", and calls fn with each
// variable in the order of the file: its full name ("section.name", or
// "section.subsection.name" with the subsection as written, the rest
// lower-cased) and its value; implicit marks a name written without "=",
// which is a boolean true. What git refuses to read is an error.
//
// go-git's config decoder is not used: it refuses the "[section.sub]" and
// "[section] name = value" forms and "\x" escapes in subsections, keeps a
// continuation's newline and a value's tabs, and groups values by section,
// which loses the order an include depends on.
func parseConfig(src []byte, origin string, fn func(name, value string, implicit bool) error) error {
	text := strings.TrimPrefix(string(src), "\ufeff") // a UTF-8 byte order mark, as Notepad writes
	text = strings.ReplaceAll(text, "\r\n", "\n")
	s := configScanner{text: text}
	var section string // "section." or "section.subsection." once a header is read
	for {
		s.skipBlanks()
		if s.done() {
			return nil
		}
		switch c := s.text[s.pos]; {
		case c == '\n':
			s.pos++
		case c == '#' || c == ';':
			s.skipLine()
		case c == '[':
			header, ok := s.sectionHeader()
			if !ok {
				return s.errorIn(origin)
			}
			section = header + "."
		case isLetter(c):
			name, value, implicit, ok := s.variable()
			if !ok {
				return s.errorIn(origin)
			}
			if err := fn(section+name, value, implicit); err != nil {
				return err
			}
		default:
			return s.errorIn(origin)
		}
	}
}

// configScanner is a position in a config file's text, line endings
// already LF.
type configScanner struct {
	text string
	pos  int
}

func (s *configScanner) done() bool { return s.pos >= len(s.text) }

// errorIn says where the text stopped making sense.
func (s *configScanner) errorIn(origin string) error {
	line := 1 + strings.Count(s.text[:min(s.pos, len(s.text))], "\n")
	return fmt.Errorf("bad config line %d in %s", line, originName(origin))
}

// skipBlanks passes spaces and tabs (and a lone carriage return, which git
// reads as white space too).
func (s *configScanner) skipBlanks() {
	for !s.done() && isBlank(s.text[s.pos]) {
		s.pos++
	}
}

// skipLine passes the rest of the line, a comment: a backslash at its end
// continues nothing.
func (s *configScanner) skipLine() {
	if i := strings.IndexByte(s.text[s.pos:], '\n'); i >= 0 {
		s.pos += i
	} else {
		s.pos = len(s.text)
	}
}

// sectionHeader reads "[section]" or `[section "subsection"]` from its
// "[". A section name is letters, digits, "-" and "."; it is
// case-insensitive, and so is the deprecated "[section.subsection]", which
// is lower-cased whole. A subsection is case-sensitive, on one line, and a
// backslash in it keeps the character after it ("\"" is a quote, "\t" a
// t). The header may be followed by a variable on the same line.
func (s *configScanner) sectionHeader() (string, bool) {
	s.pos++ // "["
	start := s.pos
	for !s.done() && (isNameChar(s.text[s.pos]) || s.text[s.pos] == '.') {
		s.pos++
	}
	section := strings.ToLower(s.text[start:s.pos])
	if section == "" || s.done() {
		return "", false
	}
	if s.text[s.pos] == ']' {
		s.pos++
		return section, true
	}
	s.skipBlanks()
	if s.done() || s.text[s.pos] != '"' || s.pos == start+len(section) {
		return "", false // a subsection is quoted, and apart from the name
	}
	s.pos++
	var sub strings.Builder
	for {
		if s.done() || s.text[s.pos] == '\n' {
			return "", false
		}
		c := s.text[s.pos]
		s.pos++
		if c == '"' {
			break
		}
		if c == '\\' {
			if s.done() || s.text[s.pos] == '\n' {
				return "", false
			}
			c = s.text[s.pos]
			s.pos++
		}
		sub.WriteByte(c)
	}
	if s.done() || s.text[s.pos] != ']' {
		return "", false
	}
	s.pos++
	return section + "." + sub.String(), true
}

// variable reads "name = value" or "name" alone. A name starts with a
// letter, then letters, digits and "-"; it is case-insensitive.
func (s *configScanner) variable() (name, value string, implicit, ok bool) {
	start := s.pos
	for !s.done() && isNameChar(s.text[s.pos]) {
		s.pos++
	}
	name = strings.ToLower(s.text[start:s.pos])
	for !s.done() && (s.text[s.pos] == ' ' || s.text[s.pos] == '\t') {
		s.pos++
	}
	if s.done() || s.text[s.pos] == '\n' {
		return name, "", true, true
	}
	if s.text[s.pos] != '=' {
		return "", "", false, false // "name ; comment" too: git refuses it
	}
	s.pos++
	value, ok = s.value()
	return name, value, false, ok
}

// value reads a value to the end of its line. White space around it is
// dropped and each white space character inside it is one space, unless
// it is in double quotes, which group and are removed; "#" and ";" outside
// quotes start a comment; a backslash escapes a quote, a backslash, n, t
// and b (newline, tab, backspace) and, at the end of a line, joins the
// next line to this one. Any other escape is an error, and so is a quote
// left open at the end of the line.
func (s *configScanner) value() (string, bool) {
	var out strings.Builder
	quoted := false
	blanks := 0 // white space read since the last character written
	for {
		if s.done() || s.text[s.pos] == '\n' {
			return out.String(), !quoted
		}
		c := s.text[s.pos]
		s.pos++
		if !quoted {
			if isBlank(c) {
				if out.Len() > 0 {
					blanks++
				}
				continue
			}
			if c == '#' || c == ';' {
				s.skipLine()
				return out.String(), true
			}
		}
		out.WriteString(strings.Repeat(" ", blanks))
		blanks = 0
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			if s.done() || s.text[s.pos] == '\n' {
				s.pos++ // a continuation: the line ending is dropped
				continue
			}
			i := strings.IndexByte(escapedChars, s.text[s.pos])
			if i < 0 {
				return "", false
			}
			s.pos++
			out.WriteByte(escapeMeanings[i])
		default:
			out.WriteByte(c)
		}
	}
}

// The characters a backslash escapes in a value, and what each stands for.
const (
	escapedChars   = "\"\\ntb"
	escapeMeanings = "\"\\\n\t\b"
)

func isBlank(c byte) bool    { return c == ' ' || c == '\t' || c == '\r' }
func isLetter(c byte) bool   { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isNameChar(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' || c == '-' }
