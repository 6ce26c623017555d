package gitstore

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// awkwardStrings are values YAML treats specially: words it reads as
// booleans, null or numbers, indicators where they matter and where they
// do not, quotes, spaces at the ends, unicode it prints and unicode it
// escapes, line breaks of every kind.
var awkwardStrings = []string{
	"", "plain", "two words", "Note 12 about topic 7", "yes", "Yes", "no", "on", "OFF", "y", "n", "true", "False", "null", "Null", "~",
	"<<", "<x", ".inf", "-.inf", "+.INF", ".nan", ".5", ".x", "..", "...", "... x", "---", "--- x", "--x", "-", "- x", "-x", "-1", "+1",
	"1", "12", "1.5", "1.", "1e3", "1E+3", "1e", "0x1F", "0X1f", "0o17", "0b101", "-0b1", "0b2", "1_000", "_1", "1_a", "007", "08", "1a",
	"23p53t35z3s5zn3hisrcz2tcrj", "2024", "2024-01-01", "2024-1-1", "2024-01-01 10:00:00", "2024-01-01T10:00:00Z", "2024-13-45", "2024-02-30", "2024-02-29", "2023-02-29", "2024-01-02T10:00:00+02:00", "2024-01-02T10:00:00.5Z", "2024-01-02T25:00:00Z", "2024-01-02t10:00:00Z",
	"12:30", "1:2:3", "a:b", "a: b", "a :b", "a:", ":a", ": a", "?a", "? a", "a?", "#a", "a#b", "a #b", "a# b", "a,b", "a, b", ",a",
	"[a]", "a]", "{a}", "a}", "&a", "*a", "!a", "|a", ">a", "'a", "a'b", "it's", "''", `"a"`, `a"b`, `a\b`, "%a", "@a", "`a`",
	" lead", "trail ", " both ", "a  b", "tab\there", "\ttab", "a\nb", "a\rb", "line\n", "nel\u0085x", "ls\u2028x", "ps\u2029x",
	"ünïcödé ✓ 日本語", "emoji 🙂", "nbsp\u00a0x", "\u00a0", "bom\ufeffx", "\x7f", "ctl\x01", "private\ue000", "\ufffd", "noncharacter\uffff",
	"https://example.com/a?b=1#c", "sha256:" + strings.Repeat("ab", 32), "Area 2/Project 62/Note 1.md", "notes.area-2.project-62",
	strings.Repeat("long words ", 40) + "end",
}

// canonicalCorpus builds records from awkward strings in every field the
// codec covers, and the shapes it must leave to yaml.v3.
func canonicalCorpus() []*kernel.Record {
	at := ts("2026-03-01T09:30:00.123Z")
	var out []*kernel.Record
	out = append(out, richRecord(), relationRecord())
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func() string { return awkwardStrings[rng.IntN(len(awkwardStrings))] }
	list := func() []string {
		var l []string
		for range rng.IntN(4) {
			l = append(l, pick())
		}
		return l
	}
	for i, s := range awkwardStrings {
		ttl := float64(i) * 1.5
		r := &kernel.Record{
			ID: s, Type: "concept", Title: s, Category: pick(), Status: kernel.Status(pick()), Kind: kernel.Kind(pick()),
			Tags: []string{s, pick()}, Aliases: list(), From: pick(), Relation: pick(),
			CreatedAt: at, UpdatedAt: at,
			Provenance: kernel.Provenance{Agent: s, SessionID: pick(), SourceIDs: list(), Note: pick(), Fallbacks: list()},
			Links:      []kernel.Link{{TargetID: s, Kind: pick(), Label: pick()}, {TargetID: pick(), Kind: "related"}},
			MutationLog: []kernel.MutationEntry{
				{Op: "create", At: at, Agent: s, Note: pick(), NewID: pick(),
					Evidence: map[string]any{"import": s, "origin": pick(), "fields": []string{s, pick()}, "links": []any{pick()}, "Zeta": "z", "a_b": "x", "ab": "y"}},
				{Op: "update", At: at, Agent: pick(), Evidence: map[string]any{pick(): "v"}},
			},
		}
		switch i % 5 {
		case 0:
			r.Source = &kernel.Source{Extension: "import", ExternalID: s, Payload: pick()}
			r.ExpiresAt = &at
		case 1:
			r.Scope = &kernel.Scope{GitHead: pick(), Paths: []string{s, pick()}, ChangedFilesHash: pick()}
			r.TTLSeconds = &ttl
		case 2:
			r.Freshness = &kernel.FreshnessMark{State: kernel.FreshnessState(s), CheckedAt: at}
			r.ObservedAt = &at
		case 3:
			r.Source = &kernel.Source{} // yaml.v3 writes {}: not covered
		case 4:
			r.MutationLog[0].Evidence["count"] = i // not a string: not covered
		}
		// An imported note's properties and links as written: the string
		// as a value, in a list, as a key (declined unless a plain word).
		r.Properties = kernel.Properties{"title": s, "tags": []any{s, pick()}, "Zeta": int64(i - 40), "a_b": i%2 == 0, "a-b": nil,
			"ab": float64(i) + 0.25, "_x": pick(), "Ab": []any{pick()}}
		if i%3 == 0 {
			r.Properties[s] = pick()
		}
		r.WrittenAs = []kernel.WrittenLink{{Link: s, Source: pick()}, {Link: pick() + "x", Source: s}}
		out = append(out, r)
		// And the string alone in an ordinary record, in each place.
		one := ordinaryRecords()[0]
		one.Title, one.Tags, one.Provenance.Note, one.Links[0].Label = s, []string{"x", s}, s, s
		one.MutationLog[0].Evidence["origin"] = s
		one.MutationLog[1].Evidence["fields"] = []string{s}
		out = append(out, one)
	}
	return out
}

// TestCanonicalWritesWhatYAMLWrites: whatever the canonical codec writes
// is yaml.v3's output byte for byte, and it covers the records ops write.
func TestCanonicalWritesWhatYAMLWrites(t *testing.T) {
	t.Parallel()
	covered := 0
	for i, r := range canonicalCorpus() {
		want, err := encodeYAML(r)
		require.NoError(t, err)
		got, ok := appendCanonical(nil, r)
		if !ok {
			continue
		}
		covered++
		require.Equal(t, string(want), string(got), "record %d (%q)", i, r.ID)
	}
	require.Greater(t, covered, 30, "the corpus's ordinary records are covered")
	for _, r := range ordinaryRecords() {
		got, ok := appendCanonical(nil, r)
		require.True(t, ok, "an ordinary record is covered: %+v", r)
		want, err := encodeYAML(r)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}

// TestCanonicalReadsWhatYAMLReads: what the canonical reader accepts,
// yaml.v3 reads as the same record; what it declines is left to yaml.v3.
func TestCanonicalReadsWhatYAMLReads(t *testing.T) {
	t.Parallel()
	read := 0
	for i, r := range append(canonicalCorpus(), ordinaryRecords()...) {
		front, err := encodeYAML(r)
		require.NoError(t, err)
		want, err := decodeYAML(front)
		require.NoError(t, err, "%s", front)
		got, ok := readCanonical(front)
		if _, covered := appendCanonical(nil, r); covered {
			require.True(t, ok, "record %d: what the codec writes, it reads:\n%s", i, front)
		}
		if !ok {
			continue
		}
		read++
		require.Equal(t, want, got, "record %d:\n%s", i, front)
	}
	require.Greater(t, read, 30)
}

// TestCanonicalDeclinesWhatItDidNotWrite: frontmatter yaml.v3 reads
// differently from how it looks, or that no encoder writes, goes to
// yaml.v3 (which then reads it or refuses it as before).
func TestCanonicalDeclinesWhatItDidNotWrite(t *testing.T) {
	t.Parallel()
	base := "id: a\ntype: concept\ntitle: t\ncategory: c\ncreated_at: \"2026-03-01T09:30:00.123Z\"\nupdated_at: \"2026-03-01T09:30:00.123Z\"\nprovenance:\n  agent: x\n"
	_, ok := readCanonical([]byte(base))
	require.True(t, ok, "the canonical form is read")
	for name, front := range map[string]string{
		"duplicate key":      base + "title: again\n",
		"unknown key":        base + "colour: red\n",
		"keys out of order":  strings.Replace(base, "id: a\ntype: concept\n", "type: concept\nid: a\n", 1),
		"quoted needlessly":  strings.Replace(base, "title: t", "title: \"t\"", 1),
		"null title":         strings.Replace(base, "title: t", "title: null", 1),
		"number title":       strings.Replace(base, "title: t", "title: 0x10", 1),
		"escape":             strings.Replace(base, "title: t", `title: "a\tb"`, 1),
		"comment":            strings.Replace(base, "title: t", "title: t # c", 1),
		"flow mapping":       strings.Replace(base, "provenance:\n  agent: x\n", "provenance: {agent: x}\n", 1),
		"unquoted timestamp": strings.Replace(base, "created_at: \"2026-03-01T09:30:00.123Z\"", "created_at: 2026-03-01T09:30:00.123Z", 1),
		"offset timestamp":   strings.Replace(base, "2026-03-01T09:30:00.123Z", "2026-03-01T10:30:00.123+01:00", 1),
		"empty tags":         base + "tags: []\n",
		"anchor":             strings.Replace(base, "title: t", "title: &a t", 1),
		"tab indent":         strings.Replace(base, "  agent", "\tagent", 1),
		"second document":    base + "---\nid: b\n",
		"no final newline":   strings.TrimSuffix(base, "\n"),
	} {
		_, ok := readCanonical([]byte(front))
		require.False(t, ok, name)
	}
}

// ordinaryRecords are records as ops and imports write them.
func ordinaryRecords() []*kernel.Record {
	at := ts("2026-11-24T07:25:48.539Z")
	var out []*kernel.Record
	for i := range 20 {
		id := kernel.NewID()
		r := &kernel.Record{
			ID: id, Type: "concept", Title: fmt.Sprintf("Seed record %d: Timeout backoff handler", i), Category: "bench.area0.topic18",
			Status: kernel.StatusActive, Kind: kernel.KindEntity, Role: kernel.RoleClaim, Authority: kernel.AuthorityLocal,
			Tags: []string{"bench", fmt.Sprintf("topic-%d", i)}, Aliases: []string{fmt.Sprintf("n%d", i)},
			CreatedAt: at, UpdatedAt: at,
			Source:     &kernel.Source{Extension: "import", ExternalID: fmt.Sprintf("Area 2/Project 62/Note %d about topic 32.md", i)},
			Provenance: kernel.Provenance{Agent: "bench"},
			Links:      []kernel.Link{{TargetID: kernel.NewID(), Kind: kernel.LinkSource}},
			MutationLog: []kernel.MutationEntry{
				{Op: "create", At: at, Agent: "bench", Evidence: map[string]any{"import": "vault vault10k", "origin": "Area 2/x.md"}},
				{Op: "update", At: at, Agent: "bench", Note: "retitled", Evidence: map[string]any{"fields": []string{"title", "body"}}},
				{Op: "supersede", At: at, Agent: "bench", NewID: id, Evidence: map[string]any{"new_id": id, "rationale": "merged: see new"}},
			},
		}
		out = append(out, r)
	}
	return out
}

// FuzzCanonicalCodec: for any strings in any field, the canonical codec
// writes yaml.v3's bytes when it writes at all, and reads what yaml.v3
// reads when it reads at all.
func FuzzCanonicalCodec(f *testing.F) {
	for i, s := range awkwardStrings {
		f.Add(s, awkwardStrings[(i+1)%len(awkwardStrings)], awkwardStrings[(i+7)%len(awkwardStrings)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		at := ts("2026-03-01T09:30:00.123Z")
		r := &kernel.Record{ID: a, Type: "concept", Title: b, Category: c, Tags: []string{a, b}, Aliases: []string{c},
			CreatedAt: at, UpdatedAt: at, Source: &kernel.Source{ExternalID: a},
			Scope:       &kernel.Scope{Paths: []string{b}},
			Provenance:  kernel.Provenance{Agent: a, SourceIDs: []string{c}, Fallbacks: []string{b}},
			Links:       []kernel.Link{{TargetID: a, Kind: b, Label: c}},
			MutationLog: []kernel.MutationEntry{{Op: a, At: at, Agent: b, Note: c, Evidence: map[string]any{"k": a, "l": []any{b, c}}}}}
		want, err := encodeYAML(r)
		if err != nil {
			return
		}
		if got, ok := appendCanonical(nil, r); ok {
			require.Equal(t, string(want), string(got))
		}
		for _, front := range [][]byte{want, []byte(a + "\n"), []byte("id: " + a + "\ntitle: " + b + "\n" + c)} {
			got, ok := readCanonical(front)
			if !ok {
				continue
			}
			yr, err := decodeYAML(front)
			require.NoError(t, err, "%s", front)
			require.Equal(t, yr, got, "%s", front)
		}
	})
}

// requireSameRecord: the canonical reader's record is yaml.v3's, down to
// what reflect.DeepEqual does not tell apart (a negative zero).
func requireSameRecord(t *testing.T, front []byte, got *kernel.Record) {
	t.Helper()
	want, err := decodeYAML(front)
	require.NoError(t, err, "yaml.v3 reads what the canonical reader read:\n%s", front)
	require.Equal(t, want, got, "%s", front)
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	gotJSON, err := json.Marshal(got)
	require.NoError(t, err)
	require.Equal(t, string(wantJSON), string(gotJSON), "%s", front)
}

// hostileFronts are frontmatters an attacker with a signing key could
// push, built on a canonical one: YAML that reads differently from how it
// looks (duplicate keys, merge keys, anchors and aliases, tags, a second
// document, a delimiter inside a value), line ends and spaces the
// canonical form never has (CRLF, a BOM, tabs, trailing spaces, unicode
// line and paragraph separators, NEL), and numbers yaml.v3 reads otherwise.
func hostileFronts() map[string]string {
	base := "id: a\ntype: concept\ntitle: t\ncategory: c\ncreated_at: \"2026-03-01T09:30:00.123Z\"\nupdated_at: \"2026-03-01T09:30:00.123Z\"\nprovenance:\n  agent: x\n"
	title := func(v string) string { return strings.Replace(base, "title: t\n", "title: "+v+"\n", 1) }
	ttl := func(v string) string {
		return strings.Replace(base, "provenance:", "ttl_seconds: "+v+"\nprovenance:", 1)
	}
	evidence := "mutation_log:\n  - op: create\n    at: \"2026-03-01T09:30:00.123Z\"\n    agent: x\n    evidence:\n      origin: o\n"
	return map[string]string{
		"canonical":                base,
		"duplicate title":          base + "title: again\n",
		"duplicate provenance":     base + "provenance:\n  agent: y\n",
		"duplicate evidence key":   base + evidence + "      origin: p\n",
		"duplicate link item keys": base + "links:\n  - target_id: b\n    kind: related\n    target_id: c\n",
		"merge key":                base + "<<: {title: u}\n",
		"merge key in provenance":  strings.Replace(base, "  agent: x\n", "  agent: x\n  <<: {note: n}\n", 1),
		"merge key in evidence":    base + evidence + "      <<: {x: y}\n",
		"anchor and alias":         strings.Replace(title("&t t"), "category: c", "category: *t", 1),
		"alias title":              title("*a"),
		"binary tag":               title("!!binary dA=="),
		"str tag":                  title("!!str t"),
		"local tag":                title("!t t"),
		"int tag on ttl":           ttl("!!int 5"),
		"negative zero ttl":        ttl("-0"),
		"hex ttl":                  ttl("0x10"),
		"underscore ttl":           ttl("1_0"),
		"infinite ttl":             ttl(".inf"),
		"ttl":                      ttl("30"),
		"float ttl":                ttl("1.5"),
		"exponent ttl":             ttl("1e+21"),
		"Inf ttl":                  ttl("+Inf"),
		"NaN ttl":                  ttl("NaN"),
		"second document":          base + "---\nid: b\n",
		"document end":             base + "...\n",
		"delimiter in a value":     title("--- t"),
		"delimiter line in value":  title("|\n  ---\n  t"),
		"CRLF":                     strings.ReplaceAll(base, "\n", "\r\n"),
		"CR in a value":            title("t\rx"),
		"BOM":                      "\ufeff" + base,
		"BOM in a value":           title("t\ufeffx"),
		"tab before a value":       strings.Replace(base, "title: t", "title:\tt", 1),
		"tab indent":               strings.Replace(base, "  agent", "\tagent", 1),
		"trailing space":           title("t "),
		"trailing space on a key":  strings.Replace(base, "provenance:\n", "provenance: \n", 1),
		"line separator":           title("t\u2028x"),
		"paragraph separator":      title("t\u2029x"),
		"NEL":                      title("t\u0085x"),
		"folded continuation":      title("t\n  continued"),
		"plain continuation":       strings.Replace(base, "title: t\n", "title: t\n continued\n", 1),
		"comment":                  title("t #c"),
		"comment line":             base + "# c\n",
		"flow mapping":             strings.Replace(base, "provenance:\n  agent: x\n", "provenance: {agent: x}\n", 1),
		"flow tag list":            base + "tags: [a, [b]]\n",
		"flow list trailing comma": base + "tags: [a, b,]\n",
		"flow list quoted comma":   base + "tags: ['a, b', c]\n",
		"double quoted escape":     title(`"t\x41"`),
		"double quoted tab escape": title(`"t\tx"`),
		"single quoted newline":    title("'t\n\n  x'"),
		"quoted key":               strings.Replace(base, "title: t", "\"title\": t", 1),
		"explicit key":             strings.Replace(base, "title: t", "? title\n: t", 1),
		"indent 4":                 strings.Replace(base, "  agent", "    agent", 1),
		"block list at indent 0":   base + "aliases:\n- a\n",
		"evidence list":            base + strings.Replace(evidence, "      origin", "      fields:\n        - a\n        - b\n      origin", 1),
		"evidence list compact":    base + evidence + "      fields:\n      - a\n",
		"evidence nested map":      base + evidence + "      deep:\n        k: v\n",
		"yes title":                title("yes"),
		"null category":            strings.Replace(base, "category: c", "category: ~", 1),
		"empty title":              title(""),
		"timestamp unquoted":       strings.Replace(base, `created_at: "2026-03-01T09:30:00.123Z"`, "created_at: 2026-03-01T09:30:00.123Z", 1),
		"timestamp single-quoted":  strings.Replace(base, `created_at: "2026-03-01T09:30:00.123Z"`, "created_at: '2026-03-01T09:30:00.123Z'", 1),
		"no final newline":         strings.TrimSuffix(base, "\n"),
		"blank line":               base + "\n",
		"NUL":                      title("t\x00"),
		"invalid UTF-8":            title("t\xff"),
	}
}

// TestCanonicalReadsHostileFrontmatter: whatever the canonical reader
// accepts of hostile frontmatter, yaml.v3 reads as the same record;
// everything else is left to yaml.v3 (and the kernel).
func TestCanonicalReadsHostileFrontmatter(t *testing.T) {
	t.Parallel()
	for name, front := range hostileFronts() {
		got, ok := readCanonical([]byte(front))
		if name == "canonical" || name == "evidence list" || name == "ttl" {
			require.True(t, ok, name)
		}
		if ok {
			requireSameRecord(t, []byte(front), got)
		}
	}
}

// FuzzCanonicalRead: for any frontmatter bytes, what the canonical reader
// accepts yaml.v3 reads as the same record, and the reader never panics.
func FuzzCanonicalRead(f *testing.F) {
	for _, front := range hostileFronts() {
		f.Add([]byte(front))
	}
	for _, r := range append(canonicalCorpus()[:40], ordinaryRecords()[:2]...) {
		if front, ok := appendCanonical(nil, r); ok {
			f.Add(front)
		}
	}
	f.Fuzz(func(t *testing.T, front []byte) {
		if got, ok := readCanonical(front); ok {
			requireSameRecord(t, front, got)
		}
	})
}

// fillSample sets v (and every field beneath it) to a value that is not
// zero: what the canonical writer must either write as yaml.v3 does or
// decline.
func fillSample(v reflect.Value) {
	switch {
	case v.Type() == reflect.TypeOf(kernel.Timestamp{}):
		v.Set(reflect.ValueOf(ts("2026-03-01T09:30:00.123Z")))
		return
	case v.Type() == reflect.TypeOf(map[string]any{}):
		v.Set(reflect.ValueOf(map[string]any{"origin": "o", "fields": []string{"title"}}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("sample")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(3)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillSample(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillSample(v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillSample(k)
		fillSample(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillSample(v.Field(i))
			}
		}
	}
}

// An imported note's record (front matter of strings, lists of strings,
// numbers and booleans; links as the source wrote them) is the canonical
// codec's, both ways: an import writes thousands.
func TestCanonicalCoversImportedNotes(t *testing.T) {
	t.Parallel()
	r := ordinaryRecords()[0]
	r.Properties = kernel.Properties{"aliases": []any{"Start here", "Projects/Auth"}, "tags": []any{"start", "#vault"}, "cssclasses": "wide",
		"date": "2024-01-02", "draft": false, "weight": int64(10), "rating": 4.5, "description": "A note: with a colon", "lastmod": nil}
	r.WrittenAs = []kernel.WrittenLink{{Link: "[[tplelntdep46anybpme5oo3s4e|Token refresh]]", Source: "[[Token refresh]]"},
		{Link: "![[mz2iagcbccecytidrhxcgitdj3|diagram.png]]", Source: "![diagram](img/diagram%20v2.png \"Diagram\")"}}
	got, ok := appendCanonical(nil, r)
	require.True(t, ok, "covered")
	want, err := encodeYAML(r)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	back, ok := readCanonical(got)
	require.True(t, ok, "read back by the canonical reader")
	require.Equal(t, r.Properties, back.Properties)
	require.Equal(t, r.WrittenAs, back.WrittenAs)
}

// TestCanonicalCoversEveryField: a field of the record (or of what it
// nests) that the canonical writer does not know is never dropped: with
// each field set in turn, and with all of them, it writes yaml.v3's bytes
// or declines. A field added to the record later fails here until the
// codec learns it or declines it.
func TestCanonicalCoversEveryField(t *testing.T) {
	t.Parallel()
	rt := reflect.TypeOf(kernel.Record{})
	check := func(name string, r *kernel.Record) {
		want, err := encodeYAML(r)
		require.NoError(t, err, name)
		if got, ok := appendCanonical(nil, r); ok {
			require.Equal(t, string(want), string(got), "with %s set", name)
		}
	}
	covered := 0
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Tag.Get("yaml") == "-" {
			continue
		}
		r := ordinaryRecords()[0]
		fillSample(reflect.ValueOf(r).Elem().Field(i))
		check(f.Name, r)
		if _, ok := appendCanonical(nil, r); ok {
			covered++
		}
	}
	require.Greater(t, covered, 20, "the fields ops write are covered")
	all := &kernel.Record{}
	fillSample(reflect.ValueOf(all).Elem())
	all.Owner, all.Creator, all.Execution, all.Contract = nil, nil, nil, nil
	all.Scope.Files = nil
	check("every field", all)
	_, ok := appendCanonical(nil, all)
	require.True(t, ok, "a record with every field the codec covers is covered")
}

// FuzzCanonicalTTL: any ttl is written as yaml.v3 writes it, and read back
// as yaml.v3 reads it (-0 is the float yaml.v3 reads otherwise).
func FuzzCanonicalTTL(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, 1.5, 30, 1e6, 1e20, 1e21, 1e-7, math.MaxInt64, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.NaN()} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, ttl float64) {
		r := ordinaryRecords()[0]
		r.TTLSeconds = &ttl
		want, err := encodeYAML(r)
		require.NoError(t, err)
		got, ok := appendCanonical(nil, r)
		require.True(t, ok)
		require.Equal(t, string(want), string(got))
		if back, ok := readCanonical(got); ok {
			requireSameRecord(t, got, back)
		}
	})
}
