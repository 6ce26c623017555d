package kernel_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// recordKeys are the names of Record's fields as the file format spells them.
func recordKeys() []string {
	var out []string
	rt := reflect.TypeOf(kernel.Record{})
	for i := 0; i < rt.NumField(); i++ {
		tag := strings.Split(rt.Field(i).Tag.Get("yaml"), ",")[0]
		if tag == "-" || tag == "" {
			tag = strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]
		}
		out = append(out, tag)
	}
	return out
}

// TestFieldsCoverRecord: a field added to Record without an entry in
// kernel.Fields would be a field no rule, merge, diff or blame knows.
func TestFieldsCoverRecord(t *testing.T) {
	var names []string
	for _, f := range kernel.Fields {
		names = append(names, f.Name)
	}
	assert.ElementsMatch(t, recordKeys(), names, "kernel.Fields lists every field of kernel.Record once")
	for _, f := range kernel.Fields {
		require.NotNil(t, f.Get, f.Name)
		require.NotNil(t, f.Set, f.Name)
		require.NotNil(t, f.Text, f.Name)
		if f.Merge == kernel.MergeSet {
			require.NotNil(t, f.List, "%s: a set field is a list", f.Name)
		}
	}
}

// twoRecords differ in every field.
func twoRecords() (*kernel.Record, *kernel.Record) {
	at := func(s int) kernel.Timestamp { return kernel.At(time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC)) }
	ts := func(s int) *kernel.Timestamp { v := at(s); return &v }
	f64 := func(v float64) *float64 { return &v }
	a := &kernel.Record{ID: "a", Type: "concept", Title: "A", Category: "eng", Status: kernel.StatusActive,
		Kind: kernel.KindEntity, Role: kernel.RoleClaim, Authority: kernel.AuthorityLocal, Tags: []string{"x"}, Aliases: []string{"al"},
		From: "f1", To: "t1", Relation: "references", MapsTo: "m1", CreatedAt: at(1), UpdatedAt: at(2), ExpiresAt: ts(3),
		TTLSeconds: f64(4), ObservedAt: ts(5), Source: &kernel.Source{ExternalID: "s1"},
		Properties: kernel.Properties{"k": "v1"}, WrittenAs: []kernel.WrittenLink{{Link: "[[a]]", Source: "[[A]]"}}, Scope: &kernel.Scope{Paths: []string{"a.go"}},
		Freshness: &kernel.FreshnessMark{State: kernel.FreshnessCurrent, CheckedAt: at(6)}, Provenance: kernel.Provenance{Agent: "p1"},
		Owner: &kernel.Owner{SessionKey: "s1"}, Creator: &kernel.Creator{JobID: "j1"}, Execution: &kernel.Execution{State: kernel.ExecOpen}, Contract: &kernel.ExtensionContract{Accepts: []string{"a"}},
		Links: []kernel.Link{{TargetID: "b", Kind: "related"}}, MutationLog: []kernel.MutationEntry{{Op: "create", At: at(1), Agent: "p1"}},
		Body: "one"}
	b := &kernel.Record{ID: "b", Type: "raw", Title: "B", Category: "ops", Status: kernel.StatusRetired,
		Kind: kernel.KindEvent, Role: kernel.RoleFact, Authority: kernel.AuthorityExternal, Tags: []string{"y"}, Aliases: []string{"bl"},
		From: "f2", To: "t2", Relation: "blocks", MapsTo: "m2", CreatedAt: at(11), UpdatedAt: at(12), ExpiresAt: ts(13),
		TTLSeconds: f64(14), ObservedAt: ts(15), Source: &kernel.Source{ExternalID: "s2"},
		Properties: kernel.Properties{"k": int64(2)}, WrittenAs: []kernel.WrittenLink{{Link: "[[b]]", Source: "[[B]]"}}, Scope: &kernel.Scope{Paths: []string{"b.go"}},
		Freshness: &kernel.FreshnessMark{State: kernel.FreshnessStale, CheckedAt: at(16)}, Provenance: kernel.Provenance{Agent: "p2"},
		Owner: &kernel.Owner{SessionKey: "s2"}, Creator: &kernel.Creator{JobID: "j2"}, Execution: &kernel.Execution{State: kernel.ExecCancelled}, Contract: &kernel.ExtensionContract{Accepts: []string{"b"}},
		Links: []kernel.Link{{TargetID: "a", Kind: "source"}}, MutationLog: []kernel.MutationEntry{{Op: "create", At: at(11), Agent: "p2"}},
		Body: "two"}
	return a, b
}

// TestFieldAccessors: each entry reads and writes its own field and no
// other, so everything derived from the table sees every change.
func TestFieldAccessors(t *testing.T) {
	a, b := twoRecords()
	assert.Len(t, kernel.ChangedFields(a, b), len(kernel.Fields), "the two records differ in every field")
	assert.Empty(t, kernel.ChangedFields(a, a.Clone()))
	for _, f := range kernel.Fields {
		d := a.Clone()
		f.Set(d, b)
		assert.Equal(t, []string{f.Name}, kernel.ChangedFields(a, d), "%s.Set changes exactly %s", f.Name, f.Name)
		assert.NotEqual(t, f.Text(a), f.Text(b), "%s.Text tells the values apart", f.Name)
	}
}
