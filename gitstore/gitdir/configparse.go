package gitdir

import (
	"strings"

	"github.com/git-records/git-records/kernel"
)

// parseConfig is a port of git's config file parser (config.c:
// git_parse_source, get_base_var, get_value, parse_value). It calls fn with
// each variable's full name, lower-cased except for a quoted subsection, as
// git names it ("section.Sub Section.name"), and its value; implicit marks a
// name with no "=" (a boolean true).
//
// It replaces go-git's plumbing/format/config.Decoder (gcfg underneath),
// which differs from git on input git accepts: it rejects "[a.b]" section
// headers, "[a] k = v" on one line and "\x" escapes in subsections, turns a
// backslash-newline continuation into a newline and keeps tabs inside
// values; its Decoder also groups values by section, losing the order an
// include depends on, and drops the implicit/empty distinction.
func parseConfig(src []byte, origin string, fn func(name, value string, implicit bool) error) error {
	p := configParser{src: src, line: 1}
	bad := func() error {
		return kernel.Errorf(kernel.CodeInternal, "bad config line %d in %s", p.line, originName(origin))
	}
	if strings.HasPrefix(string(src), "\xef\xbb\xbf") { // a UTF-8 BOM, as Notepad writes
		p.pos = 3
	}
	var section string // "section." or "section.Sub." once a header is read
	comment := false
	for {
		c := p.next()
		switch {
		case c == '\n':
			if p.eof {
				return nil
			}
			comment = false
		case comment || isSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			base, ok := p.sectionHeader()
			if !ok {
				return bad()
			}
			section = base + "."
		case isAlpha(c):
			name, value, implicit, ok := p.variable(c)
			if !ok {
				return bad()
			}
			if err := fn(section+name, value, implicit); err != nil {
				return err
			}
		default:
			return bad()
		}
	}
}

type configParser struct {
	src       []byte
	pos       int
	line      int // of the character last read, from 1
	newlineIn bool
	eof       bool
}

// next returns the next character, CRLF read as LF and the end of input as
// a final LF (with eof set), as git's get_next_char.
func (p *configParser) next() byte {
	if p.pos >= len(p.src) {
		p.eof = true
		return '\n'
	}
	c := p.src[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.src) && p.src[p.pos] == '\n' {
		c = '\n'
		p.pos++
	}
	if p.newlineIn {
		p.line++
	}
	p.newlineIn = c == '\n'
	return c
}

// sectionHeader reads after "[": "section]" (dots allowed, the deprecated
// "[section.sub]" form, all lower-cased) or `section "Sub"]`, the
// subsection kept as written, a backslash escaping any character.
func (p *configParser) sectionHeader() (string, bool) {
	var b strings.Builder
	for {
		c := p.next()
		switch {
		case p.eof:
			return "", false
		case c == ']':
			return b.String(), b.Len() > 0
		case isSpace(c):
			return p.subsection(&b, c)
		case !isKeyChar(c) && c != '.':
			return "", false
		}
		b.WriteByte(toLower(c))
	}
}

func (p *configParser) subsection(b *strings.Builder, c byte) (string, bool) {
	for isSpace(c) {
		if c == '\n' {
			return "", false
		}
		c = p.next()
	}
	if c != '"' {
		return "", false
	}
	b.WriteByte('.')
	for {
		c := p.next()
		if c == '\n' {
			return "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = p.next(); c == '\n' {
				return "", false
			}
		}
		b.WriteByte(c)
	}
	return b.String(), p.next() == ']'
}

// variable reads a name starting with first, then "= value", or nothing
// for an implicit true.
func (p *configParser) variable(first byte) (name, value string, implicit, ok bool) {
	var b strings.Builder
	b.WriteByte(toLower(first))
	c := p.next()
	for !p.eof && isKeyChar(c) {
		b.WriteByte(toLower(c))
		c = p.next()
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	if c == '\n' {
		return b.String(), "", true, true
	}
	if c != '=' {
		return "", "", false, false
	}
	value, ok = p.value()
	return b.String(), value, false, ok
}

// value reads to the end of the line: double quotes group, a backslash
// escapes \ " t b n or joins the next line, ";" and "#" outside quotes start
// a comment, and unquoted whitespace runs become one space, trimmed at both
// ends.
func (p *configParser) value() (string, bool) {
	var b strings.Builder
	quote, comment, spaces := false, false, 0
	for {
		c := p.next()
		switch {
		case c == '\n':
			return b.String(), !quote
		case comment:
			continue
		case isSpace(c) && !quote:
			if b.Len() > 0 {
				spaces++
			}
			continue
		case !quote && (c == ';' || c == '#'):
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			b.WriteByte(' ')
		}
		switch c {
		case '\\':
			switch c = p.next(); c {
			case '\n':
				continue // a continuation line
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			b.WriteByte(c)
		case '"':
			quote = !quote
		default:
			b.WriteByte(c)
		}
	}
}

func isAlpha(c byte) bool   { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }
func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
