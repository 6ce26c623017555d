package gitstore

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/git-records/git-records/kernel"
)

// The canonical codec writes and reads the frontmatter of the records the
// store itself writes, byte for byte as yaml.v3 (indent 2) writes them, at a
// fraction of yaml.v3's cost: YAML was half of an import's CPU and a third
// of a cold reindex's. It covers the shape records have (scalars, flow and
// block lists of strings, the nested mappings of provenance, source, scope,
// freshness, links and the mutation log, evidence of strings and lists of
// strings); for anything else (a multi-line note, a value YAML would
// escape, an execution record, a number in evidence) it says no and the
// caller uses yaml.v3. canonical_test.go holds it to yaml.v3's bytes.
//
// Reading is safe by construction: readCanonical parses the frontmatter
// and then writes the record back; only when that gives the same bytes is
// the parse taken. Since appendCanonical writes what yaml.v3 writes, and
// yaml.v3 reads back what it wrote, yaml.v3 would have decoded the same
// record: any other input, however odd, goes to yaml.v3.

// appendCanonical appends r's frontmatter (without the delimiters) as
// yaml.v3 writes it; ok is false for a record it does not cover.
func appendCanonical(b []byte, r *kernel.Record) (_ []byte, ok bool) {
	if r.Owner != nil || r.Creator != nil || r.Execution != nil || r.Contract != nil {
		return b, false
	}
	e := canonicalWriter{b: b, ok: true}
	e.field(0, "id", r.ID)
	e.field(0, "type", r.Type)
	e.field(0, "title", r.Title)
	e.field(0, "category", r.Category)
	e.optField(0, "status", string(r.Status))
	e.optField(0, "kind", string(r.Kind))
	e.optField(0, "role", string(r.Role))
	e.optField(0, "authority", string(r.Authority))
	e.flowList(0, "tags", r.Tags)
	e.flowList(0, "aliases", r.Aliases)
	e.optField(0, "from", r.From)
	e.optField(0, "to", r.To)
	e.optField(0, "relation", r.Relation)
	e.optField(0, "maps_to", r.MapsTo)
	e.timestamp(0, "created_at", r.CreatedAt)
	e.timestamp(0, "updated_at", r.UpdatedAt)
	if r.ExpiresAt != nil && !r.ExpiresAt.IsZero() {
		e.timestamp(0, "expires_at", *r.ExpiresAt)
	}
	if r.TTLSeconds != nil {
		e.key(0, "ttl_seconds")
		e.b = append(e.b, ' ')
		e.b = append(e.b, yamlFloat(*r.TTLSeconds)...)
		e.b = append(e.b, '\n')
	}
	if r.ObservedAt != nil && !r.ObservedAt.IsZero() {
		e.timestamp(0, "observed_at", *r.ObservedAt)
	}
	if s := r.Source; s != nil {
		if *s == (kernel.Source{}) {
			return b, false // yaml.v3 writes {}
		}
		e.key(0, "source")
		e.b = append(e.b, '\n')
		e.optField(2, "extension", s.Extension)
		e.optField(2, "externalId", s.ExternalID)
		e.optField(2, "externalUrl", s.ExternalURL)
		e.optField(2, "payload", s.Payload)
	}
	e.properties(r.Properties)
	if len(r.WrittenAs) > 0 {
		e.key(0, "written_as")
		e.b = append(e.b, '\n')
		for _, l := range r.WrittenAs {
			e.item(2)
			e.field(-1, "link", l.Link)
			e.field(4, "source", l.Source)
		}
	}
	if s := r.Scope; s != nil {
		if len(s.Files) > 0 || (s.GitHead == "" && s.Base == "" && len(s.Paths) == 0 && s.ChangedFilesHash == "") {
			return b, false
		}
		e.key(0, "scope")
		e.b = append(e.b, '\n')
		e.optField(2, "gitHead", s.GitHead)
		e.optField(2, "base", s.Base)
		e.blockList(2, "paths", s.Paths)
		e.optField(2, "changedFilesHash", s.ChangedFilesHash)
	}
	if f := r.Freshness; f != nil {
		e.key(0, "freshness")
		e.b = append(e.b, '\n')
		e.field(2, "state", string(f.State))
		e.timestamp(2, "checkedAt", f.CheckedAt)
	}
	p := r.Provenance
	e.key(0, "provenance")
	e.b = append(e.b, '\n')
	e.field(2, "agent", p.Agent)
	e.optField(2, "session_id", p.SessionID)
	e.flowList(2, "source_ids", p.SourceIDs)
	e.optField(2, "note", p.Note)
	e.blockList(2, "fallbacks", p.Fallbacks)
	if len(r.Links) > 0 {
		e.key(0, "links")
		e.b = append(e.b, '\n')
		for _, l := range r.Links {
			e.item(2)
			e.field(-1, "target_id", l.TargetID)
			e.field(4, "kind", l.Kind)
			e.optField(4, "label", l.Label)
		}
	}
	if len(r.MutationLog) > 0 {
		e.key(0, "mutation_log")
		e.b = append(e.b, '\n')
		for _, m := range r.MutationLog {
			e.item(2)
			e.field(-1, "op", m.Op)
			e.timestamp(4, "at", m.At)
			e.field(4, "agent", m.Agent)
			e.optField(4, "note", m.Note)
			e.optField(4, "new_id", m.NewID)
			e.evidence(4, m.Evidence)
		}
	}
	if !e.ok {
		return b, false
	}
	return e.b, true
}

type canonicalWriter struct {
	b  []byte
	ok bool
}

// key writes "<indent><name>:"; indent -1 continues the line a "- " began.
func (e *canonicalWriter) key(indent int, name string) {
	for range indent {
		e.b = append(e.b, ' ')
	}
	e.b = append(e.b, name...)
	e.b = append(e.b, ':')
}

// item starts a sequence entry: "<indent>- ".
func (e *canonicalWriter) item(indent int) {
	for range indent {
		e.b = append(e.b, ' ')
	}
	e.b = append(e.b, '-', ' ')
}

func (e *canonicalWriter) field(indent int, name, v string) {
	e.key(indent, name)
	e.b = append(e.b, ' ')
	e.scalar(v, false)
	e.b = append(e.b, '\n')
}

func (e *canonicalWriter) optField(indent int, name, v string) {
	if v != "" {
		e.field(indent, name, v)
	}
}

func (e *canonicalWriter) timestamp(indent int, name string, t kernel.Timestamp) {
	s := t.String()
	if !isCanonicalTimestamp(s) {
		e.ok = false
		return
	}
	// A timestamp resolves as one, so yaml.v3 quotes it; it needs no escape.
	e.key(indent, name)
	e.b = append(e.b, ' ', '"')
	e.b = append(e.b, s...)
	e.b = append(e.b, '"', '\n')
}

// flowList writes a list tagged flow: "name: [a, b]" (nothing when empty).
func (e *canonicalWriter) flowList(indent int, name string, list []string) {
	if len(list) == 0 {
		return
	}
	e.key(indent, name)
	e.b = append(e.b, ' ', '[')
	for i, v := range list {
		if i > 0 {
			e.b = append(e.b, ',', ' ')
		}
		e.scalar(v, true)
	}
	e.b = append(e.b, ']', '\n')
}

// blockList writes a list one "- " item a line (nothing when empty).
func (e *canonicalWriter) blockList(indent int, name string, list []string) {
	if len(list) == 0 {
		return
	}
	e.key(indent, name)
	e.b = append(e.b, '\n')
	for _, v := range list {
		e.item(indent + 2)
		e.scalar(v, false)
		e.b = append(e.b, '\n')
	}
}

// properties writes a foreign note's properties when each value is a
// string, a whole or other number, true, false, null or a list of
// strings, under a key of letters, '-' and '_' (an imported note's front
// matter, most often); keys sorted as yaml.v3 sorts them.
func (e *canonicalWriter) properties(p kernel.Properties) {
	if len(p) == 0 {
		return
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		if !isPropertyKey(k) {
			e.ok = false
			return
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, comparePropertyKeys)
	e.key(0, "properties")
	e.b = append(e.b, '\n')
	for _, k := range keys {
		switch v := p[k].(type) {
		case string:
			e.field(2, k, v)
		case bool:
			e.key(2, k)
			e.b = append(e.b, ' ')
			e.b = strconv.AppendBool(e.b, v)
			e.b = append(e.b, '\n')
		case nil:
			e.key(2, k)
			e.b = append(e.b, " null\n"...)
		case int64:
			e.key(2, k)
			e.b = append(e.b, ' ')
			e.b = strconv.AppendInt(e.b, v, 10)
			e.b = append(e.b, '\n')
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) || v == math.Trunc(v) {
				e.ok = false // not a value Properties hold
				return
			}
			e.key(2, k)
			e.b = append(e.b, ' ')
			e.b = append(e.b, yamlFloat(v)...)
			e.b = append(e.b, '\n')
		case []any:
			e.evidenceList(2, k, len(v), func(i int) (string, bool) { s, ok := v[i].(string); return s, ok })
		default:
			e.ok = false
			return
		}
	}
}

// isPropertyKey: keys of ASCII letters, '-' and '_', which yaml.v3
// writes plain (unless YAML would read them as something else, which
// scalarStyle catches) and sorts as comparePropertyKeys does.
func isPropertyKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	_, _, plain := scalarStyle(k, false)
	return plain && !isPlainAmbiguous(k)
}

// comparePropertyKeys is yaml.v3's key order for keys of letters, '-'
// and '_': '-' first, then '_', then letters by code point, a prefix
// before what it starts.
func comparePropertyKeys(a, b string) int {
	rank := func(c byte) int {
		switch c {
		case '-':
			return 0
		case '_':
			return 1
		}
		return 2 + int(c)
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if ra, rb := rank(a[i]), rank(b[i]); ra != rb {
			return ra - rb
		}
	}
	return len(a) - len(b)
}

// evidence writes a mutation log entry's evidence: string values, and
// lists of strings (as kernel ops build them, []string, or as yaml.v3
// reads them back, []any), keys sorted as yaml.v3 sorts them.
func (e *canonicalWriter) evidence(indent int, ev map[string]any) {
	if len(ev) == 0 {
		return
	}
	keys := make([]string, 0, len(ev))
	for k := range ev {
		if !isEvidenceKey(k) {
			e.ok = false
			return
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareEvidenceKeys)
	e.key(indent, "evidence")
	e.b = append(e.b, '\n')
	for _, k := range keys {
		switch v := ev[k].(type) {
		case string:
			e.field(indent+2, k, v)
		case []string:
			e.evidenceList(indent+2, k, len(v), func(i int) (string, bool) { return v[i], true })
		case []any:
			e.evidenceList(indent+2, k, len(v), func(i int) (string, bool) { s, ok := v[i].(string); return s, ok })
		default:
			e.ok = false
			return
		}
	}
}

func (e *canonicalWriter) evidenceList(indent int, name string, n int, at func(int) (string, bool)) {
	if n == 0 {
		e.ok = false // yaml.v3 writes []
		return
	}
	e.key(indent, name)
	e.b = append(e.b, '\n')
	for i := range n {
		s, ok := at(i)
		if !ok {
			e.ok = false
			return
		}
		e.item(indent + 2)
		e.scalar(s, false)
		e.b = append(e.b, '\n')
	}
}

// isEvidenceKey: keys of ASCII letters and underscores, which yaml.v3
// writes plain (unless YAML would read them as something else, which
// scalar catches) and sorts as compareEvidenceKeys does.
func isEvidenceKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false // yaml.v3 writes a key over 128 bytes as "? key"
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	_, _, plain := scalarStyle(k, false)
	return plain && !isPlainAmbiguous(k)
}

// compareEvidenceKeys is yaml.v3's key order for keys of letters and
// underscores: letters by code point, an underscore before any letter,
// a prefix first.
func compareEvidenceKeys(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		switch {
		case a[i] == '_':
			return -1
		case b[i] == '_':
			return 1
		case a[i] < b[i]:
			return -1
		default:
			return 1
		}
	}
	return len(a) - len(b)
}

// scalar writes a string as yaml.v3 writes it in block (flow false) or
// flow context, or marks the record uncovered.
func (e *canonicalWriter) scalar(s string, flow bool) {
	style, covered, _ := scalarStyle(s, flow)
	if !covered {
		e.ok = false
		return
	}
	switch style {
	case '\'':
		e.b = append(e.b, '\'')
		for i := 0; i < len(s); i++ {
			if s[i] == '\'' {
				e.b = append(e.b, '\'')
			}
			e.b = append(e.b, s[i])
		}
		e.b = append(e.b, '\'')
	case '"':
		e.b = append(e.b, '"')
		e.b = append(e.b, s...)
		e.b = append(e.b, '"')
	default:
		e.b = append(e.b, s...)
	}
}

// scalarStyle is the style yaml.v3 writes s in: plain (0), single ('\”)
// or double quoted ('"'); covered is false for what this codec does not
// write (line breaks, tabs, text YAML would escape, and plain text YAML
// might read as a number or a date, which yaml.v3 decides with rules not
// repeated here). plain reports the plain style.
//
// It follows yaml.v3's encoder (stringv: a string that would not read
// back as a string is double quoted) and emitter (analyze_scalar and
// select_scalar_style: indicators and surrounding spaces rule out plain,
// and then single quotes).
func scalarStyle(s string, flow bool) (style byte, covered, plain bool) {
	if !utf8.ValidString(s) {
		return 0, false, false
	}
	readsAsString, decided := resolvesToString(s)
	if !decided {
		return 0, false, false
	}
	blockIndicators, flowIndicators, spaceAtEnds, ok := analyzeScalar(s)
	if !ok {
		return 0, false, false // line breaks, tabs, unprintable: escaped or block style
	}
	if !readsAsString {
		return '"', !strings.ContainsAny(s, "\"\\"), false
	}
	if spaceAtEnds || flow && flowIndicators || !flow && blockIndicators {
		return '\'', true, false
	}
	return 0, true, true
}

// analyzeScalar is yaml.v3's yaml_emitter_analyze_scalar for text without
// line breaks, tabs or unprintable characters (ok false otherwise, the
// cases that need double quotes with escapes or block styles).
func analyzeScalar(s string) (blockIndicators, flowIndicators, spaceAtEnds, ok bool) {
	if len(s) == 0 {
		return false, false, false, true
	}
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockIndicators, flowIndicators = true, true
	}
	precededByWhitespace := true
	for i, w := 0, 0; i < len(s); i += w {
		_, w = utf8.DecodeRuneInString(s[i:])
		if !isYAMLPrintable(s, i) || s[i] == '\t' || isYAMLBreak(s, i) {
			return false, false, false, false
		}
		followedByWhitespace := i+w >= len(s) || s[i+w] == ' ' || s[i+w] == '\t'
		c := s[i]
		if i == 0 {
			switch c {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowIndicators, blockIndicators = true, true
			case '?', ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '-':
				if followedByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		} else {
			switch c {
			case ',', '?', '[', ']', '{', '}':
				flowIndicators = true
			case ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		}
		precededByWhitespace = c == ' '
	}
	spaceAtEnds = s[0] == ' ' || s[len(s)-1] == ' '
	return blockIndicators, flowIndicators, spaceAtEnds, true
}

// isYAMLPrintable is yaml.v3's is_printable at s[i] (valid UTF-8).
func isYAMLPrintable(s string, i int) bool {
	c := s[i]
	at := func(k int) byte {
		if i+k < len(s) {
			return s[i+k]
		}
		return 0
	}
	return c == 0x0A || c >= 0x20 && c <= 0x7E ||
		c == 0xC2 && at(1) >= 0xA0 ||
		c > 0xC2 && c < 0xED ||
		c == 0xED && at(1) < 0xA0 ||
		c == 0xEE ||
		c == 0xEF && !(at(1) == 0xBB && at(2) == 0xBF) && !(at(1) == 0xBF && (at(2) == 0xBE || at(2) == 0xBF))
}

// isYAMLBreak is yaml.v3's is_break: \r, \n, NEL, LS, PS.
func isYAMLBreak(s string, i int) bool {
	switch s[i] {
	case '\r', '\n':
		return true
	case 0xC2:
		return i+1 < len(s) && s[i+1] == 0x85
	case 0xE2:
		return i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9)
	}
	return false
}

// resolvesToString says whether yaml.v3 would read s, written plain, as a
// string (and so may write it plain): decided is false where that takes
// rules this codec does not repeat (text that starts like a number or a
// date and is not plainly one or the other).
func resolvesToString(s string) (readsAsString, decided bool) {
	if s == "" {
		return false, true // null
	}
	if isOldBool(s) || isResolvedWord(s) {
		return false, true
	}
	switch c := s[0]; {
	case c == '.':
		_, err := strconv.ParseFloat(s, 64)
		return err != nil, true
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if looksLikeDate(s) {
			// A calendar date or an RFC 3339 time, as dates in notes'
			// front matter are written, is a timestamp to YAML; other
			// forms are left undecided.
			if isCalendarDate(s) || isRFC3339(s) {
				return false, true
			}
			return false, false
		}
		if strings.IndexByte(s, ':') >= 0 {
			return false, false // base-60 floats
		}
		plain := strings.ReplaceAll(s, "_", "")
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return false, true
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return false, true
		}
		if isYAMLStyleFloat(plain) {
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				return false, true
			}
		}
		for _, prefix := range []string{"0b", "-0b", "0o", "-0o"} {
			if strings.HasPrefix(plain, prefix) {
				return false, false
			}
		}
		return true, true
	}
	return true, true
}

// isPlainAmbiguous: plain text whose first byte makes yaml.v3 look it up
// as a number or date, kept out of evidence keys.
func isPlainAmbiguous(s string) bool {
	c := s[0]
	return c == '.' || c == '+' || c == '-' || c >= '0' && c <= '9'
}

// isOldBool: YAML 1.1 booleans, which yaml.v3 quotes.
func isOldBool(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return true
	}
	return false
}

// isResolvedWord: the words yaml.v3 reads as booleans, null, infinities,
// not-a-number and the merge key.
func isResolvedWord(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "~", "null", "Null", "NULL",
		".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "<<":
		return true
	}
	return false
}

// isCalendarDate: YYYY-MM-DD, a real date.
func isCalendarDate(s string) bool {
	if len(s) != 10 {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// isRFC3339: a date, 'T', a time and a zone, a real instant.
func isRFC3339(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil && strings.IndexByte(s, 'T') == 10
}

// looksLikeDate: four digits and a dash, where yaml.v3 tries dates.
func looksLikeDate(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == 4 && i < len(s) && s[i] == '-'
}

// isYAMLStyleFloat matches ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func isYAMLStyleFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// isCanonicalTimestamp: kernel.TimestampLayout with a four-digit year.
func isCanonicalTimestamp(s string) bool {
	const layout = "dddd-dd-ddTdd:dd:dd.dddZ"
	if len(s) != len(layout) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if layout[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != layout[i] {
			return false
		}
	}
	return true
}

// yamlFloat is yaml.v3's rendering of a float64.
func yamlFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	switch s {
	case "+Inf":
		return ".inf"
	case "-Inf":
		return "-.inf"
	case "NaN":
		return ".nan"
	}
	return s
}

var canonicalBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// readCanonical parses frontmatter the canonical codec writes; ok is false
// for anything else (then yaml.v3 reads it).
func readCanonical(front []byte) (*kernel.Record, bool) {
	bp := canonicalBuffers.Get().(*[]byte)
	defer canonicalBuffers.Put(bp)
	// The reader rewrites sequence dashes in place: it reads a copy.
	*bp = append((*bp)[:0], front...)
	p := canonicalReader{src: *bp}
	r := &kernel.Record{}
	if !p.record(r) {
		return nil, false
	}
	again, ok := appendCanonical((*bp)[:0], r)
	*bp = again
	if !ok || !bytes.Equal(again, front) {
		return nil, false
	}
	return r, true
}

// canonicalReader reads the lines appendCanonical writes. It need not
// check what it reads: readCanonical writes the result back and compares.
type canonicalReader struct {
	src []byte
	pos int
}

// peek returns the next line's indent and text (without the indent and
// the newline); ok false at the end.
func (p *canonicalReader) peek() (indent int, text string, ok bool) {
	if p.pos >= len(p.src) {
		return 0, "", false
	}
	end := bytes.IndexByte(p.src[p.pos:], '\n')
	if end < 0 {
		return 0, "", false
	}
	line := p.src[p.pos : p.pos+end]
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	return indent, string(line[indent:]), true
}

func (p *canonicalReader) next() {
	end := bytes.IndexByte(p.src[p.pos:], '\n')
	p.pos += end + 1
}

// splitKey splits "key: value" or "key:".
func splitKey(text string) (key, value string, ok bool) {
	k, v, found := strings.Cut(text, ":")
	if !found {
		return "", "", false
	}
	if v == "" {
		return k, "", true
	}
	if v[0] != ' ' {
		return "", "", false
	}
	return k, v[1:], true
}

// unquote reads a scalar as appendCanonical writes it.
func unquote(v string) (string, bool) {
	switch {
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
		return v[1 : len(v)-1], true
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'"), true
	case v == "":
		return "", false
	}
	return v, true
}

// flowItems reads "[a, 'b, c', d]".
func flowItems(v string) ([]string, bool) {
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return nil, false
	}
	v = v[1 : len(v)-1]
	var out []string
	for len(v) > 0 {
		var item string
		switch v[0] {
		case '\'':
			i := 1
			for {
				j := strings.IndexByte(v[i:], '\'')
				if j < 0 {
					return nil, false
				}
				i += j + 1
				if i < len(v) && v[i] == '\'' {
					i++
					continue
				}
				break
			}
			item, v = v[:i], v[i:]
		case '"':
			j := strings.IndexByte(v[1:], '"')
			if j < 0 {
				return nil, false
			}
			item, v = v[:j+2], v[j+2:]
		default:
			j := strings.Index(v, ", ")
			if j < 0 {
				j = len(v)
			}
			item, v = v[:j], v[j:]
		}
		s, ok := unquote(item)
		if !ok {
			return nil, false
		}
		out = append(out, s)
		if len(v) > 0 {
			if !strings.HasPrefix(v, ", ") {
				return nil, false
			}
			v = v[2:]
		}
	}
	return out, true
}

// propertyScalar reads a property's value as properties writes it: true,
// false, null, a whole number, another number, or a string. (What it
// misreads does not write back the same, so the caller's comparison
// sends it to yaml.v3.)
func propertyScalar(v string) (any, bool) {
	switch v {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	if v != "" && v[0] != '"' && v[0] != '\'' {
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			return i, true
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f, true
		}
	}
	return unquote(v)
}

func parseTimestampValue(v string) (kernel.Timestamp, bool) {
	s, ok := unquote(v)
	if !ok {
		return kernel.Timestamp{}, false
	}
	t, err := kernel.ParseTimestamp(s)
	return t, err == nil
}

func (p *canonicalReader) record(r *kernel.Record) bool {
	for {
		indent, text, more := p.peek()
		if !more {
			return p.pos == len(p.src)
		}
		if indent != 0 {
			return false
		}
		key, v, ok := splitKey(text)
		if !ok {
			return false
		}
		p.next()
		switch key {
		case "id", "type", "title", "category", "status", "kind", "role", "authority", "from", "to", "relation", "maps_to":
			s, ok := unquote(v)
			if !ok {
				return false
			}
			switch key {
			case "id":
				r.ID = s
			case "type":
				r.Type = s
			case "title":
				r.Title = s
			case "category":
				r.Category = s
			case "status":
				r.Status = kernel.Status(s)
			case "kind":
				r.Kind = kernel.Kind(s)
			case "role":
				r.Role = kernel.Role(s)
			case "authority":
				r.Authority = kernel.Authority(s)
			case "from":
				r.From = s
			case "to":
				r.To = s
			case "relation":
				r.Relation = s
			case "maps_to":
				r.MapsTo = s
			}
		case "tags", "aliases":
			list, ok := flowItems(v)
			if !ok {
				return false
			}
			if key == "tags" {
				r.Tags = list
			} else {
				r.Aliases = list
			}
		case "created_at", "updated_at", "expires_at", "observed_at":
			t, ok := parseTimestampValue(v)
			if !ok {
				return false
			}
			switch key {
			case "created_at":
				r.CreatedAt = t
			case "updated_at":
				r.UpdatedAt = t
			case "expires_at":
				r.ExpiresAt = &t
			case "observed_at":
				r.ObservedAt = &t
			}
		case "ttl_seconds":
			f, err := strconv.ParseFloat(v, 64)
			// yaml.v3 writes -0 as it does any float, but reads it back
			// as the integer 0: the one float it does not read as written.
			if err != nil || f == 0 && math.Signbit(f) {
				return false
			}
			r.TTLSeconds = &f
		case "source":
			r.Source = &kernel.Source{}
			if v != "" || !p.mapping(2, func(k, v string) bool {
				s, ok := unquote(v)
				switch k {
				case "extension":
					r.Source.Extension = s
				case "externalId":
					r.Source.ExternalID = s
				case "externalUrl":
					r.Source.ExternalURL = s
				case "payload":
					r.Source.Payload = s
				default:
					return false
				}
				return ok
			}) {
				return false
			}
		case "properties":
			r.Properties = kernel.Properties{}
			if v != "" || !p.mapping(2, func(k, v string) bool {
				if v == "" {
					list, ok := p.blockList(4, v)
					items := make([]any, len(list))
					for i, s := range list {
						items[i] = s
					}
					r.Properties[k] = items
					return ok
				}
				value, ok := propertyScalar(v)
				r.Properties[k] = value
				return ok
			}) {
				return false
			}
		case "written_as":
			if v != "" || !p.sequence(2, func() bool {
				var l kernel.WrittenLink
				ok := p.mapping(4, func(k, v string) bool {
					s, ok := unquote(v)
					switch k {
					case "link":
						l.Link = s
					case "source":
						l.Source = s
					default:
						return false
					}
					return ok
				})
				r.WrittenAs = append(r.WrittenAs, l)
				return ok
			}) {
				return false
			}
		case "scope":
			r.Scope = &kernel.Scope{}
			if v != "" || !p.mapping(2, func(k, v string) bool {
				if k == "paths" {
					list, ok := p.blockList(4, v)
					r.Scope.Paths = list
					return ok
				}
				s, ok := unquote(v)
				switch k {
				case "gitHead":
					r.Scope.GitHead = s
				case "base":
					r.Scope.Base = s
				case "changedFilesHash":
					r.Scope.ChangedFilesHash = s
				default:
					return false
				}
				return ok
			}) {
				return false
			}
		case "freshness":
			r.Freshness = &kernel.FreshnessMark{}
			if v != "" || !p.mapping(2, func(k, v string) bool {
				switch k {
				case "state":
					s, ok := unquote(v)
					r.Freshness.State = kernel.FreshnessState(s)
					return ok
				case "checkedAt":
					t, ok := parseTimestampValue(v)
					r.Freshness.CheckedAt = t
					return ok
				}
				return false
			}) {
				return false
			}
		case "provenance":
			pr := &r.Provenance
			if v != "" || !p.mapping(2, func(k, v string) bool {
				switch k {
				case "source_ids":
					list, ok := flowItems(v)
					pr.SourceIDs = list
					return ok
				case "fallbacks":
					list, ok := p.blockList(4, v)
					pr.Fallbacks = list
					return ok
				}
				s, ok := unquote(v)
				switch k {
				case "agent":
					pr.Agent = s
				case "session_id":
					pr.SessionID = s
				case "note":
					pr.Note = s
				default:
					return false
				}
				return ok
			}) {
				return false
			}
		case "links":
			if v != "" || !p.sequence(2, func() bool {
				var l kernel.Link
				ok := p.mapping(4, func(k, v string) bool {
					s, ok := unquote(v)
					switch k {
					case "target_id":
						l.TargetID = s
					case "kind":
						l.Kind = s
					case "label":
						l.Label = s
					default:
						return false
					}
					return ok
				})
				r.Links = append(r.Links, l)
				return ok
			}) {
				return false
			}
		case "mutation_log":
			if v != "" || !p.sequence(2, func() bool {
				var m kernel.MutationEntry
				ok := p.mapping(4, func(k, v string) bool {
					switch k {
					case "at":
						t, ok := parseTimestampValue(v)
						m.At = t
						return ok
					case "evidence":
						ev, ok := p.evidence(v)
						m.Evidence = ev
						return ok
					}
					s, ok := unquote(v)
					switch k {
					case "op":
						m.Op = s
					case "agent":
						m.Agent = s
					case "note":
						m.Note = s
					case "new_id":
						m.NewID = s
					default:
						return false
					}
					return ok
				})
				r.MutationLog = append(r.MutationLog, m)
				return ok
			}) {
				return false
			}
		default:
			return false
		}
	}
}

// sequence reads "- " items at indent, each a mapping whose first key is
// on the item's line: the line is rewritten so that mapping reads it at
// indent+2.
func (p *canonicalReader) sequence(indent int, item func() bool) bool {
	n := 0
	for {
		in, text, more := p.peek()
		if !more || in != indent || !strings.HasPrefix(text, "- ") {
			return n > 0
		}
		// Turn "  - k: v" into "    k: v" in place: the dash becomes a space.
		p.src[p.pos+indent] = ' '
		ok := item()
		if !ok {
			return false
		}
		n++
	}
}

// mapping reads "key: value" lines at indent; fn gets each key and value
// (value "" when the key opens a nested block, which fn then reads).
func (p *canonicalReader) mapping(indent int, fn func(k, v string) bool) bool {
	n := 0
	for {
		in, text, more := p.peek()
		if !more || in != indent {
			return n > 0
		}
		k, v, ok := splitKey(text)
		if !ok {
			return false
		}
		p.next()
		if !fn(k, v) {
			return false
		}
		n++
	}
}

// blockList reads "- item" lines at indent after a "key:" line.
func (p *canonicalReader) blockList(indent int, v string) ([]string, bool) {
	if v != "" {
		return nil, false
	}
	var out []string
	for {
		in, text, more := p.peek()
		if !more || in != indent || !strings.HasPrefix(text, "- ") {
			return out, len(out) > 0
		}
		s, ok := unquote(text[2:])
		if !ok {
			return nil, false
		}
		p.next()
		out = append(out, s)
	}
}

// evidence reads an evidence mapping at indent 6: strings, and lists of
// strings at indent 8, as []any (what yaml.v3 reads into map[string]any).
func (p *canonicalReader) evidence(v string) (map[string]any, bool) {
	if v != "" {
		return nil, false
	}
	ev := map[string]any{}
	ok := p.mapping(6, func(k, v string) bool {
		if v == "" {
			list, ok := p.blockList(8, v)
			items := make([]any, len(list))
			for i, s := range list {
				items[i] = s
			}
			ev[k] = items
			return ok
		}
		s, ok := unquote(v)
		ev[k] = s
		return ok
	})
	return ev, ok
}
