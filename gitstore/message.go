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
// one line (backslash, CR, LF and other control characters), and every line
// of the subject and body that git could read as the end of the message or
// as one of our trailers is indented by one space (see escapeLine), so that
// our trailer block, always the last paragraph, is the one git reads.
func EncodeMessage(m CommitMessage) string {
	var b strings.Builder
	b.WriteString(escapeLine(oneLine(m.Subject)))
	b.WriteString("\n\n")
	if body := strings.TrimSpace(m.Body); body != "" {
		lines := strings.Split(body, "\n")
		for i, l := range lines {
			lines[i] = escapeLine(l)
		}
		b.WriteString(strings.Join(lines, "\n"))
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

// DecodeMessage parses a commit message in the form EncodeMessage writes and
// refuses any other, so that what we judge is what git shows: git's trailer
// reader (trailer.c, used by interpret-trailers and %(trailers)) ends the
// message at a "---" line or a scissors line, takes the last paragraph after
// the title paragraph as the trailer block, folds continuation lines, skips
// comment lines and trims values. So a message is refused when
//
//   - the subject is not one line followed by a blank line;
//   - any line of it, at column 0, is a "---" divider, a scissors line, or
//     (outside the trailer block) looks like one of our trailers, which
//     would make a second block for a reader that skipped ours;
//   - the last paragraph (git's blank lines hold only spaces, tabs and CRs)
//     has a line that is not "Key: value" with a key of the fixed set and a
//     value exactly as EscapeTrailerValue writes it.
//
// Every refusal is CodeMissingEvidence: such a commit cannot carry evidence.
func DecodeMessage(msg string) (CommitMessage, error) {
	var m CommitMessage
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	m.Subject = restoreLine(lines[0])
	for _, l := range lines {
		if endsMessage(l) {
			return m, kernel.Errorf(kernel.CodeMissingEvidence, "line %q ends the message for git, which would read other trailers than ours: rewrite the commit with git records", l)
		}
	}
	if len(lines) > 1 && lines[1] != "" {
		return m, kernel.Errorf(kernel.CodeMissingEvidence, "the subject is not followed by a blank line, so git reads the whole paragraph as the title and no trailers: rewrite the commit with git records")
	}
	// The trailer block: the lines after the last blank line, as git finds it.
	start := len(lines)
	for start > 1 && !gitBlank(lines[start-1]) {
		start--
	}
	if start == len(lines) || start <= 1 || !looksLikeTrailers(lines[start:]) {
		m.Body = restoreBody(lines[min(2, len(lines)):])
		return m, kernel.Errorf(kernel.CodeMissingEvidence, "commit has no trailer block: a record commit ends with Record-Op/Record-Id/Record-Agent trailers")
	}
	if lines[start-1] != "" {
		return m, kernel.Errorf(kernel.CodeMissingEvidence, "the line before the trailer block holds only whitespace (%q): rewrite the commit with git records", lines[start-1])
	}
	body := lines[2:max(2, start-1)]
	for _, l := range append(lines[:1:1], body...) {
		if key, ok := ourTrailerLike(l); ok {
			return m, kernel.Errorf(kernel.CodeMissingEvidence, "the subject or body has a %s line outside the trailer block, which a reader could take for the trailers: rewrite the commit with git records", key)
		}
	}
	m.Body = restoreBody(body)
	for _, line := range lines[start:] {
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			return m, kernel.Errorf(kernel.CodeMissingEvidence, "malformed trailer line %q: the last paragraph must hold only Key: value trailers", line)
		}
		if !kernel.IsTrailerKey(key) {
			return m, kernel.Errorf(kernel.CodeMissingEvidence, "unknown trailer key %q: record commits carry only %s", key, strings.Join(kernel.TrailerKeys, ", "))
		}
		v, err := UnescapeTrailerValue(value)
		if err != nil {
			return m, err
		}
		if EscapeTrailerValue(v) != value {
			// git trims and keeps tabs and CRs; we would read another value.
			return m, kernel.Errorf(kernel.CodeMissingEvidence, "trailer %s has a value git reads differently (%q): values are trimmed, with control characters escaped", key, value)
		}
		m.Trailers = append(m.Trailers, kernel.Trailer{Key: key, Value: v})
	}
	return m, nil
}

// looksLikeTrailers tells a last paragraph of prose (no trailer block at
// all) from a malformed block.
func looksLikeTrailers(lines []string) bool {
	for _, line := range lines {
		k, _, ok := strings.Cut(line, ": ")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return false
		}
	}
	return true
}

// gitBlank is trailer.c's is_blank_line: nothing but git's whitespace.
func gitBlank(l string) bool { return strings.Trim(l, " \t\r") == "" }

// ourTrailerLike reports whether git would read l as one of our trailers:
// trailer.c's find_separator (a token of letters, digits and "-", optional
// blanks, then ":"), with a token that names one of our keys in any case, as
// %(trailers:key=…) matches keys.
func ourTrailerLike(l string) (string, bool) {
	i := 0
	for i < len(l) && (l[i] == '-' || l[i] >= '0' && l[i] <= '9' || l[i]|0x20 >= 'a' && l[i]|0x20 <= 'z') {
		i++
	}
	if i == 0 || !strings.HasPrefix(strings.TrimLeft(l[i:], " \t"), ":") {
		return "", false
	}
	for _, k := range kernel.TrailerKeys {
		if strings.EqualFold(k, l[:i]) {
			return k, true
		}
	}
	return "", false
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

// escapeLine indents by one space a subject or body line that git could
// read as the end of the message or as one of our trailers:
//
//   - the "---" patch divider (trailer.c: "---" then git's isspace, i.e.
//     space, tab, CR, or the end of the line): `git interpret-trailers` stops
//     reading there, so the note "Record-Op: apply\n---" forged an apply;
//   - the scissors line "# ------------------------ >8 ------------------------"
//     (with any comment character, core.commentChar): git drops it and
//     everything after it even in `git log --format=%(trailers)`, so the note
//     "Record-Op: apply\n\n# --…-- >8 --…--" forged one there too;
//   - a line git would take for one of our trailers, which would make the
//     body hold a second trailer block.
//
// All of these match only at the start of a line. A line that would match
// once its leading spaces are removed is indented too, so that restoreLine
// can remove exactly one space and give the text back as written.
func escapeLine(l string) string {
	if needsEscape(strings.TrimLeft(l, " ")) {
		return " " + l
	}
	return l
}

// restoreLine reverses escapeLine.
func restoreLine(l string) string {
	if strings.HasPrefix(l, " ") && needsEscape(strings.TrimLeft(l, " ")) {
		return l[1:]
	}
	return l
}

func restoreBody(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = restoreLine(l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func needsEscape(l string) bool {
	_, trailer := ourTrailerLike(l)
	return trailer || endsMessage(l)
}

const scissors = " ------------------------ >8 ------------------------"

// endsMessage reports whether git would end a message at line l.
func endsMessage(l string) bool {
	if rest, ok := strings.CutPrefix(l, "---"); ok && (rest == "" || strings.IndexByte(" \t\r", rest[0]) >= 0) {
		return true
	}
	// wt_status_locate_end: the comment character, then the cut line.
	return len(l) == 1+len(scissors) && l[0] != ' ' && strings.HasSuffix(l, scissors)
}

// oneLine folds whitespace runs, newlines included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
