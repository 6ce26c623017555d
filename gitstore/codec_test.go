package gitstore

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/gitstore")

const testdataDir = "../testdata/gitstore"

func ts(s string) kernel.Timestamp {
	t, err := kernel.ParseTimestamp(s)
	if err != nil {
		panic(err)
	}
	return t
}

func tsPtr(s string) *kernel.Timestamp { return ptr(ts(s)) }

// richRecord sets every optional field, with values chosen to be awkward
// for YAML: words YAML 1.1 reads as booleans or null, indicators, quotes,
// and text that looks like a delimiter.
func richRecord() *kernel.Record {
	return &kernel.Record{
		ID:         "rec-rich.01",
		Type:       "review.finding",
		Title:      "Token refresh: ünïcödé ✓ 日本語 — \"quoted\" and 'single'",
		Category:   "engineering.api",
		Status:     kernel.StatusImplemented,
		Kind:       kernel.KindEntity,
		Role:       kernel.RoleClaim,
		Authority:  kernel.AuthorityComputed,
		Tags:       []string{"yes", "no", "null", "~", "true", "- x", "# hash", ": colon", "a: b", "'", `"`, "---", "...", "@at", "`tick`", "{brace}", "[seq]", "%pct", "&anchor", "*alias", "!tag", "|", ">", "0x1F", "1e3", "🙂"},
		Aliases:    []string{"token-refresh", "auth/token.refresh"},
		CreatedAt:  ts("2026-03-01T09:30:00Z"),
		UpdatedAt:  ts("2026-03-02T10:00:00.120Z"),
		ExpiresAt:  tsPtr("2026-09-01T00:00:00Z"),
		TTLSeconds: ptr(3600.5),
		ObservedAt: tsPtr("2026-02-28T23:59:59.999Z"),
		Source:     &kernel.Source{Extension: "github", ExternalID: "PR#42: null", ExternalURL: "https://github.com/o/r/pull/42?a=1#x", Payload: "sha256:" + strings.Repeat("ab", 32)},
		Properties: kernel.Properties{"aliases": []any{"Start here", "Projects/Auth", "yes"}, "date": "2024-01-02", "draft": true, "weight": int64(3), "ratio": 1.5,
			"empty": nil, "id": "dendron-id: not ours", "menu": kernel.Properties{"main": kernel.Properties{"weight": int64(-1), "name": "---\nx"}}, "list": []any{}, "nested": []any{[]any{"a"}, kernel.Properties{}}},
		WrittenAs:   []kernel.WrittenLink{{Link: "[[other-record|the source]]", Source: "[[The Source|the source]]"}, {Link: "[[x|t]]", Source: "[t](../notes/t.md \"title\")"}},
		Scope:       &kernel.Scope{GitHead: strings.Repeat("0123456789", 4), Base: "main", Paths: []string{"auth/token.go", "dir with space/b: c.go", "- dash.go"}, ChangedFilesHash: "sha256:" + strings.Repeat("cd", 32)},
		Freshness:   &kernel.FreshnessMark{State: kernel.FreshnessCurrent, CheckedAt: ts("2026-03-02T10:00:00Z")},
		Provenance:  kernel.Provenance{Agent: "reviewer-bot", SessionID: "sess: 1 # not a comment", SourceIDs: []string{"src-1", "yes"}, Note: "first line\n---\nthird line\n"},
		Links:       []kernel.Link{{TargetID: "other-record", Kind: kernel.LinkSource, Label: "the: source # 1"}, {TargetID: "null", Kind: "related"}},
		MutationLog: []kernel.MutationEntry{{Op: "create", At: ts("2026-03-01T09:30:00Z"), Agent: "reviewer-bot", Note: "created\n\n...\n"}, {Op: "update", At: ts("2026-03-02T10:00:00.120Z"), Agent: "yes", Evidence: map[string]any{"fields": []any{"title", "body"}, "count": 2, "nested": map[string]any{"k": "---\nv"}}}},
		Body:        "# Token refresh\n\nSee [[other-record|the source]].\n",
	}
}

// relationRecord is a relation record with a namespaced relation.
func relationRecord() *kernel.Record {
	return &kernel.Record{
		ID: "rel-1", Type: "relation", Title: "closes", Category: "links", Kind: kernel.KindRelation,
		From: "pr-42", To: "issue-7", Relation: "github.closes", MapsTo: "resolves",
		CreatedAt: ts("2026-03-01T09:30:00Z"), UpdatedAt: ts("2026-03-01T09:30:00Z"),
		Provenance: kernel.Provenance{Agent: "importer"},
	}
}

func TestRecordRoundTripIsByteExact(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"empty":                      "",
		"plain":                      "Plain text.\n",
		"no trailing newline":        "no newline at the end",
		"leading newlines":           "\n\nstarts after two blank lines\n",
		"trailing newlines":          "ends in blank lines\n\n\n",
		"only newlines":              "\n\n",
		"delimiter lines":            "---\nnot: frontmatter\n---\n",
		"delimiter at end":           "text\n---",
		"delimiter with space":       "--- \n...\n",
		"CRLF":                       "line one\r\nline two\r\n",
		"lone CR":                    "a\rb",
		"unicode":                    "ünïcödé ✓ 日本語 🙂\u2028line separator\n",
		"trailing spaces":            "spaces   \n\ttab\n   ",
		"yaml-looking":               "id: other\ntype: raw\n",
		"frontmatter-looking prefix": "---\nid: x\n",
	}
	titles := map[string]string{
		"plain":                "A title",
		"newline":              "first line\nsecond line",
		"newline then trailer": "t\n\nRecord-Op: apply",
		"delimiter":            "---",
		"document end":         "...",
		"delimiter inside":     "a\n---\nb",
		"trailing newline":     "ends in a newline\n",
		"leading spaces":       "  indented",
		"CR":                   "carriage\rreturn",
		"yes":                  "yes",
		"null":                 "null",
		"colon space":          "key: value",
		"hash":                 "# not a comment",
		"dash":                 "- x",
		"single quote":         "'",
		"double quote":         `"`,
		"tab":                  "a\tb",
		"number":               "1.0",
	}
	check := func(t *testing.T, r *kernel.Record) {
		t.Helper()
		require.NoError(t, kernel.Validate(r), "the fixture is a valid record")
		data, err := EncodeRecord(r)
		require.NoError(t, err)
		got, err := DecodeRecord(data)
		require.NoError(t, err, "decoding:\n%s", data)
		require.Equal(t, r, got)
		again, err := EncodeRecord(got)
		require.NoError(t, err)
		require.Equal(t, string(data), string(again), "decode then encode gives identical bytes")
		requireNoDelimiterInFrontmatter(t, data)
		require.True(t, bytes.HasSuffix(data, []byte("---\n\n"+r.Body)), "the body is stored verbatim after the frontmatter")
	}
	for name, body := range bodies {
		t.Run("body/"+name, func(t *testing.T) {
			r := richRecord()
			r.Body = body
			check(t, r)
		})
	}
	for name, title := range titles {
		t.Run("title/"+name, func(t *testing.T) {
			r := richRecord()
			r.Title = title
			check(t, r)
		})
	}
	t.Run("relation record", func(t *testing.T) { check(t, relationRecord()) })
	t.Run("minimal record", func(t *testing.T) {
		check(t, &kernel.Record{ID: "m", Type: "raw", Title: "m", Category: "c", CreatedAt: ts("2026-01-01"), UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "a"}})
	})
}

// requireNoDelimiterInFrontmatter: between the two delimiters no line may
// be one a frontmatter splitter or a YAML parser takes for a boundary.
func requireNoDelimiterInFrontmatter(t testing.TB, data []byte) {
	t.Helper()
	front, _, err := splitFrontmatter(data)
	require.NoError(t, err)
	for _, line := range strings.Split(string(front), "\n") {
		require.NotEqual(t, "---", line, "frontmatter line reads as a delimiter:\n%s", front)
		require.NotEqual(t, "---\r", line, "frontmatter line reads as a delimiter:\n%s", front)
		require.False(t, yamlDocumentMarker.MatchString(line), "frontmatter line %q starts or ends a YAML document:\n%s", line, front)
	}
	require.True(t, bytes.HasPrefix(data, []byte("---\n"+string(front)+"---\n")), "the frontmatter ends at the first delimiter line")
}

var yamlDocumentMarker = regexp.MustCompile(`^(---|\.\.\.)([ \t\r]|$)`)

func TestEncodeIsCanonical(t *testing.T) {
	t.Parallel()
	data, err := EncodeRecord(richRecord())
	require.NoError(t, err)

	t.Run("golden file", func(t *testing.T) {
		golden := filepath.Join(testdataDir, "golden", "rich-record.md")
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
			require.NoError(t, os.WriteFile(golden, data, 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "run go test ./gitstore -run TestEncodeIsCanonical -update to create it")
		require.Equal(t, string(want), string(data), "the file format changed: if on purpose, rerun with -update and review the diff")
	})

	t.Run("keys in the record's field order", func(t *testing.T) {
		want := []string{"id", "type", "title", "category", "status", "kind", "role", "authority", "tags", "aliases",
			"created_at", "updated_at", "expires_at", "ttl_seconds", "observed_at", "source", "properties", "written_as",
			"scope", "freshness", "provenance", "links", "mutation_log"}
		require.Equal(t, want, topLevelKeys(data))
		rel, err := EncodeRecord(relationRecord())
		require.NoError(t, err)
		require.Equal(t, []string{"id", "type", "title", "category", "kind", "from", "to", "relation", "maps_to",
			"created_at", "updated_at", "provenance"}, topLevelKeys(rel))
	})

	t.Run("timestamps are fixed-width UTC", func(t *testing.T) {
		stamps := regexp.MustCompile(`(?m)^\s*(?:- )?(created_at|updated_at|expires_at|observed_at|checkedAt|at): (.*)$`).FindAllStringSubmatch(string(data), -1)
		require.Len(t, stamps, 7)
		for _, m := range stamps {
			assert.Regexp(t, `^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$`, m[2], m[1])
		}
	})

	t.Run("hand-written values are normalized", func(t *testing.T) {
		hand := "---\n" +
			"provenance: {agent: a}\n" +
			"updated_at: 2026-03-01T11:30:00.5+02:00\n" +
			"created_at: 2026-03-01\n" +
			"category: c\ntitle: t\ntype: raw\nid: hand\n" +
			"---\nbody without the blank line\n"
		r, err := DecodeRecord([]byte(hand))
		require.NoError(t, err)
		require.Equal(t, "body without the blank line\n", r.Body)
		out, err := EncodeRecord(r)
		require.NoError(t, err)
		require.Equal(t, "---\nid: hand\ntype: raw\ntitle: t\ncategory: c\n"+
			"created_at: \"2026-03-01T00:00:00.000Z\"\nupdated_at: \"2026-03-01T09:30:00.500Z\"\n"+
			"provenance:\n  agent: a\n---\n\nbody without the blank line\n", string(out))
	})

	t.Run("changing one field changes only its lines", func(t *testing.T) {
		r := richRecord()
		r.Category = "engineering.auth"
		changed, err := EncodeRecord(r)
		require.NoError(t, err)
		a, b := strings.Split(string(data), "\n"), strings.Split(string(changed), "\n")
		require.Equal(t, len(a), len(b))
		var diff []string
		for i := range a {
			if a[i] != b[i] {
				diff = append(diff, b[i])
			}
		}
		require.Equal(t, []string{"category: engineering.auth"}, diff)
	})
}

// topLevelKeys lists the unindented keys of a record file's frontmatter.
func topLevelKeys(data []byte) []string {
	front, _, err := splitFrontmatter(data)
	if err != nil {
		panic(err)
	}
	var keys []string
	for _, line := range strings.Split(string(front), "\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && line != "" && line[0] != ' ' && line[0] != '-' {
			keys = append(keys, k)
		}
	}
	return keys
}

// malformedWant is what decoding each file of testdata/gitstore/malformed
// must answer: the code and a part of the message that tells the user what
// is wrong. Every file there needs an entry, and every entry a file.
var malformedWant = map[string]struct {
	code kernel.Code
	msg  string
}{
	"no-opening-delimiter.md":    {kernel.CodeInvalidRecord, `must start with a "---" line`},
	"leading-blank-line.md":      {kernel.CodeInvalidRecord, `must start with a "---" line`},
	"byte-order-mark.md":         {kernel.CodeInvalidRecord, `must start with a "---" line`},
	"unclosed-frontmatter.md":    {kernel.CodeInvalidRecord, "frontmatter is not closed"},
	"crlf-line-endings.md":       {kernel.CodeInvalidRecord, "CRLF"},
	"empty-frontmatter.md":       {kernel.CodeInvalidRecord, "frontmatter is empty"},
	"duplicate-key.md":           {kernel.CodeInvalidRecord, `"title" already defined`},
	"duplicate-nested-key.md":    {kernel.CodeInvalidRecord, `"agent" already defined`},
	"unknown-key.md":             {kernel.CodeInvalidRecord, "field author not found"},
	"unknown-nested-key.md":      {kernel.CodeInvalidRecord, "field agnet not found"},
	"toml-frontmatter.md":        {kernel.CodeInvalidRecord, `must start with a "---" line`},
	"multiple-yaml-documents.md": {kernel.CodeInvalidRecord, "more than one YAML document"},
	"yaml-syntax-error.md":       {kernel.CodeInvalidRecord, "frontmatter: yaml:"},
	"sequence-not-mapping.md":    {kernel.CodeInvalidRecord, "cannot unmarshal"},
	"title-is-a-mapping.md":      {kernel.CodeInvalidRecord, "cannot unmarshal"},
	"bad-timestamp.md":           {kernel.CodeInvalidRecord, `"yesterday" is not an ISO-8601`},
	"alias-bomb.md":              {kernel.CodeInvalidRecord, "excessive aliasing"},
	"alias-bomb-unknown-key.md":  {kernel.CodeInvalidRecord, "frontmatter:"},
	"deeply-nested.md":           {kernel.CodeInvalidRecord, "exceeded max depth"},
	"missing-id.md":              {kernel.CodeInvalidID, "id is empty"},
	"path-escaping-id.md":        {kernel.CodeInvalidID, `invalid id "../../etc/passwd"`},
	"missing-title.md":           {kernel.CodeMissingEvidence, "title is required"},
	"missing-type.md":            {kernel.CodeMissingEvidence, "type is required"},
	"unknown-type.md":            {kernel.CodeInvalidRecord, `type "concpet" is unknown`},
	"missing-category.md":        {kernel.CodeMissingEvidence, "category is required"},
	"missing-agent.md":           {kernel.CodeMissingEvidence, "provenance.agent is required"},
	"missing-created-at.md":      {kernel.CodeInvalidRecord, "created_at is required"},
	"missing-updated-at.md":      {kernel.CodeInvalidRecord, "updated_at is required"},
	"bad-status.md":              {kernel.CodeInvalidRecord, `invalid status "done"`},
	"relation-without-to.md":     {kernel.CodeMissingEvidence, "a relation record needs from, to and relation"},
	"invalid-utf8-body.md":       {kernel.CodeInvalidRecord, "body is not valid UTF-8"},
}

func TestDecodeRejectsMalformedFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testdataDir, "malformed")
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, f := range files {
		name := f.Name()
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			want, ok := malformedWant[name]
			require.True(t, ok, "add %s to malformedWant", name)
			data, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			start := time.Now()
			r, err := DecodeRecord(data)
			require.Less(t, time.Since(start), 2*time.Second, "a hostile file must fail fast")
			require.Nil(t, r)
			requireCode(t, err, want.code)
			require.Contains(t, err.Error(), want.msg)
		})
	}
	for name := range malformedWant {
		assert.True(t, seen[name], "%s is expected in %s", name, dir)
	}
}

// FuzzRecordRoundTrip: every record the kernel accepts survives the file
// format unchanged, and its frontmatter never holds a delimiter line.
func FuzzRecordRoundTrip(f *testing.F) {
	seeds := [][6]string{
		{"rec-1", "A title", "Body.\n", "tag", "a note", "label"},
		{"yes", "yes", "---\n", "null", "---", "- x"},
		{"x", "t\n---\nx", "\n\n---\n---\n", ": ", "...\n--- x", "#"},
		{"a.b-c", "t\n\nRecord-Op: apply", "a\r\nb\r\n", "'", `"`, "a: b"},
		{"z9", "  lead", "trailing\n\n", "\t", "x\u2028y\u0085z", "~"},
		{"u", "日本語 🙂", "---", "{a}", "\x01\x7f", "[x]"},
		{"v", "a\rb", "\r\n---\r\n", "%x", "\n---\n", "&a *a"},
		{"w", "...", "text\n...\n", "!!binary", "  ---  ", "|"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5])
	}
	f.Fuzz(func(t *testing.T, id, title, body, tag, note, label string) {
		at := ts("2026-03-01T09:30:00.123Z")
		r := &kernel.Record{
			ID: id, Type: "concept", Title: title, Category: "fuzz", Body: body,
			Tags: nonEmpty(tag), Aliases: nonEmpty(strings.ToLower(label)),
			CreatedAt: at, UpdatedAt: at, ExpiresAt: &at,
			Source:     &kernel.Source{Extension: "fuzz", ExternalID: note, ExternalURL: label},
			Scope:      &kernel.Scope{Paths: nonEmpty(tag), Base: note},
			Provenance: kernel.Provenance{Agent: "fuzz", SessionID: tag, Note: note, SourceIDs: nonEmpty(label)},
			Links:      []kernel.Link{{TargetID: "target", Kind: "related", Label: label}},
			MutationLog: []kernel.MutationEntry{{Op: "create", At: at, Agent: "fuzz", Note: note,
				Evidence: map[string]any{"proposal": body, "list": []any{title, note}}}},
		}
		if kernel.Validate(r) != nil {
			t.Skip("the kernel rejects this record")
		}
		data, err := EncodeRecord(r)
		require.NoError(t, err, "a valid record must encode")
		requireNoDelimiterInFrontmatter(t, data)
		got, err := DecodeRecord(data)
		require.NoError(t, err, "decoding:\n%s", data)
		require.Equal(t, r, got)
		again, err := EncodeRecord(got)
		require.NoError(t, err)
		require.Equal(t, string(data), string(again))
	})
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func TestRecordPathLayout(t *testing.T) {
	t.Parallel()
	tests := []struct{ typ, id, want string }{
		{"concept", "token-refresh", "records/concept/" + shard("token-refresh") + "/token-refresh.md"},
		{"review.finding", "abc", "records/review.finding/ba/abc.md"}, // sha256("abc") starts with ba
	}
	for _, tt := range tests {
		p := RecordPath(tt.typ, tt.id)
		require.Equal(t, tt.want, p)
		typ, id, ok := ParseRecordPath(p)
		require.True(t, ok)
		require.Equal(t, tt.typ, typ)
		require.Equal(t, tt.id, id)
	}
	for _, bad := range []string{
		"records/concept/00/abc.md",   // wrong shard for the id
		"records/concept/abc.md",      // no shard
		"records/concept/ba/abc.txt",  // not a record file
		"other/concept/ba/abc.md",     // outside records/
		"records/concept/ba/x/abc.md", // too deep
		".records/format",
	} {
		_, _, ok := ParseRecordPath(bad)
		require.False(t, ok, bad)
	}
}

// FuzzDecodeRecord: no input makes the decoder panic or hang, and whatever
// it accepts is a record the encoder writes canonically: decoding the
// encoding gives the same record and encoding it again the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join(testdataDir, "golden", "rich-record.md"))
	require.NoError(f, err)
	f.Add(golden)
	files, err := os.ReadDir(filepath.Join(testdataDir, "malformed"))
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(testdataDir, "malformed", file.Name()))
		require.NoError(f, err)
		if len(data) < 4096 {
			f.Add(data)
		}
	}
	f.Add([]byte("---\nid: x\ntype: raw\ntitle: t\ncategory: c\ncreated_at: 2026-01-01\nupdated_at: 2026-01-01T00:00:00+05:00\nttl_seconds: 0x10\nprovenance: {agent: a}\nmutation_log: [{op: x, at: 2026-01-01, agent: a, evidence: {at: 2026-01-01, n: 1.50, b: !!binary aGk=}}]\n---\nbody"))
	// Found by this fuzzer: an empty list, and timestamps in year 0.
	f.Add([]byte("---\nid: 0\ntype: raw\ntitle: 0\ncategory: 0\ncreated_at: 0000-01-01\nupdated_at: 0000-01-10\nprovenance: {agent: 0}\nmutation_log: []\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRecord(data)
		if err != nil {
			require.NotEqual(t, kernel.CodeInternal, kernel.CodeOf(err), "a bad file is the user's error, coded: %v", err)
			return
		}
		enc, err := EncodeRecord(r)
		require.NoError(t, err, "an accepted record must encode")
		requireNoDelimiterInFrontmatter(t, enc)
		back, err := DecodeRecord(enc)
		require.NoError(t, err, "decoding:\n%s", enc)
		// A hand-written "tags: []" decodes as an empty list and is written
		// as no tags at all: equal as records, not as Go values.
		require.JSONEq(t, mustJSON(t, r), mustJSON(t, back))
		again, err := EncodeRecord(back)
		require.NoError(t, err)
		require.Equal(t, string(enc), string(again))
	})
}

func mustJSON(t testing.TB, v any) string {
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}
