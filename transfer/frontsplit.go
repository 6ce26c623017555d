package transfer

import "bytes"

// splitYAMLFront does what adrg/frontmatter's Parse does with
// frontFormats for the notes most vaults hold, without its second copy of
// each note (Parse reads the note through a bufio.Reader into a
// bytes.Buffer): lines are compared after bytes.TrimSpace, blank lines
// before the opener are skipped, a last line without a newline never
// opens but may close. ok is false when the note opens with any other
// format, or a "---" block is never closed: the caller leaves those to
// adrg/frontmatter. FuzzSplitYAMLFront holds it to Parse's answers.
func splitYAMLFront(data []byte) (front map[string]any, rest []byte, ok bool, err error) {
	pos := 0
	line := func() (trimmed []byte, next int, atEOF bool) {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			return bytes.TrimSpace(data[pos:]), len(data), true
		}
		return bytes.TrimSpace(data[pos : pos+i+1]), pos + i + 1, false
	}
	// Detect: the first line that is not blank names the format.
	for {
		l, next, atEOF := line()
		if atEOF {
			return nil, data, true, nil // no format: the whole note is body
		}
		pos = next
		if len(l) == 0 {
			continue
		}
		if string(l) != "---" {
			for _, f := range frontFormats {
				if f.Start == string(l) {
					return nil, nil, false, nil // another format: adrg/frontmatter reads it
				}
			}
			return nil, data, true, nil
		}
		break
	}
	// Extract: the block ends at the first line that is "---".
	start := pos
	for {
		read := pos
		l, next, atEOF := line()
		pos = next
		if string(l) == "---" {
			if err := unmarshalYAML(data[start:read], &front); err != nil {
				return nil, nil, true, err
			}
			return front, data[pos:], true, nil
		}
		if atEOF {
			return nil, nil, false, nil // never closed: adrg/frontmatter says how
		}
	}
}
