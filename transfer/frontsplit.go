package transfer

import (
	"bytes"
	"encoding/json"

	"github.com/BurntSushi/toml"
)

// frontFormat is one way a note may open its front matter, with the
// fields of adrg/frontmatter's Format.
type frontFormat struct {
	start, end string // the opening and closing lines, compared after bytes.TrimSpace
	unmarshal  func(data []byte, v any) error
	// withDelims hands the opening and closing lines to unmarshal too
	// (a JSON object is its own delimiters).
	withDelims bool
	// blankAfter: the closing line counts only when a blank line (or the
	// end of the note) follows it.
	blankAfter bool
}

// frontFormats are adrg/frontmatter's default formats, with YAML read by
// yaml.v3, which refuses duplicate keys and gives nested maps string keys.
var frontFormats = []frontFormat{
	{start: "---", end: "---", unmarshal: unmarshalYAML},
	{start: "---yaml", end: "---", unmarshal: unmarshalYAML},
	{start: "+++", end: "+++", unmarshal: toml.Unmarshal},
	{start: "---toml", end: "---", unmarshal: toml.Unmarshal},
	{start: ";;;", end: ";;;", unmarshal: json.Unmarshal},
	{start: "---json", end: "---", unmarshal: json.Unmarshal},
	{start: "{", end: "}", unmarshal: json.Unmarshal, withDelims: true, blankAfter: true},
}

// splitFront splits a note into its front matter, decoded, and the rest,
// answering exactly as adrg/frontmatter v0.2.0's Parse does with the same
// formats (FuzzSplitFront holds it to Parse), in place: Parse copies each
// note through a bufio.Reader into a bytes.Buffer, and linking it linked
// gopkg.in/yaml.v2 (for its default formats, which we never used) into
// every git-records process, whose package initialisation every command
// paid for.
//
// Its rules: lines are compared after bytes.TrimSpace; blank lines before
// the opener are skipped and the first other line names the format, or
// there is no front matter; a last line without a newline never opens but
// may close; the block ends at the first closing line. A block never
// closed is no front matter (front is nil, rest is the whole note), and
// neither is a note whose first line is no format's opener. A decoding
// error is returned as unmarshal gave it.
func splitFront(data []byte) (front map[string]any, rest []byte, err error) {
	pos := 0
	// line reads the next line: trimmed, and whether it was the last one
	// (no newline after it; it may be empty).
	line := func() (trimmed []byte, atEOF bool) {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			l := data[pos:]
			pos = len(data)
			return bytes.TrimSpace(l), true
		}
		l := data[pos : pos+i+1]
		pos += i + 1
		return bytes.TrimSpace(l), false
	}
	// Detect: the first line that is not blank names the format.
	var f *frontFormat
	start := 0
	for f == nil {
		before := pos
		l, atEOF := line()
		if atEOF {
			return nil, data, nil
		}
		if len(l) == 0 {
			continue
		}
		for i := range frontFormats {
			if frontFormats[i].start == string(l) {
				f = &frontFormats[i]
				break
			}
		}
		if f == nil {
			return nil, data, nil
		}
		start = pos
		if f.withDelims {
			start = before
		}
	}
	// Extract: the block ends at the first closing line (followed by a
	// blank line, for a format that asks for one).
	for {
		end := pos
		l, atEOF := line()
	check:
		if string(l) != f.end {
			if atEOF {
				return nil, data, nil
			}
			continue
		}
		if f.blankAfter {
			if l, atEOF = line(); len(l) != 0 {
				goto check
			}
		}
		if f.withDelims {
			end = pos
		}
		if err := f.unmarshal(data[start:end], &front); err != nil {
			return nil, nil, err
		}
		return front, data[pos:], nil
	}
}
