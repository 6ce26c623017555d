package kernel_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func validCreate() kernel.CreateInput {
	return kernel.CreateInput{
		Type: "compiled", Title: "Refresh early", Body: "Refresh tokens a minute before expiry.",
		Category: "engineering.auth", Provenance: kernel.Provenance{Agent: agent},
	}
}

func TestCreateRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(in *kernel.CreateInput)
		want kernel.Code
	}{
		// §6.1 required fields.
		{"missing type", func(in *kernel.CreateInput) { in.Type = "" }, kernel.CodeMissingEvidence},
		{"missing title", func(in *kernel.CreateInput) { in.Title = "" }, kernel.CodeMissingEvidence},
		{"blank title", func(in *kernel.CreateInput) { in.Title = "  \t" }, kernel.CodeMissingEvidence},
		{"missing body", func(in *kernel.CreateInput) { in.Body = "" }, kernel.CodeMissingEvidence},
		{"missing category", func(in *kernel.CreateInput) { in.Category = "" }, kernel.CodeMissingEvidence},
		{"missing provenance.agent", func(in *kernel.CreateInput) { in.Provenance.Agent = "" }, kernel.CodeMissingEvidence},
		{"blank provenance.agent", func(in *kernel.CreateInput) { in.Provenance.Agent = "  " }, kernel.CodeMissingEvidence},

		// §6.1 / A.2: type must be known; a bare unknown word is a typo, not a new type.
		{"unknown type (typo)", func(in *kernel.CreateInput) { in.Type = "concpet" }, kernel.CodeInvalidRecord},
		{"unknown bare type", func(in *kernel.CreateInput) { in.Type = "widget" }, kernel.CodeInvalidRecord},
		{"uppercase type", func(in *kernel.CreateInput) { in.Type = "Concept" }, kernel.CodeInvalidRecord},

		// §3 category segments.
		{"category with uppercase", func(in *kernel.CreateInput) { in.Category = "Engineering.api" }, kernel.CodeInvalidRecord},
		{"category with empty segment", func(in *kernel.CreateInput) { in.Category = "engineering..api" }, kernel.CodeInvalidRecord},
		{"category with leading dot", func(in *kernel.CreateInput) { in.Category = ".engineering" }, kernel.CodeInvalidRecord},
		{"category with trailing dot", func(in *kernel.CreateInput) { in.Category = "engineering." }, kernel.CodeInvalidRecord},
		{"category with a space", func(in *kernel.CreateInput) { in.Category = "engineering api" }, kernel.CodeInvalidRecord},
		{"category with a slash", func(in *kernel.CreateInput) { in.Category = "engineering/api" }, kernel.CodeInvalidRecord},
		{"category of a lone dot", func(in *kernel.CreateInput) { in.Category = "." }, kernel.CodeInvalidRecord},

		// H.4 slug aliases.
		{"alias with uppercase", func(in *kernel.CreateInput) { in.Aliases = []string{"Refresh-Early"} }, kernel.CodeMissingEvidence},
		{"alias with a space", func(in *kernel.CreateInput) { in.Aliases = []string{"refresh early"} }, kernel.CodeMissingEvidence},
		{"alias starting with a dash", func(in *kernel.CreateInput) { in.Aliases = []string{"-refresh"} }, kernel.CodeMissingEvidence},
		{"alias ending with a slash", func(in *kernel.CreateInput) { in.Aliases = []string{"engineering.auth/"} }, kernel.CodeMissingEvidence},
		{"empty alias", func(in *kernel.CreateInput) { in.Aliases = []string{""} }, kernel.CodeMissingEvidence},
		{"alias over 200 characters", func(in *kernel.CreateInput) { in.Aliases = []string{strings.Repeat("a", 201)} }, kernel.CodeMissingEvidence},
		{"alias held by another record", func(in *kernel.CreateInput) { in.Aliases = []string{"fresh-slug", rawAlias} }, kernel.CodeSlugConflict},
		{"alias spelled like another record's id", func(in *kernel.CreateInput) { in.Aliases = []string{conceptID} }, kernel.CodeSlugConflict},

		// Links.
		{"link to a missing target", func(in *kernel.CreateInput) { in.Links = []kernel.Link{{TargetID: "nope0000", Kind: "source"}} }, kernel.CodeNotFound},
		{"link without target_id", func(in *kernel.CreateInput) { in.Links = []kernel.Link{{Kind: "source"}} }, kernel.CodeMissingEvidence},
		{"link without kind", func(in *kernel.CreateInput) { in.Links = []kernel.Link{{TargetID: rawID}} }, kernel.CodeMissingEvidence},
		{"link kind that is not a word", func(in *kernel.CreateInput) { in.Links = []kernel.Link{{TargetID: rawID, Kind: "is source"}} }, kernel.CodeMissingEvidence},

		// J.2 freshness fields.
		// (A malformed value is refused where it is read: TestFreshnessInputsRefusedWhereRead.)
		{"ttl_seconds 0", func(in *kernel.CreateInput) { in.TTLSeconds = kernel.TTL(0) }, kernel.CodeInvalidRecord},
		{"ttl_seconds -1", func(in *kernel.CreateInput) { in.TTLSeconds = kernel.TTL(-1) }, kernel.CodeInvalidRecord},

		// Agent Kit fields.
		{"observed_at malformed", func(in *kernel.CreateInput) { in.ObservedAt = "yesterday" }, kernel.CodeInvalidRecord},
		{"unknown kind", func(in *kernel.CreateInput) { in.Kind = "blob" }, kernel.CodeMissingEvidence},
		{"unknown role", func(in *kernel.CreateInput) { in.Role = "rumour" }, kernel.CodeMissingEvidence},
		{"unknown authority", func(in *kernel.CreateInput) { in.Authority = "vibes" }, kernel.CodeMissingEvidence},
		{"empty tag", func(in *kernel.CreateInput) { in.Tags = []string{"auth", ""} }, kernel.CodeMissingEvidence},

		// Caller-supplied ids name files.
		{"id escaping the layout", func(in *kernel.CreateInput) { in.ID = "../x" }, kernel.CodeInvalidID},
		{"id with uppercase", func(in *kernel.CreateInput) { in.ID = "Refresh" }, kernel.CodeInvalidID},
		{"id already taken", func(in *kernel.CreateInput) { in.ID = rawID }, kernel.CodeIDConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := fixture(t)
			in := validCreate()
			tt.edit(&in)
			m, err := kernel.Create(v, in, opEnv())
			rejects(t, tt.want, m, err)
		})
	}
}

func TestCreateSlugConflictNamesTheOwner(t *testing.T) {
	v := fixture(t)
	in := validCreate()
	in.Aliases = []string{rawAlias}
	_, err := kernel.Create(v, in, opEnv())
	var e *kernel.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, kernel.CodeSlugConflict, e.Code)
	assert.Equal(t, rawID, e.Extra["owner"])
	assert.Equal(t, rawAlias, e.Extra["alias"])
}

func TestCreateWritesOneNewRecord(t *testing.T) {
	v := fixture(t)
	in := validCreate()
	in.Tags = []string{"auth", "tokens", "auth"}
	in.Aliases = []string{"engineering.auth/refresh-early", "engineering.auth/refresh-early"}
	in.Links = []kernel.Link{{TargetID: rawAlias, Kind: kernel.LinkSource, Label: "the incident"}, {TargetID: rawID, Kind: kernel.LinkSource}}
	in.Provenance = kernel.Provenance{Agent: agent, SessionID: "sess-9", SourceIDs: []string{rawID}, Note: "compiled from the incident"}
	in.CommitNote = "First pass."

	m, err := kernel.Create(v, in, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 1)
	r := m.Writes[0]

	assert.Equal(t, "gen00001", r.ID, "the id comes from Env.NewID when none is supplied")
	assert.Equal(t, kernel.At(opAt), r.CreatedAt)
	assert.Equal(t, r.CreatedAt, r.UpdatedAt, "a new record was created and last updated at the same instant")
	assert.Equal(t, kernel.StatusActive, r.Status)
	assert.Equal(t, kernel.KindEntity, r.Kind, "axes default from the type")
	assert.Equal(t, kernel.RoleClaim, r.Role)
	assert.Equal(t, kernel.AuthorityLocal, r.Authority)
	assert.Equal(t, []string{"auth", "tokens"}, r.Tags, "tags keep first-seen order without repeats")
	assert.Equal(t, []string{"engineering.auth/refresh-early"}, r.Aliases)
	assert.Equal(t, []kernel.Link{{TargetID: rawID, Kind: kernel.LinkSource, Label: "the incident"}}, r.Links,
		"a link target given as an alias is stored as the id, and a repeated (target, kind) is stored once")
	assert.Equal(t, in.Provenance, r.Provenance)
	assert.Nil(t, r.ExpiresAt)
	assert.Nil(t, r.TTLSeconds)
	assert.Equal(t, []kernel.MutationEntry{{Op: "create", At: kernel.At(opAt), Agent: agent, Note: "compiled from the incident"}}, r.MutationLog)

	assert.Equal(t, kernel.OpCreate, m.Op)
	assert.Equal(t, "create(compiled): Refresh early", m.Subject())
	assert.Equal(t, "First pass.", m.Message)
	assert.Equal(t, []string{"source " + rawID}, trailerValues(m, kernel.TrailerLink))
	assert.Equal(t, []string{"sess-9"}, trailerValues(m, kernel.TrailerSession))
	assert.Equal(t, []string{"compiled from the incident"}, trailerValues(m, kernel.TrailerNote))
}

func TestCreateKeepsACallerSuppliedID(t *testing.T) {
	v := fixture(t)
	in := validCreate()
	in.ID = "token-refresh-rfc"
	m, err := kernel.Create(v, in, opEnv())
	require.NoError(t, err)
	assert.Equal(t, "token-refresh-rfc", m.Writes[0].ID)
	assert.Equal(t, []string{"token-refresh-rfc"}, trailerValues(m, kernel.TrailerID))
}

func TestCreateAcceptsEveryContractTypeAndNamespacedTypes(t *testing.T) {
	for _, typ := range []string{"raw", "compiled", "concept", "snapshot", "person", "review.finding", "acme.widget"} {
		t.Run(typ, func(t *testing.T) {
			in := validCreate()
			in.Type = typ
			m, err := kernel.Create(fixture(t), in, opEnv())
			require.NoError(t, err)
			assert.Equal(t, typ, m.Writes[0].Type)
		})
	}
}

func TestCreateTypeAxesCanBeOverridden(t *testing.T) {
	in := validCreate()
	in.Type = "raw"
	in.Role, in.Authority = kernel.RoleClaim, kernel.AuthorityComputed
	m, err := kernel.Create(fixture(t), in, opEnv())
	require.NoError(t, err)
	r := m.Writes[0]
	assert.Equal(t, kernel.KindEntity, r.Kind)
	assert.Equal(t, kernel.RoleClaim, r.Role)
	assert.Equal(t, kernel.AuthorityComputed, r.Authority)
}

func TestCreateAcceptsUnknownLinkKinds(t *testing.T) {
	// §2.2: unknown kinds MUST NOT be rejected (forward compatibility).
	in := validCreate()
	in.Links = []kernel.Link{{TargetID: rawID, Kind: "cites"}}
	m, err := kernel.Create(fixture(t), in, opEnv())
	require.NoError(t, err)
	assert.Equal(t, []kernel.Link{{TargetID: rawID, Kind: "cites"}}, m.Writes[0].Links)
}

func TestCreateFreshnessFields(t *testing.T) {
	tests := []struct {
		name       string
		expiresAt  string
		ttl        string
		wantExpiry *kernel.Timestamp
		wantTTL    *float64
	}{
		{"expires_at in UTC", `"2026-09-01T00:00:00.000Z"`, "", ptr(ts(t, "2026-09-01T00:00:00Z")), nil},
		{"expires_at with an offset is stored in UTC", `"2026-09-01T02:00:00+02:00"`, "", ptr(ts(t, "2026-09-01T00:00:00Z")), nil},
		{"expires_at as a calendar date is midnight UTC", `"2026-09-01"`, "", ptr(ts(t, "2026-09-01T00:00:00Z")), nil},
		{"ttl_seconds", "", `3600`, nil, ptr(3600.0)},
		{"fractional ttl_seconds", "", `0.5`, nil, ptr(0.5)},
		{"both", `"2026-09-01T00:00:00Z"`, `60`, ptr(ts(t, "2026-09-01T00:00:00Z")), ptr(60.0)},
		{"null means absent", `null`, `null`, nil, nil},
		{"empty string means absent", `""`, `""`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validCreate()
			if tt.expiresAt != "" {
				in.ExpiresAt = expiryJSON(t, tt.expiresAt)
			}
			if tt.ttl != "" {
				in.TTLSeconds = ttlJSON(t, tt.ttl)
			}
			m, err := kernel.Create(fixture(t), in, opEnv())
			require.NoError(t, err)
			assert.Equal(t, tt.wantExpiry, m.Writes[0].ExpiresAt)
			assert.Equal(t, tt.wantTTL, m.Writes[0].TTLSeconds)
		})
	}
}

func TestCreateCannotTakeAnotherRecordsAliasAsItsID(t *testing.T) {
	// H.2 resolves an exact id before an alias, so a new record whose id is
	// someone's slug would silently steal that slug; H.5 says it must keep
	// resolving to the same record.
	v := fixture(t)
	m, err := kernel.Update(v, conceptID, kernel.UpdateFields{Aliases: []string{"token-policy"}}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	v.commit(m)

	in := validCreate()
	in.ID = "token-policy"
	m, err = kernel.Create(v, in, opEnv())
	rejects(t, kernel.CodeIDConflict, m, err)

	id, err := v.Resolve("token-policy")
	require.NoError(t, err)
	assert.Equal(t, conceptID, id)
}

// TestObservationIsAnExternalFact: whatever its type, an observation is a
// snapshot of a fact the external system owns (Agent Kit axes), not a
// decision, as the snapshot type's defaults would make it.
func TestObservationIsAnExternalFact(t *testing.T) {
	v := newMemView()
	for _, typ := range []string{"snapshot", "github.pull_request", "jira.issue"} {
		m, _, err := kernel.Observe(v, kernel.CreateInput{Type: typ, Title: "PR 42", Category: "github.pulls",
			Source: &kernel.Source{Extension: "github", ExternalID: "pull/42"}, Provenance: kernel.Provenance{Agent: "watcher"}},
			[]byte(`{"number":42,"type":"`+typ+`"}`), opEnv())
		require.NoError(t, err, typ)
		r := m.Writes[0]
		assert.Equal(t, []any{kernel.KindSnapshot, kernel.RoleFact, kernel.AuthorityExternal}, []any{r.Kind, r.Role, r.Authority}, typ)
		_, _, bearing := kernel.DecisionBearing(r, nil)
		assert.False(t, bearing, "%s: an observation alone is noise a compaction rolls up", typ)
	}
}

// TestFreshnessInputsRefusedWhereRead: an expires_at or ttl_seconds that a
// request cannot mean is refused as it is decoded (INVALID_RECORD, naming
// the field), for create and update alike, so no op ever sees it; text
// from a command line is parsed by the same rules.
func TestFreshnessInputsRefusedWhereRead(t *testing.T) {
	for _, c := range []struct{ field, raw string }{
		{"expires_at", `"next tuesday"`},
		{"expires_at", `"2026-13-01T00:00:00Z"`},
		{"expires_at", `1767225600`},
		{"expires_at", `{"at":"2026-09-01"}`},
		{"ttl_seconds", `"abc"`},
		{"ttl_seconds", `"3600"`},
		{"ttl_seconds", `true`},
	} {
		request := `{"` + c.field + `":` + c.raw + `}`
		for _, into := range []any{&kernel.CreateInput{}, &kernel.UpdateFields{}} {
			err := json.Unmarshal([]byte(request), into)
			assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err), "%s into %T: %v", request, into, err)
			assert.Equal(t, c.field, kernel.FieldOf(err), "%s", request)
		}
	}
	_, err := kernel.ParseTTLInput("soon")
	assert.Equal(t, "ttl_seconds", kernel.FieldOf(err))
	_, err = kernel.ParseExpiryInput("soon")
	assert.Equal(t, "expires_at", kernel.FieldOf(err))
	n, err := kernel.ParseTTLInput("")
	require.NoError(t, err)
	assert.Equal(t, kernel.TTLInput{Set: true}, n, "empty text clears")

	// What is not given stays out of the JSON: a request round-trips.
	out, err := json.Marshal(kernel.UpdateFields{TTLSeconds: kernel.TTL(60), ExpiresAt: kernel.ExpiryInput{Set: true}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"ttl_seconds":60,"expires_at":null}`, string(out))
}
