package gitstore

import (
	"strings"

	"github.com/git-records/git-records/kernel"
)

// CommitMessage is the parsed form of a record commit message:
//
//	op(type): title
//
//	free-text body
//
//	Record-Op: op
//	Record-Id: …
type CommitMessage struct {
	Subject  string
	Body     string
	Trailers []kernel.Trailer
}

// EncodeMessage renders a commit message. Trailer values are escaped onto
// one line (backslash, CR, LF and other control characters), and the body
// can never end in something git would read as the trailer block, because
// our trailer block always follows it as the last paragraph.
func EncodeMessage(m CommitMessage) string {
	var b strings.Builder
	b.WriteString(oneLine(m.Subject))
	b.WriteString("\n\n")
	if body := strings.TrimSpace(m.Body); body != "" {
		b.WriteString(noDivider(body))
		b.WriteString("\n\n")
	}
	for _, t := range m.Trailers {
		b.WriteString(t.Key)
		b.WriteString(": ")
		b.WriteString(EscapeTrailerValue(t.Value))
		b.WriteByte('\n')
	}
	return b.String()
}

// DecodeMessage parses a commit message written by EncodeMessage. Only the
// last paragraph is the trailer block, as git reads it. A line there whose
// key is outside the fixed set is an error, since it can only be forged.
func DecodeMessage(msg string) (CommitMessage, error) {
	msg = strings.TrimRight(msg, "\n")
	var m CommitMessage
	subject, rest, _ := strings.Cut(msg, "\n")
	m.Subject = subject
	rest = strings.TrimLeft(rest, "\n")
	paragraphs := strings.Split(rest, "\n\n")
	last := paragraphs[len(paragraphs)-1]
	if !looksLikeTrailers(last) {
		m.Body = strings.TrimSpace(rest)
		return m, kernel.Errorf(kernel.CodeMissingEvidence, "commit has no trailer block: a record commit ends with Record-Op/Record-Id/Record-Agent trailers")
	}
	m.Body = strings.TrimSpace(restoreDividers(strings.Join(paragraphs[:len(paragraphs)-1], "\n\n")))
	for _, line := range strings.Split(last, "\n") {
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			return m, kernel.Errorf(kernel.CodeMissingEvidence, "malformed trailer line %q", line)
		}
		if !kernel.IsTrailerKey(key) {
			return m, kernel.Errorf(kernel.CodeMissingEvidence, "unknown trailer key %q: record commits carry only %s", key, strings.Join(kernel.TrailerKeys, ", "))
		}
		v, err := UnescapeTrailerValue(value)
		if err != nil {
			return m, err
		}
		m.Trailers = append(m.Trailers, kernel.Trailer{Key: key, Value: v})
	}
	return m, nil
}

func looksLikeTrailers(p string) bool {
	for _, line := range strings.Split(p, "\n") {
		k, _, ok := strings.Cut(line, ": ")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return false
		}
	}
	return p != ""
}

// Get returns the first value of key, or "".
func (m CommitMessage) Get(key string) string {
	for _, t := range m.Trailers {
		if t.Key == key {
			return t.Value
		}
	}
	return ""
}

// All returns every value of key in order.
func (m CommitMessage) All(key string) []string {
	var out []string
	for _, t := range m.Trailers {
		if t.Key == key {
			out = append(out, t.Value)
		}
	}
	return out
}

// EscapeTrailerValue makes v one line that cannot start another trailer.
func EscapeTrailerValue(v string) string {
	if !strings.ContainsAny(v, "\\\r\n\t") && !hasControl(v) {
		return strings.TrimSpace(v)
	}
	var b strings.Builder
	// Byte by byte: every byte escaped is ASCII, and bytes that are not
	// valid UTF-8 must pass unchanged (a range over runes would turn them
	// into U+FFFD).
	for i := 0; i < len(v); i++ {
		switch r := v[i]; {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteByte(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// UnescapeTrailerValue reverses EscapeTrailerValue.
func UnescapeTrailerValue(v string) (string, error) {
	if !strings.Contains(v, `\`) {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			b.WriteByte(v[i])
			continue
		}
		if i+1 >= len(v) {
			return "", kernel.Errorf(kernel.CodeMissingEvidence, "trailer value ends in a lone backslash")
		}
		i++
		switch v[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x':
			if i+2 >= len(v) {
				return "", kernel.Errorf(kernel.CodeMissingEvidence, "bad \\x escape in trailer value")
			}
			var c byte
			for _, h := range []byte(v[i+1 : i+3]) {
				c <<= 4
				switch {
				case h >= '0' && h <= '9':
					c |= h - '0'
				case h >= 'a' && h <= 'f':
					c |= h - 'a' + 10
				default:
					return "", kernel.Errorf(kernel.CodeMissingEvidence, "bad \\x escape in trailer value")
				}
			}
			b.WriteByte(c)
			i += 2
		default:
			return "", kernel.Errorf(kernel.CodeMissingEvidence, "unknown escape \\%c in trailer value", v[i])
		}
	}
	return b.String(), nil
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// noDivider indents by one space every body line git would take for the
// end of the message, so that git reads the trailer block we wrote:
//
//   - the "---" patch divider (trailer.c find_end_of_log_message: "---"
//     then git's isspace, i.e. space, tab, CR, or the end of the line):
//     `git interpret-trailers` stops reading there, so the note
//     "Record-Op: apply\n---" forged an apply;
//   - the scissors line "# ------------------------ >8 ------------------------"
//     (with any comment character, core.commentChar): git drops it and
//     everything after it even in `git log --format=%(trailers)`, so the note
//     "Record-Op: apply\n\n# --…-- >8 --…--" forged one there too.
//
// Both match only at the start of a line. A line that would match once its
// leading spaces are removed is indented too, so that DecodeMessage can
// remove exactly one space and give the note back as written.
func noDivider(body string) string {
	if !strings.Contains(body, "---") {
		return body
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if endsMessage(strings.TrimLeft(l, " ")) {
			lines[i] = " " + l
		}
	}
	return strings.Join(lines, "\n")
}

// restoreDividers reverses noDivider.
func restoreDividers(body string) string {
	if !strings.Contains(body, "---") {
		return body
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, " ") && endsMessage(strings.TrimLeft(l, " ")) {
			lines[i] = l[1:]
		}
	}
	return strings.Join(lines, "\n")
}

const scissors = " ------------------------ >8 ------------------------"

// endsMessage reports whether git would end a message at line l.
func endsMessage(l string) bool {
	if rest, ok := strings.CutPrefix(l, "---"); ok && (rest == "" || strings.IndexByte(" \t\r", rest[0]) >= 0) {
		return true
	}
	return len(l) > len(scissors) && strings.HasSuffix(l, scissors)
}

// oneLine folds whitespace runs, newlines included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
