package kernel_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// stdJSON is what Record.AppendJSON must equal: encoding/json's Encoder,
// HTML escaping off, indented by prefix and indent, without its newline.
func stdJSON(t testing.TB, r *kernel.Record, prefix, indent string) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	err := enc.Encode(r)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// indents are the layouts the commands use (list --json and export's
// JSONL) and a few more.
var indents = [][2]string{{"  ", "  "}, {"", ""}, {"", "  "}, {"> ", "\t"}, {"  ", ""}}

func assertSameJSON(t testing.TB, r *kernel.Record) {
	t.Helper()
	for _, in := range indents {
		want, werr := stdJSON(t, r, in[0], in[1])
		got, gerr := r.AppendJSON([]byte("keep:"), in[0], in[1])
		if werr != nil {
			if gerr == nil {
				t.Fatalf("prefix %q indent %q: encoding/json failed (%v), AppendJSON did not", in[0], in[1], werr)
			}
			continue
		}
		if gerr != nil {
			t.Fatalf("prefix %q indent %q: %v", in[0], in[1], gerr)
		}
		if !bytes.Equal(append([]byte("keep:"), want...), got) {
			t.Fatalf("prefix %q indent %q: AppendJSON differs from encoding/json\n got: %s\nwant: keep:%s", in[0], in[1], got, want)
		}
	}
}

// awkward holds every class of character encoding/json treats apart.
const awkward = "a\"b\\c\n\r\t\b\f\x00\x01\x1f\x7f <>&/ é \u2028\u2029 \xff\xfe 😀 \xe2\x82"

// everyField is a record with every field of every nested type set.
func everyField() *kernel.Record {
	ts := func(s string) kernel.Timestamp { v, _ := kernel.ParseTimestamp(s); return v }
	exp, obs := ts("2030-01-02T03:04:05.678Z"), ts("0001-01-01T00:00:00Z")
	ttl := 1e-7
	cleanup := false
	return &kernel.Record{
		ID: "id-" + awkward, Type: "concept", Title: awkward, Category: "a.b",
		Status: kernel.StatusActive, Kind: kernel.KindEntity, Role: kernel.RoleFact, Authority: kernel.AuthorityExternal,
		Tags: []string{"t1", awkward}, Aliases: []string{"al"},
		From: "f", To: "t", Relation: "rel", MapsTo: "m",
		CreatedAt: ts("2026-11-24T10:28:59.776Z"), UpdatedAt: kernel.At(time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC)),
		ExpiresAt: &exp, TTLSeconds: &ttl, ObservedAt: &obs,
		Source:     &kernel.Source{Extension: "x", ExternalID: "<id>", ExternalURL: "https://e/?a=1&b=2", Payload: "sha256:00"},
		Properties: kernel.Properties{"z": awkward, "a": []any{int64(1), 2.5, nil, true, kernel.Properties{"k": "<v>"}}},
		WrittenAs:  []kernel.WrittenLink{{Link: "[[hub|" + awkward + "]]", Source: "[[Hub]]"}, {Link: "[[x]]", Source: awkward}},
		Scope: &kernel.Scope{GitHead: "h", Base: "b", Paths: []string{"p", awkward}, ChangedFilesHash: "c",
			Files: map[string]string{"z": "1", "a&<": awkward}},
		Freshness:  &kernel.FreshnessMark{State: kernel.FreshnessCurrent, CheckedAt: exp},
		Owner:      &kernel.Owner{Principal: "p", SessionKey: "s", AgentID: "a", SandboxName: "sb"},
		Creator:    &kernel.Creator{JobID: "j", DispatchID: "d", WorkItemID: "w"},
		Execution:  &kernel.Execution{State: kernel.ExecOpen, Depth: 2, CleanupOnRunEnd: &cleanup},
		Contract:   &kernel.ExtensionContract{Accepts: []string{"a"}, Produces: []string{"b", "c"}},
		Provenance: kernel.Provenance{Agent: "ag", SessionID: "se", SourceIDs: []string{"s1", "s2"}, Note: awkward, Fallbacks: []string{"fb"}},
		Links:      []kernel.Link{{TargetID: "hub", Kind: "related", Label: awkward}, {TargetID: "x", Kind: "k"}},
		MutationLog: []kernel.MutationEntry{
			{Op: "create", At: exp, Agent: "ag", Note: "n", NewID: "new",
				Evidence: map[string]any{"b": []any{1.5, "x<y", map[string]any{}, []any{}, nil, true}, "a": map[string]any{"k": awkward}}},
			{Op: "update", At: obs, Agent: "ag2"},
		},
		Body: "## Body\n\n" + awkward + " [[hub]]\n",
	}
}

// TestRecordJSONEveryField: a record with every field set, and the same
// record with each field cleared in turn (the omitempty cases), encode as
// encoding/json encodes them. The test fails when Record or a nested type
// gains a field it does not set, so a new field cannot skip the check.
func TestRecordJSONEveryField(t *testing.T) {
	full := everyField()
	var unset func(v reflect.Value, path string)
	unset = func(v reflect.Value, path string) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			require.False(t, f.IsZero(), "%s.%s is not set in everyField: set it, so AppendJSON is checked on it", path, v.Type().Field(i).Name)
			if f.Kind() == reflect.Pointer && f.Elem().Kind() == reflect.Struct && f.Type().Elem() != reflect.TypeOf(kernel.Timestamp{}) {
				unset(f.Elem(), path+"."+v.Type().Field(i).Name)
			}
		}
	}
	unset(reflect.ValueOf(full).Elem(), "Record")
	assertSameJSON(t, full)

	// Each top-level field cleared.
	n := reflect.TypeOf(kernel.Record{}).NumField()
	for i := 0; i < n; i++ {
		r := everyField()
		f := reflect.ValueOf(r).Elem().Field(i)
		f.Set(reflect.Zero(f.Type()))
		assertSameJSON(t, r)
	}
	// Empty, not nil: omitempty drops them as well.
	r := everyField()
	r.Tags, r.Links, r.MutationLog, r.Provenance.SourceIDs = []string{}, []kernel.Link{}, []kernel.MutationEntry{}, []string{}
	r.Source = &kernel.Source{}
	r.MutationLog = []kernel.MutationEntry{{Op: "x", Evidence: map[string]any{}}}
	assertSameJSON(t, r)
	assertSameJSON(t, &kernel.Record{})
}

// TestRecordJSONRefusesWhatEncodingJSONRefuses: a TTL that is not a
// number fails as it does in encoding/json, and dst comes back unchanged.
func TestRecordJSONRefusesWhatEncodingJSONRefuses(t *testing.T) {
	r := everyField()
	nan := math.NaN()
	r.TTLSeconds = &nan
	_, werr := stdJSON(t, r, "", "")
	require.Error(t, werr)
	got, err := r.AppendJSON([]byte("keep"), "  ", "  ")
	require.Error(t, err)
	assert.Equal(t, "keep", string(got))
}

// FuzzRecordJSON: arbitrary strings in every hand-written string field.
func FuzzRecordJSON(f *testing.F) {
	f.Add("hub", awkward, "", "related")
	f.Add("\u2028", "\xed\xa0\x80", "\x00", "")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		r := everyField()
		r.ID, r.Title, r.Category, r.Body = a, b, c, d
		r.Status, r.From, r.MapsTo = kernel.Status(c), d, a
		r.Tags, r.Aliases = []string{a, b}, []string{c}
		r.Source.ExternalURL, r.Source.Payload = b, c
		r.Freshness.State = kernel.FreshnessState(d)
		r.Provenance = kernel.Provenance{Agent: a, SessionID: b, Note: c, SourceIDs: []string{d}}
		r.Links = []kernel.Link{{TargetID: a, Kind: b, Label: c}}
		r.MutationLog[0].Op, r.MutationLog[0].Note, r.MutationLog[0].NewID = d, a, b
		r.MutationLog[0].Evidence = map[string]any{a: b}
		assertSameJSON(t, r)
	})
}
