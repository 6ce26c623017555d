package gitstore

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-records/git-records/kernel"
	"go.yaml.in/yaml/v3"
)

// The record file format: a "---" line, the YAML frontmatter in canonical
// key order (kernel.Record's field order), a "---" line, one blank line, and
// the body byte for byte.
const delimiter = "---\n"

// EncodeRecord renders r canonically: the same record always gives the same
// bytes, and rewriting a record changes only the lines of what changed.
func EncodeRecord(r *kernel.Record) ([]byte, error) {
	buf := make([]byte, 0, 512+len(r.Body))
	buf = append(buf, delimiter...)
	buf, ok := appendCanonical(buf, r)
	if !ok {
		front, err := encodeYAML(r)
		if err != nil {
			return nil, err
		}
		buf = append(buf, front...)
	}
	// The YAML encoder indents every nested and block-scalar line, so no line
	// of the frontmatter can read as a delimiter; check it anyway, because a
	// file a parser splits differently than we do would be a silent mis-parse.
	if bytes.Contains(buf[len(delimiter):], []byte("\n"+delimiter)) || bytes.HasPrefix(buf[len(delimiter):], []byte(delimiter)) {
		return nil, kernel.Errorf(kernel.CodeInvalidRecord, "record %s would encode a delimiter line inside its frontmatter", r.ID)
	}
	front := len(buf) - len(delimiter)
	buf = append(buf, delimiter...)
	buf = append(buf, '\n')
	buf = append(buf, r.Body...)
	if err := kernel.CheckRecordSize(len(buf), front); err != nil {
		return nil, err
	}
	return buf, nil
}

// encodeYAML is the frontmatter as yaml.v3 writes it, for what the
// canonical codec does not cover (and for its tests).
func encodeYAML(r *kernel.Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return nil, kernel.Wrap(kernel.CodeInvalidRecord, err, "encode record %s", r.ID)
	}
	if err := enc.Close(); err != nil {
		return nil, kernel.Wrap(kernel.CodeInvalidRecord, err, "encode record %s", r.ID)
	}
	return buf.Bytes(), nil
}

// DecodeRecord parses a record file strictly: both delimiters present,
// YAML only, no unknown or duplicate keys, and the result must validate.
func DecodeRecord(data []byte) (*kernel.Record, error) {
	// Sizes first: an oversized file costs nothing to refuse.
	if err := kernel.CheckRecordSize(len(data), 0); err != nil {
		return nil, err
	}
	front, body, err := splitFrontmatter(data)
	if err != nil {
		return nil, err
	}
	if err := kernel.CheckRecordSize(len(data), len(front)); err != nil {
		return nil, err
	}
	r, ok := readCanonical(front)
	if !ok {
		if r, err = decodeYAML(front); err != nil {
			return nil, err
		}
	}
	r.Body = body
	// The envelope requires both timestamps; an absent one would decode as
	// year 1 and be written back as if it had been there all along.
	for _, f := range []struct {
		name string
		t    kernel.Timestamp
	}{{"created_at", r.CreatedAt}, {"updated_at", r.UpdatedAt}} {
		if f.t.IsZero() {
			return nil, kernel.Errorf(kernel.CodeInvalidRecord, "%s is required: an ISO-8601 UTC timestamp like %s", f.name, kernel.TimestampLayout)
		}
	}
	if err := kernel.Validate(r); err != nil {
		return nil, err
	}
	return r, nil
}

// decodeYAML reads frontmatter with yaml.v3, strictly: no unknown or
// duplicate keys, one document.
func decodeYAML(front []byte) (*kernel.Record, error) {
	var r kernel.Record
	dec := yaml.NewDecoder(bytes.NewReader(front))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, kernel.Errorf(kernel.CodeInvalidRecord, "frontmatter is empty")
		}
		return nil, kernel.Errorf(kernel.CodeInvalidRecord, "frontmatter: %v", err)
	}
	var extra yaml.Node
	if dec.Decode(&extra) != io.EOF {
		return nil, kernel.Errorf(kernel.CodeInvalidRecord, "frontmatter holds more than one YAML document")
	}
	return &r, nil
}

// splitFrontmatter finds the frontmatter between the first two delimiter
// lines. It does this itself rather than through a frontmatter library:
// those accept a missing closing delimiter (the whole file becomes body),
// auto-detect TOML, and let yaml.v2 take duplicate keys.
func splitFrontmatter(data []byte) (front []byte, body string, err error) {
	if !bytes.HasPrefix(data, []byte(delimiter)) {
		if bytes.HasPrefix(data, []byte("---\r\n")) {
			return nil, "", kernel.Errorf(kernel.CodeInvalidRecord, "record file uses CRLF line endings: convert it to LF")
		}
		return nil, "", kernel.Errorf(kernel.CodeInvalidRecord, "record file must start with a %q line", strings.TrimSpace(delimiter))
	}
	rest := data[len(delimiter):]
	var end int
	switch {
	case bytes.HasPrefix(rest, []byte(delimiter)):
		end = 0
	default:
		i := bytes.Index(rest, []byte("\n"+delimiter))
		if i < 0 {
			if bytes.HasSuffix(rest, []byte("\n---")) {
				i = len(rest) - 4
				return rest[:i+1], "", nil
			}
			return nil, "", kernel.Errorf(kernel.CodeInvalidRecord, "frontmatter is not closed: add a %q line after it", strings.TrimSpace(delimiter))
		}
		end = i + 1
	}
	front = rest[:end]
	after := rest[end+len(delimiter):]
	// One blank line separates frontmatter and body in the canonical form;
	// hand-written files may omit it.
	if len(after) > 0 && after[0] == '\n' {
		after = after[1:]
	}
	return front, string(after), nil
}

// RecordPath is where a record lives on the branch:
// records/<type>/<xx>/<id>.md, xx the first byte of sha256(id) in hex, so
// that a commit rewrites O(log N) trees however large the store grows.
func RecordPath(typ, id string) string {
	return "records/" + typ + "/" + shard(id) + "/" + id + ".md"
}

// ParseRecordPath splits a path under records/ into type and id.
func ParseRecordPath(p string) (typ, id string, ok bool) {
	parts := strings.Split(p, "/")
	if len(parts) != 4 || parts[0] != "records" || !strings.HasSuffix(parts[3], ".md") {
		return "", "", false
	}
	id = strings.TrimSuffix(parts[3], ".md")
	if shard(id) != parts[2] {
		return "", "", false
	}
	return parts[1], id, true
}

func shard(id string) string {
	sum := sha256.Sum256([]byte(id))
	return fmt.Sprintf("%02x", sum[0])
}
