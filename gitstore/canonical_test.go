package gitstore

import (
	"fmt"
	"math/rand/v2"
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
	"23p53t35z3s5zn3hisrcz2tcrj", "2024", "2024-01-01", "2024-1-1", "2024-01-01 10:00:00", "2024-01-01T10:00:00Z", "2024-13-45",
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
