package kernel_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// The fixture store is written at createdAt; the op under test runs at opAt,
// so "updated_at refreshed" and "updated_at unchanged" are told apart.
var (
	createdAt = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	opAt      = time.Date(2026, 3, 2, 14, 45, 10, 123_000_000, time.UTC)
)

const agent = "reviewer-bot"

// Records of the fixture store.
const (
	rawID        = "raw00001" // raw, alias rawAlias
	raw2ID       = "raw00002" // raw
	compiledID   = "cmp00001" // compiled, source → rawID
	conceptID    = "con00001" // concept, alias conceptAlias
	proposerID   = "prp00001" // raw that has proposed a change to the concept
	idleID       = "idl00001" // raw without any proposal
	snapOldID    = "snp00001" // snapshot
	snapOlderID  = "snp00002" // snapshot
	snapNewID    = "snp00003" // snapshot that will supersede the others
	rawAlias     = "engineering.auth/incident-42"
	conceptAlias = "engineering.auth/token-refresh"
	conceptBody  = "Refresh tokens when they expire."
	proposalText = "Refresh tokens 60 seconds before they expire."
)

// envAt is a deterministic Env: a fixed clock and counted ids.
func envAt(now time.Time) kernel.Env {
	n := 0
	return kernel.Env{Now: now, NewID: func() string {
		n++
		return fmt.Sprintf("gen%05d", n)
	}}
}

func opEnv() kernel.Env { return envAt(opAt) }

// fixtureProposalID is the id of the fixture's one proposal (proposerID on
// conceptID, proposed at createdAt).
var fixtureProposalID = kernel.ProposalID(conceptID, proposerID, kernel.At(createdAt), proposalText)

// fixture builds the store through the kernel's own create and propose ops.
func fixture(t *testing.T) *memView {
	t.Helper()
	v := newMemView()
	env := envAt(createdAt)
	create := func(in kernel.CreateInput) {
		t.Helper()
		if in.Provenance.Agent == "" {
			in.Provenance.Agent = "importer"
		}
		m, err := kernel.Create(v, in, env)
		require.NoError(t, err)
		v.commit(m)
	}
	create(kernel.CreateInput{ID: rawID, Type: "raw", Title: "Incident report 42", Body: "Tokens expired mid-request.",
		Category: "engineering.auth", Aliases: []string{rawAlias}, Tags: []string{"incident"},
		Provenance: kernel.Provenance{Agent: "importer", SessionID: "sess-1", Note: "imported from the tracker"}})
	create(kernel.CreateInput{ID: raw2ID, Type: "raw", Title: "Chat excerpt", Body: "we should refresh early", Category: "engineering.auth"})
	create(kernel.CreateInput{ID: compiledID, Type: "compiled", Title: "Token expiry findings", Body: "Tokens expire mid-request.",
		Category: "engineering.auth", Links: []kernel.Link{{TargetID: rawID, Kind: kernel.LinkSource}},
		Provenance: kernel.Provenance{Agent: "editor", SourceIDs: []string{rawID}}})
	create(kernel.CreateInput{ID: conceptID, Type: "concept", Title: "Token refresh policy", Body: conceptBody,
		Category: "engineering.auth", Aliases: []string{conceptAlias}})
	create(kernel.CreateInput{ID: proposerID, Type: "raw", Title: "Review of PR 42", Body: "Refresh earlier.", Category: "engineering.auth"})
	create(kernel.CreateInput{ID: idleID, Type: "raw", Title: "Unrelated note", Body: "Nothing to propose.", Category: "engineering.misc"})
	for _, id := range []string{snapOldID, snapOlderID, snapNewID} {
		create(kernel.CreateInput{ID: id, Type: "snapshot", Title: "Auth decisions " + id, Body: "Decisions as of " + id,
			Category: "engineering.auth", Tags: []string{"topic:auth"}})
	}
	m, err := kernel.Propose(v, conceptID, proposerID, kernel.Evidence{Agent: "author", Proposal: proposalText}, env)
	require.NoError(t, err)
	v.commit(m)
	return v
}

// get returns a record of the view, failing the test when it is missing.
func get(t *testing.T, v *memView, id string) *kernel.Record {
	t.Helper()
	r, err := v.Record(id)
	require.NoError(t, err)
	require.NotNil(t, r, "record %s", id)
	return r
}

// written returns the record with id among m's writes, or nil.
func written(m *kernel.Mutation, id string) *kernel.Record {
	for _, r := range m.Writes {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// mustWrite returns the record with id among m's writes, failing when absent.
func mustWrite(t *testing.T, m *kernel.Mutation, id string) *kernel.Record {
	t.Helper()
	require.NotNil(t, m)
	r := written(m, id)
	require.NotNil(t, r, "mutation %s does not write %s", m.Op, id)
	return r
}

// lastLog is the newest mutation log entry of r.
func lastLog(t *testing.T, r *kernel.Record) kernel.MutationEntry {
	t.Helper()
	require.NotEmpty(t, r.MutationLog)
	return r.MutationLog[len(r.MutationLog)-1]
}

// trailerValues returns the values of every trailer with key, in order.
func trailerValues(m *kernel.Mutation, key string) []string {
	var out []string
	for _, tr := range m.Trailers {
		if tr.Key == key {
			out = append(out, tr.Value)
		}
	}
	return out
}

// snapshot deep-copies every record of v, to prove later that an op did not
// touch the view it read.
func snapshot(v *memView) map[string]*kernel.Record {
	out := map[string]*kernel.Record{}
	for id, r := range v.records {
		out[id] = r.Clone()
	}
	return out
}

// rejects asserts that an op failed with code and produced no mutation.
func rejects(t *testing.T, want kernel.Code, m *kernel.Mutation, err error) {
	t.Helper()
	require.Error(t, err)
	assert.Equal(t, want, kernel.CodeOf(err), "error: %v", err)
	assert.Nil(t, m, "a rejected op must not return a mutation")
}

// expiryJSON and ttlJSON are an expires_at and a ttl_seconds as a request
// carries them, decoded.
func expiryJSON(t testing.TB, raw string) kernel.ExpiryInput {
	t.Helper()
	var e kernel.ExpiryInput
	require.NoError(t, json.Unmarshal([]byte(raw), &e))
	return e
}

func ttlJSON(t testing.TB, raw string) kernel.TTLInput {
	t.Helper()
	var n kernel.TTLInput
	require.NoError(t, json.Unmarshal([]byte(raw), &n))
	return n
}

func ptr[T any](v T) *T { return &v }

func ts(t *testing.T, s string) kernel.Timestamp {
	t.Helper()
	v, err := kernel.ParseTimestamp(s)
	require.NoError(t, err)
	return v
}
