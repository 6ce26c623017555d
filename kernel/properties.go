package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Properties are a foreign note's front matter as its source wrote it
// (Obsidian properties, zk, Foam, Dendron, Hugo and Jekyll front matter):
// every key and value, kept so that an export gives them back. They are
// the source's data, never a claim: the record's own fields (id, type,
// title, tags, aliases, times) decide, and a property named like one of
// them (a Dendron note's id) is only what the source said.
//
// Values are JSON values, in one form whatever the source's format was:
// nil, bool, int64 (a whole number), float64 (any other finite number),
// string (a date or time as the source wrote it, RFC 3339), []any and
// Properties. NormalizeProperty makes any decoded value that form, so two
// records holding the same properties compare equal.
type Properties map[string]any

// Bounds of a record's properties (docs/format.md, Limits).
const (
	MaxPropertiesBytes = 64 << 10 // keys and scalar values, summed
	MaxPropertyValues  = 4096     // scalars, lists and mappings, nested ones included
	MaxPropertyDepth   = 8        // lists and mappings inside one another
	MaxPropertyKey     = 200      // bytes of one key
)

// NormalizeProperty returns v in the form Properties hold: the values
// YAML, TOML and JSON decoders give (int, uint64, time.Time, json.Number,
// map[any]any, []map[string]any, ...) made nil, bool, int64, float64,
// string, []any or Properties. A whole float is an int64 (JSON cannot tell
// 1.0 from 1); NaN and the infinities become their YAML text.
func NormalizeProperty(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64:
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint:
		return normalizeUint(uint64(x))
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return normalizeUint(x)
	case float32:
		return normalizeFloat(float64(x))
	case float64:
		return normalizeFloat(x)
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return normalizeFloat(f)
		}
		return string(x)
	case time.Time:
		return propertyTime(x)
	case []byte:
		return string(x)
	case Properties:
		out := make(Properties, len(x))
		for k, e := range x {
			out[k] = NormalizeProperty(e)
		}
		return out
	case map[string]any:
		out := make(Properties, len(x))
		for k, e := range x {
			out[k] = NormalizeProperty(e)
		}
		return out
	case map[any]any:
		out := make(Properties, len(x))
		for k, e := range x {
			out[propertyKey(k)] = NormalizeProperty(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = NormalizeProperty(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case []map[string]any: // TOML arrays of tables
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = NormalizeProperty(e)
		}
		return out
	}
	return fmt.Sprint(v)
}

// NormalizeProperties is NormalizeProperty of a whole front matter; nil
// for an empty one.
func NormalizeProperties(m map[string]any) Properties {
	if len(m) == 0 {
		return nil
	}
	return NormalizeProperty(m).(Properties)
}

func normalizeUint(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
}

func normalizeFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	case f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63:
		return int64(f)
	}
	return f
}

// propertyTime writes a date as YAML and TOML write one: a date alone
// when it is midnight in UTC, else RFC 3339 with its offset.
func propertyTime(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 && t.Location() == time.UTC {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}

func propertyKey(k any) string {
	if s, ok := k.(string); ok {
		return s
	}
	if t, ok := k.(time.Time); ok {
		return propertyTime(t)
	}
	return fmt.Sprint(k)
}

// UnmarshalYAML reads properties in the form they hold.
func (p *Properties) UnmarshalYAML(n *yaml.Node) error {
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return err
	}
	*p = NormalizeProperties(m)
	return nil
}

// UnmarshalJSON reads properties in the form they hold (numbers as
// int64 or float64, as YAML reads them).
func (p *Properties) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	*p = NormalizeProperties(m)
	return nil
}

// Clone copies p deeply.
func (p Properties) Clone() Properties {
	if p == nil {
		return nil
	}
	return NormalizeProperty(p).(Properties)
}

// Keys are p's keys, sorted.
func (p Properties) Keys() []string {
	out := make([]string, 0, len(p))
	for k := range p {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// validateProperties holds properties to their bounds (so no record's
// front matter can hold an unbounded or unboundedly deep value) and to
// the form NormalizeProperty gives.
func validateProperties(p Properties) error {
	size, values := 0, 0
	var check func(v any, depth int, at string) error
	check = func(v any, depth int, at string) error {
		values++
		if values > MaxPropertyValues {
			return Errorf(CodeInvalidRecord, "properties hold more than %d values: keep the front matter smaller", MaxPropertyValues)
		}
		if depth > MaxPropertyDepth {
			return Errorf(CodeInvalidRecord, "properties nest deeper than %d lists and mappings at %s", MaxPropertyDepth, at)
		}
		switch x := v.(type) {
		case nil, bool, int64:
			size += 8
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return Errorf(CodeInvalidRecord, "property %s is not a finite number", at)
			}
			size += 8
		case string:
			if !utf8.ValidString(x) || strings.ContainsRune(x, 0) {
				return Errorf(CodeInvalidRecord, "property %s is not UTF-8 text without NUL bytes", at)
			}
			size += len(x)
		case []any:
			for i, e := range x {
				if err := check(e, depth+1, at+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		case Properties:
			for k, e := range x {
				if err := checkPropertyKey(k); err != nil {
					return err
				}
				size += len(k)
				if err := check(e, depth+1, at+"."+k); err != nil {
					return err
				}
			}
		default:
			return Errorf(CodeInvalidRecord, "property %s holds a %T, which is not a JSON value", at, v)
		}
		if size > MaxPropertiesBytes {
			return Errorf(CodeInvalidRecord, "properties hold more than %d bytes: keep the front matter smaller", MaxPropertiesBytes)
		}
		return nil
	}
	for k, v := range p {
		if err := checkPropertyKey(k); err != nil {
			return err
		}
		size += len(k)
		if err := check(v, 1, k); err != nil {
			return err
		}
	}
	return nil
}

func checkPropertyKey(k string) error {
	if k == "" || len(k) > MaxPropertyKey || !utf8.ValidString(k) || strings.ContainsAny(k, "\x00\r\n") {
		return Errorf(CodeInvalidRecord, "property key %q is not a key: one line of UTF-8, 1 to %d bytes", k, MaxPropertyKey)
	}
	return nil
}

// WrittenLink is one link of a body that an import rewrote: Link as the
// body holds it ([[k2x7…|Note]]), Source as the note's source wrote it
// ([[Note]], [text](note.md)). A record lists them in body order: a link
// the source wrote one way once, one the source wrote several ways (that
// the import writes the same) once for each time it appears.
type WrittenLink struct {
	Link   string `json:"link" yaml:"link"`
	Source string `json:"source" yaml:"source"`
}

// Bounds of a record's written_as.
const (
	MaxWrittenAs        = MaxLinks
	MaxWrittenLinkBytes = 2048
)

func validateWrittenAs(w []WrittenLink) error {
	if len(w) > MaxWrittenAs {
		return Errorf(CodeInvalidRecord, "written_as has %d entries; the limit is %d", len(w), MaxWrittenAs)
	}
	for _, l := range w {
		// The body's link is a wikilink, on one line; the source's may be
		// a Markdown link whose text runs over lines.
		for _, s := range []string{l.Link, l.Source} {
			if s == "" || len(s) > MaxWrittenLinkBytes || !utf8.ValidString(s) || strings.ContainsRune(s, 0) || s == l.Link && strings.ContainsAny(s, "\r\n") {
				return Errorf(CodeInvalidRecord, "written_as entry %q: %q is not a link's text (UTF-8, 1 to %d bytes, the body's link on one line)", l.Link, l.Source, MaxWrittenLinkBytes)
			}
		}
	}
	return nil
}
