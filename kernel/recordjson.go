package kernel

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendJSON appends r's JSON to dst: byte for byte what a json.Encoder
// with SetEscapeHTML(false) and SetIndent(prefix, indent) writes for r
// (compact when both are ""), without the Encoder's trailing newline.
//
// It exists for full reads (list --json and export of every record):
// encoding/json walks the struct by reflection and then indents its own
// output in a second pass, which was a third of the CPU of `list --json`
// at 100,000 records. The common fields are written by hand; the rare
// nested ones (scope, owner, creator, execution, a contract, a mutation's
// evidence, a TTL) still go through encoding/json. TestRecordJSON* hold it
// to encoding/json on records with every field set, and a fuzz target on
// arbitrary strings.
//
// An error is encoding/json's (a TTL that is not a finite number), and
// then dst is returned as it came.
func (r *Record) AppendJSON(dst []byte, prefix, indent string) ([]byte, error) {
	w := jsonWriter{b: dst, prefix: prefix, indent: indent, pretty: prefix != "" || indent != ""}
	w.record(r)
	if w.err != nil {
		return dst, w.err
	}
	return w.b, nil
}

// The hand-written encoder follows Record's fields one by one: this
// conversion stops the build when a field is added to Record (or
// changes type), until AppendJSON follows. A changed json tag is caught by
// TestRecordJSONEveryField.
var _ = recordJSONFields(Record{})

type recordJSONFields struct {
	ID, Type, Title, Category string
	Status                    Status
	Kind                      Kind
	Role                      Role
	Authority                 Authority
	Tags, Aliases             []string
	From, To, Relation        string
	MapsTo                    string
	CreatedAt, UpdatedAt      Timestamp
	ExpiresAt                 *Timestamp
	TTLSeconds                *float64
	ObservedAt                *Timestamp
	Source                    *Source
	Properties                Properties
	WrittenAs                 []WrittenLink
	Scope                     *Scope
	Freshness                 *FreshnessMark
	Owner                     *Owner
	Creator                   *Creator
	Execution                 *Execution
	Contract                  *ExtensionContract
	Provenance                Provenance
	Links                     []Link
	MutationLog               []MutationEntry
	Body                      string
}

// The nested types written by hand, likewise.
var (
	_ = provenanceJSONFields(Provenance{})
	_ = linkJSONFields(Link{})
	_ = mutationJSONFields(MutationEntry{})
	_ = sourceJSONFields(Source{})
	_ = freshnessJSONFields(FreshnessMark{})
	_ = writtenLinkJSONFields(WrittenLink{})
)

type writtenLinkJSONFields struct{ Link, Source string }

type provenanceJSONFields struct {
	Agent, SessionID string
	SourceIDs        []string
	Note             string
	Fallbacks        []string
}

type linkJSONFields struct{ TargetID, Kind, Label string }

type mutationJSONFields struct {
	Op       string
	At       Timestamp
	Agent    string
	Note     string
	NewID    string
	Evidence map[string]any
}

type sourceJSONFields struct{ Extension, ExternalID, ExternalURL, Payload string }

type freshnessJSONFields struct {
	State     FreshnessState
	CheckedAt Timestamp
}

// jsonWriter writes JSON as encoding/json's Encoder does. An object or
// array is opened by open, each member starts with member, and close
// ends it; with indentation on, a member goes on its own line at the
// object's depth plus one, and an empty object or array stays "{}"/"[]".
type jsonWriter struct {
	b              []byte
	prefix, indent string
	pretty         bool
	depth          int
	count          []int // members written so far, per open object or array
	err            error // the first error of encoding/json
}

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.prefix...)
	for range w.depth {
		w.b = append(w.b, w.indent...)
	}
}

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.count = append(w.count, 0)
}

func (w *jsonWriter) close(c byte) {
	n := w.count[len(w.count)-1]
	w.count = w.count[:len(w.count)-1]
	w.depth--
	if n > 0 && w.pretty {
		w.newline()
	}
	w.b = append(w.b, c)
}

// elem starts the next element of an array.
func (w *jsonWriter) elem() {
	n := &w.count[len(w.count)-1]
	if *n > 0 {
		w.b = append(w.b, ',')
	}
	*n++
	if w.pretty {
		w.newline()
	}
}

// key starts the next member of an object (key is a plain ASCII name).
func (w *jsonWriter) key(k string) {
	w.elem()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
	if w.pretty {
		w.b = append(w.b, ' ')
	}
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

func (w *jsonWriter) strOmit(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *jsonWriter) strs(k string, vs []string) {
	if len(vs) == 0 {
		return // every []string of a record is omitempty
	}
	w.key(k)
	w.open('[')
	for _, v := range vs {
		w.elem()
		w.b = appendJSONString(w.b, v)
	}
	w.close(']')
}

func (w *jsonWriter) time(k string, t Timestamp) {
	w.key(k)
	w.b = append(w.b, '"')
	w.b = t.UTC().AppendFormat(w.b, TimestampLayout) // digits and -:.TZ: nothing to escape
	w.b = append(w.b, '"')
}

// value writes v through encoding/json, indented to the current depth.
func (w *jsonWriter) value(k string, v any) {
	w.key(k)
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		if w.err == nil {
			w.err = err
		}
		return
	}
	out := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
	if !w.pretty {
		w.b = append(w.b, out...)
		return
	}
	var ind bytes.Buffer
	p := w.prefix
	for range w.depth {
		p += w.indent
	}
	_ = json.Indent(&ind, out, p, w.indent)
	w.b = append(w.b, ind.Bytes()...)
}

func (w *jsonWriter) record(r *Record) {
	w.open('{')
	w.str("id", r.ID)
	w.str("type", r.Type)
	w.str("title", r.Title)
	w.str("category", r.Category)
	w.strOmit("status", string(r.Status))
	w.strOmit("kind", string(r.Kind))
	w.strOmit("role", string(r.Role))
	w.strOmit("authority", string(r.Authority))
	w.strs("tags", r.Tags)
	w.strs("aliases", r.Aliases)
	w.strOmit("from", r.From)
	w.strOmit("to", r.To)
	w.strOmit("relation", r.Relation)
	w.strOmit("maps_to", r.MapsTo)
	w.time("created_at", r.CreatedAt)
	w.time("updated_at", r.UpdatedAt)
	if r.ExpiresAt != nil {
		w.time("expires_at", *r.ExpiresAt)
	}
	if r.TTLSeconds != nil {
		w.value("ttl_seconds", *r.TTLSeconds)
	}
	if r.ObservedAt != nil {
		w.time("observed_at", *r.ObservedAt)
	}
	if s := r.Source; s != nil {
		w.key("source")
		w.open('{')
		w.strOmit("extension", s.Extension)
		w.strOmit("externalId", s.ExternalID)
		w.strOmit("externalUrl", s.ExternalURL)
		w.strOmit("payload", s.Payload)
		w.close('}')
	}
	if len(r.Properties) > 0 {
		w.value("properties", r.Properties)
	}
	if len(r.WrittenAs) > 0 {
		w.key("written_as")
		w.open('[')
		for _, l := range r.WrittenAs {
			w.elem()
			w.open('{')
			w.str("link", l.Link)
			w.str("source", l.Source)
			w.close('}')
		}
		w.close(']')
	}
	if r.Scope != nil {
		w.value("scope", r.Scope)
	}
	if f := r.Freshness; f != nil {
		w.key("freshness")
		w.open('{')
		w.str("state", string(f.State))
		w.time("checkedAt", f.CheckedAt)
		w.close('}')
	}
	if r.Owner != nil {
		w.value("owner", r.Owner)
	}
	if r.Creator != nil {
		w.value("creator", r.Creator)
	}
	if r.Execution != nil {
		w.value("execution", r.Execution)
	}
	if r.Contract != nil {
		w.value("extension_contract", r.Contract)
	}
	p := &r.Provenance
	w.key("provenance")
	w.open('{')
	w.str("agent", p.Agent)
	w.strOmit("session_id", p.SessionID)
	w.strs("source_ids", p.SourceIDs)
	w.strOmit("note", p.Note)
	w.strs("fallbacks", p.Fallbacks)
	w.close('}')
	if len(r.Links) > 0 {
		w.key("links")
		w.open('[')
		for _, l := range r.Links {
			w.elem()
			w.open('{')
			w.str("target_id", l.TargetID)
			w.str("kind", l.Kind)
			w.strOmit("label", l.Label)
			w.close('}')
		}
		w.close(']')
	}
	if len(r.MutationLog) > 0 {
		w.key("mutation_log")
		w.open('[')
		for i := range r.MutationLog {
			m := &r.MutationLog[i]
			w.elem()
			w.open('{')
			w.str("op", m.Op)
			w.time("at", m.At)
			w.str("agent", m.Agent)
			w.strOmit("note", m.Note)
			w.strOmit("new_id", m.NewID)
			if len(m.Evidence) > 0 {
				w.value("evidence", m.Evidence)
			}
			w.close('}')
		}
		w.close(']')
	}
	w.str("body", r.Body)
	w.close('}')
}

// JSONWriter is the writer Record.AppendJSON writes with, for the other
// values that encode themselves byte for byte as a json.Encoder with
// SetEscapeHTML(false) and SetIndent(prefix, indent) would (compact when
// both are ""): gitstore's search hits. Open an object or array, start
// each member with Key (or Str) and each element with Elem, then Close.
type JSONWriter struct{ w jsonWriter }

// NewJSONWriter writes after dst.
func NewJSONWriter(dst []byte, prefix, indent string) *JSONWriter {
	return &JSONWriter{jsonWriter{b: dst, prefix: prefix, indent: indent, pretty: prefix != "" || indent != ""}}
}

func (j *JSONWriter) Open(c byte)     { j.w.open(c) }
func (j *JSONWriter) Close(c byte)    { j.w.close(c) }
func (j *JSONWriter) Key(k string)    { j.w.key(k) }
func (j *JSONWriter) Elem()           { j.w.elem() }
func (j *JSONWriter) Str(k, v string) { j.w.str(k, v) }
func (j *JSONWriter) String(s string) { j.w.b = appendJSONString(j.w.b, s) }
func (j *JSONWriter) Int(v int64)     { j.w.b = strconv.AppendInt(j.w.b, v, 10) }
func (j *JSONWriter) Null()           { j.w.b = append(j.w.b, "null"...) }
func (j *JSONWriter) Bytes() []byte   { return j.w.b }

// Float writes a finite f as encoding/json writes a float64 (it refuses
// NaN and the infinities: the caller checks).
func (j *JSONWriter) Float(f float64) {
	b, _ := json.Marshal(f)
	j.w.b = append(j.w.b, b...)
}

// appendJSONString appends s as a JSON string (RFC 8259, section 7) with
// the escapes encoding/json writes when HTML escaping is off, so that
// AppendJSON's output is byte for byte an Encoder's: the quotation mark,
// the reverse solidus and the control characters, as the RFC requires;
// U+2028 and U+2029, which JavaScript reads as line ends; and each byte
// that is not UTF-8, written as U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	written := 0 // s[:written] is in dst
	for i, r := range s {
		var escape string
		switch {
		case r < utf8.RuneSelf:
			if escape = asciiJSONEscape[r]; escape == "" {
				continue
			}
		case r == '\u2028':
			escape = `\u2028`
		case r == '\u2029':
			escape = `\u2029`
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			// A byte that is not UTF-8: range reads it as RuneError too.
			escape = `\ufffd`
		default:
			continue
		}
		dst = append(dst, s[written:i]...)
		dst = append(dst, escape...)
		_, width := utf8.DecodeRuneInString(s[i:])
		written = i + width
	}
	dst = append(dst, s[written:]...)
	return append(dst, '"')
}

// asciiJSONEscape is how each ASCII character is written inside a JSON
// string, "" for as itself: RFC 8259's two-character escapes where it has
// one, \u and four hex digits for the other control characters.
var asciiJSONEscape = [utf8.RuneSelf]string{
	0x00: `\u0000`, 0x01: `\u0001`, 0x02: `\u0002`, 0x03: `\u0003`,
	0x04: `\u0004`, 0x05: `\u0005`, 0x06: `\u0006`, 0x07: `\u0007`,
	'\b': `\b`, '\t': `\t`, '\n': `\n`, 0x0b: `\u000b`,
	'\f': `\f`, '\r': `\r`, 0x0e: `\u000e`, 0x0f: `\u000f`,
	0x10: `\u0010`, 0x11: `\u0011`, 0x12: `\u0012`, 0x13: `\u0013`,
	0x14: `\u0014`, 0x15: `\u0015`, 0x16: `\u0016`, 0x17: `\u0017`,
	0x18: `\u0018`, 0x19: `\u0019`, 0x1a: `\u001a`, 0x1b: `\u001b`,
	0x1c: `\u001c`, 0x1d: `\u001d`, 0x1e: `\u001e`, 0x1f: `\u001f`,
	'"': `\"`, '\\': `\\`,
}
