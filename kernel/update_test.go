package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func TestUpdateRejects(t *testing.T) {
	ev := kernel.Evidence{Agent: agent}
	tests := []struct {
		name   string
		handle string
		fields kernel.UpdateFields
		ev     kernel.Evidence
		want   kernel.Code
	}{
		{"missing agent", rawID, kernel.UpdateFields{Title: ptr("New")}, kernel.Evidence{}, kernel.CodeMissingEvidence},
		{"blank agent", rawID, kernel.UpdateFields{Title: ptr("New")}, kernel.Evidence{Agent: " "}, kernel.CodeMissingEvidence},
		{"record does not exist", "nope0000", kernel.UpdateFields{Title: ptr("New")}, ev, kernel.CodeNotFound},
		{"no fields (no-op update)", rawID, kernel.UpdateFields{}, ev, kernel.CodeMissingEvidence},
		{"only status, which update ignores", rawID, kernel.UpdateFields{Status: "retired"}, ev, kernel.CodeMissingEvidence},
		{"empty aliases list supplies nothing", rawID, kernel.UpdateFields{Aliases: []string{}}, ev, kernel.CodeMissingEvidence},
		{"title cleared", rawID, kernel.UpdateFields{Title: ptr("")}, ev, kernel.CodeMissingEvidence},
		{"body cleared", rawID, kernel.UpdateFields{Body: ptr("")}, ev, kernel.CodeMissingEvidence},
		{"category cleared", rawID, kernel.UpdateFields{Category: ptr("")}, ev, kernel.CodeMissingEvidence},
		{"category with bad segments", rawID, kernel.UpdateFields{Category: ptr("Engineering..API")}, ev, kernel.CodeInvalidRecord},
		{"malformed alias", rawID, kernel.UpdateFields{Aliases: []string{"Not A Slug"}}, ev, kernel.CodeMissingEvidence},
		{"alias held by another record", rawID, kernel.UpdateFields{Aliases: []string{conceptAlias}}, ev, kernel.CodeSlugConflict},
		{"alias spelled like another record's id", rawID, kernel.UpdateFields{Aliases: []string{conceptID}}, ev, kernel.CodeSlugConflict},
		{"link to a missing target", rawID, kernel.UpdateFields{Links: &[]kernel.Link{{TargetID: "nope0000", Kind: "related"}}}, ev, kernel.CodeNotFound},
		{"link without kind", rawID, kernel.UpdateFields{Links: &[]kernel.Link{{TargetID: raw2ID}}}, ev, kernel.CodeMissingEvidence},
		{"empty tag", rawID, kernel.UpdateFields{Tags: &[]string{""}}, ev, kernel.CodeMissingEvidence},
		{"ttl_seconds 0", rawID, kernel.UpdateFields{TTLSeconds: kernel.TTL(0)}, ev, kernel.CodeInvalidRecord},
		{"ttl_seconds -1", rawID, kernel.UpdateFields{TTLSeconds: kernel.TTL(-1)}, ev, kernel.CodeInvalidRecord},
		{"properties over their bounds", rawID, kernel.UpdateFields{Properties: &kernel.Properties{"k": string(make([]byte, kernel.MaxPropertiesBytes+1))}}, ev, kernel.CodeInvalidRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := fixture(t)
			m, err := kernel.Update(v, tt.handle, tt.fields, tt.ev, opEnv())
			rejects(t, tt.want, m, err)
		})
	}
}

func TestUpdateChangesTheSuppliedFields(t *testing.T) {
	v := fixture(t)
	before := get(t, v, rawID)
	links := []kernel.Link{{TargetID: conceptAlias, Kind: kernel.LinkRelated, Label: "policy"}}
	m, err := kernel.Update(v, rawID, kernel.UpdateFields{
		Title: ptr("Incident report 42 (final)"), Body: ptr("Tokens expired mid-request; fixed."),
		Category: ptr("engineering.auth.incidents"), Tags: &[]string{"incident", "fixed"}, Links: &links,
	}, kernel.Evidence{Agent: agent, Note: "postmortem done"}, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 1)
	r := m.Writes[0]

	assert.Equal(t, "Incident report 42 (final)", r.Title)
	assert.Equal(t, "Tokens expired mid-request; fixed.", r.Body)
	assert.Equal(t, "engineering.auth.incidents", r.Category)
	assert.Equal(t, []string{"incident", "fixed"}, r.Tags)
	assert.Equal(t, []kernel.Link{{TargetID: conceptID, Kind: kernel.LinkRelated, Label: "policy"}}, r.Links,
		"links are replaced, with handles resolved to ids")
	assert.Equal(t, kernel.At(opAt), r.UpdatedAt, "updated_at is refreshed")
	assert.Equal(t, before.CreatedAt, r.CreatedAt)

	require.Len(t, r.MutationLog, len(before.MutationLog)+1)
	assert.Equal(t, before.MutationLog, r.MutationLog[:len(before.MutationLog)], "the log is only appended to")
	assert.Equal(t, kernel.MutationEntry{Op: "update", At: kernel.At(opAt), Agent: agent, Note: "postmortem done",
		Evidence: map[string]any{"fields": []string{"title", "body", "category", "tags", "links"}}}, lastLog(t, r))
	assert.Equal(t, []string{"title,body,category,tags,links"}, trailerValues(m, kernel.TrailerFields))
	assert.Equal(t, "postmortem done", m.Message)

	// H.5: a recategorized record keeps its alias.
	assert.Equal(t, []string{rawAlias}, r.Aliases)
}

func TestUpdateResolvesItsHandle(t *testing.T) {
	for _, handle := range []string{rawID, rawAlias} {
		m, err := kernel.Update(fixture(t), handle, kernel.UpdateFields{Title: ptr("Renamed")}, kernel.Evidence{Agent: agent}, opEnv())
		require.NoError(t, err, handle)
		assert.Equal(t, rawID, m.Writes[0].ID, handle)
	}
}

func TestUpdateNeverChangesStatus(t *testing.T) {
	// B.1: update MUST ignore status if supplied.
	v := fixture(t)
	m, err := kernel.Update(v, rawID, kernel.UpdateFields{Title: ptr("Renamed"), Status: "retired"}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Equal(t, kernel.StatusActive, m.Writes[0].Status)
	assert.Equal(t, map[string]any{"fields": []string{"title"}}, lastLog(t, m.Writes[0]).Evidence, "status is not reported as changed")
}

func TestUpdateAliasesAreAUnion(t *testing.T) {
	v := fixture(t)
	m, err := kernel.Update(v, rawID, kernel.UpdateFields{Aliases: []string{"incidents/42", rawAlias}}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Equal(t, []string{rawAlias, "incidents/42"}, m.Writes[0].Aliases, "an update never drops an issued alias")

	v.commit(m)
	for _, h := range []string{rawAlias, "incidents/42"} {
		id, err := v.Resolve(h)
		require.NoError(t, err)
		assert.Equal(t, rawID, id, h)
	}
}

func TestUpdateReSupplyingOwnAliasIsAccepted(t *testing.T) {
	// H.4: re-supplying a record's own slug is an idempotent no-op, not a SLUG_CONFLICT.
	v := fixture(t)
	m, err := kernel.Update(v, rawID, kernel.UpdateFields{Aliases: []string{rawAlias}}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Nil(t, m, "nothing changes, so nothing is written")
}

// TestUpdateToTheSameValuesWritesNothing: fields given the values they hold
// are no change; an update of only those writes nothing, and one that also
// changes a field names only that field in its evidence.
func TestUpdateToTheSameValuesWritesNothing(t *testing.T) {
	v := fixture(t)
	cur := get(t, v, rawID)
	m, err := kernel.Update(v, rawID, kernel.UpdateFields{Title: ptr(cur.Title), Category: ptr(cur.Category)}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Nil(t, m)
	m, err = kernel.Update(v, rawID, kernel.UpdateFields{Title: ptr(cur.Title), Body: ptr("new body")}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Contains(t, m.Trailers, kernel.Trailer{Key: kernel.TrailerFields, Value: "body"})
}

func TestUpdateAliasSpelledLikeItsOwnIDIsHarmless(t *testing.T) {
	m, err := kernel.Update(fixture(t), rawID, kernel.UpdateFields{Aliases: []string{rawID}}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Equal(t, []string{rawAlias, rawID}, m.Writes[0].Aliases)
}

func TestUpdateFreshnessFields(t *testing.T) {
	v := fixture(t)
	env := opEnv()
	m, err := kernel.Update(v, rawID, kernel.UpdateFields{
		ExpiresAt: expiryJSON(t, `"2026-09-01T00:00:00Z"`), TTLSeconds: ttlJSON(t, `86400`),
	}, kernel.Evidence{Agent: agent}, env)
	require.NoError(t, err)
	assert.Equal(t, ptr(ts(t, "2026-09-01T00:00:00Z")), m.Writes[0].ExpiresAt)
	assert.Equal(t, ptr(86400.0), m.Writes[0].TTLSeconds)
	assert.Equal(t, map[string]any{"fields": []string{"expires_at", "ttl_seconds"}}, lastLog(t, m.Writes[0]).Evidence,
		"J.2: the freshness fields are recorded in the fields evidence like any other")
	v.commit(m)

	// J.2: null or "" on update clears the field.
	for _, clear := range []string{`null`, `""`} {
		t.Run("clear with "+clear, func(t *testing.T) {
			m, err := kernel.Update(v, rawID, kernel.UpdateFields{ExpiresAt: expiryJSON(t, clear), TTLSeconds: ttlJSON(t, clear)}, kernel.Evidence{Agent: agent}, env)
			require.NoError(t, err)
			assert.Nil(t, m.Writes[0].ExpiresAt)
			assert.Nil(t, m.Writes[0].TTLSeconds)
			assert.Equal(t, map[string]any{"fields": []string{"expires_at", "ttl_seconds"}}, lastLog(t, m.Writes[0]).Evidence)
		})
	}
}

func TestUpdateSetsScope(t *testing.T) {
	scope := &kernel.Scope{GitHead: "abc123", Base: "main", Paths: []string{"auth/"}, ChangedFilesHash: "sha256:00"}
	m, err := kernel.Update(fixture(t), compiledID, kernel.UpdateFields{Scope: scope}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Equal(t, scope, m.Writes[0].Scope)
}

// An imported note's properties and links as written change by update
// (an edit of the front matter), as any field does: named in the evidence,
// held to their bounds.
func TestUpdateChangesProperties(t *testing.T) {
	v := fixture(t)
	props := kernel.Properties{"draft": true, "weight": int64(2)}
	written := []kernel.WrittenLink{{Link: "[[" + raw2ID + "|x]]", Source: "[x](x.md)"}}
	m, err := kernel.Update(v, rawID, kernel.UpdateFields{Properties: &props, WrittenAs: &written}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Equal(t, props, m.Writes[0].Properties)
	assert.Equal(t, written, m.Writes[0].WrittenAs)
	assert.Equal(t, "properties,written_as", kernel.TrailerValue(m.Trailers, kernel.TrailerFields))
	require.NoError(t, kernel.CheckWrite(v, m))
}
