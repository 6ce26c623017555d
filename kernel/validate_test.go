package kernel_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func TestFixtureRecordsAreValid(t *testing.T) {
	for id, r := range fixture(t).records {
		assert.NoError(t, kernel.Validate(r), id)
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *kernel.Record)
		want kernel.Code
	}{
		{"bad id", func(r *kernel.Record) { r.ID = "../etc" }, kernel.CodeInvalidID},
		{"unknown type", func(r *kernel.Record) { r.Type = "note" }, kernel.CodeInvalidRecord},
		{"blank title", func(r *kernel.Record) { r.Title = " " }, kernel.CodeMissingEvidence},
		{"title over 1024 bytes", func(r *kernel.Record) { r.Title = strings.Repeat("t", 1025) }, kernel.CodeInvalidRecord},
		{"empty category", func(r *kernel.Record) { r.Category = "" }, kernel.CodeMissingEvidence},
		{"body over 1 MiB", func(r *kernel.Record) { r.Body = strings.Repeat("b", kernel.MaxBodyBytes+1) }, kernel.CodeInvalidRecord},
		{"body with a NUL byte", func(r *kernel.Record) { r.Body = "a\x00b" }, kernel.CodeInvalidRecord},
		{"body that is not UTF-8", func(r *kernel.Record) { r.Body = "\xff\xfe" }, kernel.CodeInvalidRecord},
		{"missing provenance.agent", func(r *kernel.Record) { r.Provenance.Agent = "" }, kernel.CodeMissingEvidence},
		{"multi-line provenance.agent", func(r *kernel.Record) { r.Provenance.Agent = "a\nRecord-Op: retire" }, kernel.CodeInvalidRecord},
		{"unknown status", func(r *kernel.Record) { r.Status = "archived" }, kernel.CodeInvalidRecord},
		{"unknown kind", func(r *kernel.Record) { r.Kind = "blob" }, kernel.CodeMissingEvidence},
		{"tag with a newline", func(r *kernel.Record) { r.Tags = []string{"a\nb"} }, kernel.CodeInvalidRecord},
		{"malformed alias", func(r *kernel.Record) { r.Aliases = []string{"A"} }, kernel.CodeMissingEvidence},
		{"link without kind", func(r *kernel.Record) { r.Links = []kernel.Link{{TargetID: rawID}} }, kernel.CodeMissingEvidence},
		{"link label with a newline", func(r *kernel.Record) { r.Links = []kernel.Link{{TargetID: rawID, Kind: "related", Label: "a\nb"}} }, kernel.CodeInvalidRecord},
		{"ttl_seconds 0", func(r *kernel.Record) { r.TTLSeconds = ptr(0.0) }, kernel.CodeMissingEvidence},
		{"ttl_seconds negative", func(r *kernel.Record) { r.TTLSeconds = ptr(-5.0) }, kernel.CodeMissingEvidence},
		// Every record is bounded (docs/format.md, Limits).
		{"too many tags", func(r *kernel.Record) { r.Tags = numbered("t", kernel.MaxTags+1) }, kernel.CodeInvalidRecord},
		{"too many aliases", func(r *kernel.Record) { r.Aliases = numbered("a", kernel.MaxAliases+1) }, kernel.CodeInvalidRecord},
		{"too many links", func(r *kernel.Record) {
			for _, id := range numbered("r", kernel.MaxLinks+1) {
				r.Links = append(r.Links, kernel.Link{TargetID: id, Kind: "related"})
			}
		}, kernel.CodeInvalidRecord},
		{"properties over their bytes", func(r *kernel.Record) {
			r.Properties = kernel.Properties{"a": strings.Repeat("x", kernel.MaxPropertiesBytes/2), "b": strings.Repeat("y", kernel.MaxPropertiesBytes/2)}
		}, kernel.CodeInvalidRecord},
		{"properties over their values", func(r *kernel.Record) {
			list := make([]any, kernel.MaxPropertyValues)
			r.Properties = kernel.Properties{"a": list}
		}, kernel.CodeInvalidRecord},
		{"properties nested too deep", func(r *kernel.Record) {
			var v any = "leaf"
			for range kernel.MaxPropertyDepth {
				v = []any{v}
			}
			r.Properties = kernel.Properties{"a": v}
		}, kernel.CodeInvalidRecord},
		{"property key with a newline", func(r *kernel.Record) { r.Properties = kernel.Properties{"a\nb": true} }, kernel.CodeInvalidRecord},
		{"property of a Go type", func(r *kernel.Record) { r.Properties = kernel.Properties{"a": struct{}{}} }, kernel.CodeInvalidRecord},
		{"written_as too long", func(r *kernel.Record) {
			r.WrittenAs = []kernel.WrittenLink{{Link: "[[x]]", Source: strings.Repeat("y", kernel.MaxWrittenLinkBytes+1)}}
		}, kernel.CodeInvalidRecord},
		{"written_as link over lines", func(r *kernel.Record) { r.WrittenAs = []kernel.WrittenLink{{Link: "[[x\n]]", Source: "[[X]]"}} }, kernel.CodeInvalidRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := get(t, fixture(t), rawID).Clone()
			tt.edit(r)
			err := kernel.Validate(r)
			require.Error(t, err)
			assert.Equal(t, tt.want, kernel.CodeOf(err), "%v", err)
		})
	}
}

// Properties at their bounds are a valid record, and read back the same
// however their values were decoded.
func TestPropertiesAtTheirBounds(t *testing.T) {
	r := get(t, fixture(t), rawID).Clone()
	var deep any = "leaf"
	for range kernel.MaxPropertyDepth - 1 {
		deep = []any{deep}
	}
	r.Properties = kernel.Properties{"deep": deep, "big": strings.Repeat("x", kernel.MaxPropertiesBytes-100)}
	r.WrittenAs = []kernel.WrittenLink{{Link: "[[x|y]]", Source: "[y](multi\nline.md)"}}
	require.NoError(t, kernel.Validate(r))
	assert.Equal(t, kernel.Properties{"n": int64(1), "f": 1.5, "t": "2024-01-02", "m": kernel.Properties{"k": int64(2)}, "l": []any{"a", int64(3)}},
		kernel.NormalizeProperties(map[string]any{"n": 1.0, "f": float32(1.5), "t": time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC),
			"m": map[any]any{"k": uint8(2)}, "l": []any{"a", 3}}), "decoded values take one form")
}

func TestValidateCategory(t *testing.T) {
	for _, ok := range []string{"engineering", "engineering.api", "engineering.api.rest", "a_b-c.0-9", "x"} {
		assert.NoError(t, kernel.ValidateCategory(ok), ok)
	}
	assert.Equal(t, kernel.CodeMissingEvidence, kernel.CodeOf(kernel.ValidateCategory("")), "a missing category is missing evidence")
	for _, bad := range []string{".", "a.", ".a", "a..b", "A", "a.B", "a b", "a/b", "é", "a.b\n"} {
		err := kernel.ValidateCategory(bad)
		assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err), "%q: a malformed category is an invalid record", bad)
		assert.Equal(t, "category", kernel.FieldOf(err), "%q", bad)
	}
}

func TestValidateAlias(t *testing.T) {
	for _, ok := range []string{"a", "0", "decision.strategy/2026-07-03-gtm-direction", "a_b", strings.Repeat("a", kernel.MaxSlugLength)} {
		assert.NoError(t, kernel.ValidateAlias(ok), ok)
	}
	for _, bad := range []string{"", "A", "-a", "a-", "a/", "/a", ".a", "a.", "_a", "a b", "a\nb", strings.Repeat("a", kernel.MaxSlugLength+1),
		// Export joins an alias onto its target: none may leave it.
		"a/../../../.bashrc", "a/../b", "a/./b", "a//b", "a/.git/hooks/pre-commit", "a\\..\\b", "c:/windows", "c:", "/etc/passwd"} {
		err := kernel.ValidateAlias(bad)
		assert.Equal(t, kernel.CodeMissingEvidence, kernel.CodeOf(err), "%q", bad)
		assert.Equal(t, "aliases", kernel.FieldOf(err), "%q: the error names the field the CLI sets with --alias", bad)
	}
}

func TestLookupType(t *testing.T) {
	for _, name := range kernel.TypeNames() {
		def, ok := kernel.LookupType(name)
		require.True(t, ok, name)
		assert.Equal(t, name, def.Name)
	}
	def, ok := kernel.LookupType("acme.widget")
	require.True(t, ok, "a namespaced type without a definition is accepted")
	assert.Equal(t, "acme.widget", def.Name)
	assert.Equal(t, kernel.DefaultAxes.Kind, def.Kind)
	assert.Equal(t, kernel.DefaultAxes.Role, def.Role)
	assert.Equal(t, kernel.DefaultAxes.Authority, def.Authority)

	for _, bad := range []string{"", "widget", "Raw", "acme.", ".acme", "acme..widget", "acme.Widget", "1acme.x"} {
		_, ok := kernel.LookupType(bad)
		assert.False(t, ok, "%q", bad)
	}
}

// numbered is n distinct well-formed slugs.
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}
