package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func TestSupersedeRejects(t *testing.T) {
	ev := kernel.Evidence{Agent: agent, Rationale: "newer consolidation"}
	tests := []struct {
		name string
		new  string
		old  []string
		ev   kernel.Evidence
		want kernel.Code
	}{
		{"missing agent", snapNewID, []string{snapOldID}, kernel.Evidence{Rationale: "r"}, kernel.CodeMissingEvidence},
		{"missing rationale", snapNewID, []string{snapOldID}, kernel.Evidence{Agent: agent}, kernel.CodeMissingEvidence},
		{"blank rationale", snapNewID, []string{snapOldID}, kernel.Evidence{Agent: agent, Rationale: "  "}, kernel.CodeMissingEvidence},
		{"nil superseded_ids", snapNewID, nil, ev, kernel.CodeMissingEvidence},
		{"empty superseded_ids", snapNewID, []string{}, ev, kernel.CodeMissingEvidence},
		{"new record does not exist", "nope0000", []string{snapOldID}, ev, kernel.CodeNotFound},
		{"a superseded record does not exist", snapNewID, []string{snapOldID, "nope0000"}, ev, kernel.CodeNotFound},
		{"a record superseding itself", snapNewID, []string{snapNewID}, ev, kernel.CodeMissingEvidence},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kernel.Supersede(fixture(t), tt.new, tt.old, tt.ev, opEnv())
			rejects(t, tt.want, m, err)
		})
	}
}

func TestSupersedeLinksTheNewAndLogsOnTheOld(t *testing.T) {
	v := fixture(t)
	before := snapshot(v)
	ev := kernel.Evidence{Agent: agent, Rationale: "newer consolidation", Note: "weekly consolidation"}
	m, err := kernel.Supersede(v, snapNewID, []string{snapOldID, snapOlderID, snapOldID}, ev, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 3, "the new record and each superseded record once")

	n := mustWrite(t, m, snapNewID)
	assert.Equal(t, []kernel.Link{{TargetID: snapOldID, Kind: kernel.LinkSupersedes}, {TargetID: snapOlderID, Kind: kernel.LinkSupersedes}}, n.Links)
	assert.Equal(t, kernel.At(opAt), n.UpdatedAt)
	assert.Equal(t, kernel.MutationEntry{Op: "supersede", At: kernel.At(opAt), Agent: agent, Note: ev.Note,
		Evidence: map[string]any{"superseded_ids": []string{snapOldID, snapOlderID}, "rationale": ev.Rationale}}, lastLog(t, n))

	for _, id := range []string{snapOldID, snapOlderID} {
		old := mustWrite(t, m, id)
		prev := before[id]
		assert.Equal(t, prev.Body, old.Body, "A.5: nothing of a superseded record is lost")
		assert.Equal(t, prev.Links, old.Links)
		assert.Equal(t, prev.Provenance, old.Provenance)
		assert.Equal(t, prev.Status, old.Status, "supersession is derived, not a status")
		require.Len(t, old.MutationLog, len(prev.MutationLog)+1)
		assert.Equal(t, kernel.MutationEntry{Op: kernel.OpSupersededBy, At: kernel.At(opAt), Agent: agent, Note: ev.Note, NewID: snapNewID,
			Evidence: map[string]any{"new_id": snapNewID, "rationale": ev.Rationale}}, lastLog(t, old))
	}

	assert.Equal(t, []string{snapNewID, snapOldID, snapOlderID}, trailerValues(m, kernel.TrailerID))
	assert.Equal(t, []string{snapOldID, snapOlderID}, trailerValues(m, kernel.TrailerSupersedes))

	v.commit(m)
	assert.Len(t, v.records, len(before), "no record is deleted")
}

func TestSupersedeResolvesHandlesAndCollapsesRepeats(t *testing.T) {
	v := fixture(t)
	m, err := kernel.Supersede(v, compiledID, []string{rawAlias, rawID}, kernel.Evidence{Agent: agent, Rationale: "r"}, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 2, "an alias and the id of one record are one record")
	assert.True(t, m.Writes[0].HasLink(rawID, kernel.LinkSupersedes))
}

func TestSupersedeAgainDoesNotDuplicateTheLink(t *testing.T) {
	v := fixture(t)
	ev := kernel.Evidence{Agent: agent, Rationale: "r"}
	m, err := kernel.Supersede(v, snapNewID, []string{snapOldID}, ev, opEnv())
	require.NoError(t, err)
	v.commit(m)
	m, err = kernel.Supersede(v, snapNewID, []string{snapOldID}, ev, opEnv())
	require.NoError(t, err)
	assert.Equal(t, []kernel.Link{{TargetID: snapOldID, Kind: kernel.LinkSupersedes}}, mustWrite(t, m, snapNewID).Links)
}

func TestRetireRejects(t *testing.T) {
	ev := kernel.Evidence{Agent: agent, Rationale: "obsolete", ImplementedByRef: "https://example.test/pr/42"}
	tests := []struct {
		name   string
		id     string
		target kernel.Status
		ev     kernel.Evidence
		want   kernel.Code
	}{
		{"missing agent", rawID, kernel.StatusRetired, kernel.Evidence{Rationale: "r"}, kernel.CodeMissingEvidence},
		{"missing rationale", rawID, kernel.StatusRetired, kernel.Evidence{Agent: agent}, kernel.CodeMissingEvidence},
		{"missing rationale for implemented", rawID, kernel.StatusImplemented, kernel.Evidence{Agent: agent, ImplementedByRef: "abc123"}, kernel.CodeMissingEvidence},
		{"blank rationale", rawID, kernel.StatusRetired, kernel.Evidence{Agent: agent, Rationale: " "}, kernel.CodeMissingEvidence},
		{"implemented without implementedByRef", rawID, kernel.StatusImplemented, kernel.Evidence{Agent: agent, Rationale: "done"}, kernel.CodeMissingEvidence},
		{"implemented with blank implementedByRef", rawID, kernel.StatusImplemented, kernel.Evidence{Agent: agent, Rationale: "done", ImplementedByRef: " "}, kernel.CodeMissingEvidence},
		{"target status empty", rawID, "", ev, kernel.CodeMissingEvidence},
		{"target status active", rawID, kernel.StatusActive, ev, kernel.CodeMissingEvidence},
		{"target status unknown", rawID, "archived", ev, kernel.CodeMissingEvidence},
		{"record does not exist", "nope0000", kernel.StatusRetired, ev, kernel.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kernel.Retire(fixture(t), tt.id, tt.target, tt.ev, opEnv())
			rejects(t, tt.want, m, err)
		})
	}
}

func TestRetireTransitions(t *testing.T) {
	// B.2: active→implemented, active→retired, implemented→retired; nothing
	// else, and retired is terminal. An absent status is active (B.1).
	tests := []struct {
		from, to kernel.Status
		allowed  bool
	}{
		{kernel.StatusActive, kernel.StatusImplemented, true},
		{kernel.StatusActive, kernel.StatusRetired, true},
		{"", kernel.StatusImplemented, true},
		{"", kernel.StatusRetired, true},
		{kernel.StatusImplemented, kernel.StatusRetired, true},
		{kernel.StatusImplemented, kernel.StatusImplemented, false},
		{kernel.StatusRetired, kernel.StatusRetired, false},
		{kernel.StatusRetired, kernel.StatusImplemented, false},
	}
	ev := kernel.Evidence{Agent: agent, Rationale: "obsolete", ImplementedByRef: "abc123"}
	for _, tt := range tests {
		t.Run(string(tt.from)+"→"+string(tt.to), func(t *testing.T) {
			v := fixture(t)
			r := get(t, v, rawID).Clone()
			r.Status = tt.from
			v.put(r)

			m, err := kernel.Retire(v, rawID, tt.to, ev, opEnv())
			if !tt.allowed {
				rejects(t, kernel.CodeMissingEvidence, m, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.to, m.Writes[0].Status)
			assert.Equal(t, tt.allowed, kernel.CanTransition(r.EffectiveStatus(), tt.to))
		})
	}
	for _, from := range []kernel.Status{kernel.StatusActive, kernel.StatusImplemented, kernel.StatusRetired} {
		assert.False(t, kernel.CanTransition(from, kernel.StatusActive), "nothing returns to active (from %s)", from)
	}
	assert.False(t, kernel.CanTransition(kernel.StatusRetired, kernel.StatusImplemented))
	assert.False(t, kernel.CanTransition(kernel.StatusRetired, kernel.StatusRetired))
}

func TestRetireToImplemented(t *testing.T) {
	v := fixture(t)
	before := get(t, v, rawID)
	ev := kernel.Evidence{Agent: agent, Rationale: "shipped", ImplementedByRef: "https://example.test/pr/42", Note: "closing"}
	m, err := kernel.Retire(v, rawAlias, kernel.StatusImplemented, ev, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 1)
	r := m.Writes[0]

	assert.Equal(t, kernel.StatusImplemented, r.Status)
	assert.Equal(t, kernel.At(opAt), r.UpdatedAt)
	assert.Equal(t, before.Body, r.Body, "B.4: body, links and provenance are not changed")
	assert.Equal(t, before.Links, r.Links)
	assert.Equal(t, before.Provenance, r.Provenance)
	require.Len(t, r.MutationLog, len(before.MutationLog)+1)
	assert.Equal(t, kernel.MutationEntry{Op: "retire", At: kernel.At(opAt), Agent: agent, Note: "closing",
		Evidence: map[string]any{"targetStatus": "implemented", "rationale": "shipped", "implementedByRef": ev.ImplementedByRef}}, lastLog(t, r))
	assert.Equal(t, []string{"implemented"}, trailerValues(m, kernel.TrailerTargetStatus))
	assert.Equal(t, []string{ev.ImplementedByRef}, trailerValues(m, kernel.TrailerImplementedBy))
	assert.Empty(t, trailerValues(m, kernel.TrailerSupersededBy))
}

func TestRetireToRetiredCarriesSupersededByRef(t *testing.T) {
	v := fixture(t)
	ev := kernel.Evidence{Agent: agent, Rationale: "replaced", SupersededByRef: snapNewID}
	m, err := kernel.Retire(v, snapOldID, kernel.StatusRetired, ev, opEnv())
	require.NoError(t, err)
	r := m.Writes[0]
	assert.Equal(t, kernel.StatusRetired, r.Status)
	assert.Equal(t, map[string]any{"targetStatus": "retired", "rationale": "replaced", "supersededByRef": snapNewID}, lastLog(t, r).Evidence)
	assert.Equal(t, []string{snapNewID}, trailerValues(m, kernel.TrailerSupersededBy))
	assert.Empty(t, trailerValues(m, kernel.TrailerImplementedBy))
}
