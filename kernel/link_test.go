package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func TestLinkRejects(t *testing.T) {
	ev := kernel.Evidence{Agent: agent}
	related := []kernel.Link{{TargetID: raw2ID, Kind: kernel.LinkRelated}}
	tests := []struct {
		name   string
		source string
		links  []kernel.Link
		ev     kernel.Evidence
		want   kernel.Code
	}{
		{"missing agent", rawID, related, kernel.Evidence{}, kernel.CodeMissingEvidence},
		{"nil links", rawID, nil, ev, kernel.CodeMissingEvidence},
		{"empty links", rawID, []kernel.Link{}, ev, kernel.CodeMissingEvidence},
		{"source does not exist", "nope0000", related, ev, kernel.CodeNotFound},
		{"target does not exist", rawID, []kernel.Link{{TargetID: "nope0000", Kind: kernel.LinkRelated}}, ev, kernel.CodeNotFound},
		{"one of several targets does not exist", rawID, append(related, kernel.Link{TargetID: "nope0000", Kind: kernel.LinkRelated}), ev, kernel.CodeNotFound},
		{"link without target_id", rawID, []kernel.Link{{Kind: kernel.LinkRelated}}, ev, kernel.CodeMissingEvidence},
		{"link without kind", rawID, []kernel.Link{{TargetID: raw2ID}}, ev, kernel.CodeMissingEvidence},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kernel.LinkRecords(fixture(t), tt.source, tt.links, tt.ev, opEnv())
			rejects(t, tt.want, m, err)
		})
	}
}

func TestLinkAppendsNewLinks(t *testing.T) {
	v := fixture(t)
	before := get(t, v, compiledID)
	m, err := kernel.LinkRecords(v, compiledID, []kernel.Link{
		{TargetID: rawID, Kind: kernel.LinkSource},                           // already there
		{TargetID: "engineering.auth/incident-42", Kind: kernel.LinkRelated}, // new kind, target by alias
		{TargetID: conceptID, Kind: "illustrates", Label: "see policy"},      // unknown kinds are kept (§2.2)
	}, kernel.Evidence{Agent: agent, Note: "cross-reference"}, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 1)
	r := m.Writes[0]

	assert.Equal(t, []kernel.Link{
		{TargetID: rawID, Kind: kernel.LinkSource},
		{TargetID: rawID, Kind: kernel.LinkRelated},
		{TargetID: conceptID, Kind: "illustrates", Label: "see policy"},
	}, r.Links, "new links are appended after the existing ones, never duplicated")
	assert.Equal(t, kernel.At(opAt), r.UpdatedAt)
	require.Len(t, r.MutationLog, len(before.MutationLog)+1)
	assert.Equal(t, kernel.MutationEntry{Op: "link", At: kernel.At(opAt), Agent: agent, Note: "cross-reference",
		Evidence: map[string]any{"links": []any{
			map[string]any{"target_id": rawID, "kind": kernel.LinkRelated},
			map[string]any{"target_id": conceptID, "kind": "illustrates"},
		}}}, lastLog(t, r), "the log names only the links this op added")
	assert.Equal(t, []string{"related " + rawID, "illustrates " + conceptID}, trailerValues(m, kernel.TrailerLink))
}

func TestLinkIsIdempotent(t *testing.T) {
	// §6.3: re-adding an existing (source, target, kind) is not an error and
	// writes nothing.
	v := fixture(t)
	before := snapshot(v)
	m, err := kernel.LinkRecords(v, compiledID, []kernel.Link{{TargetID: rawID, Kind: kernel.LinkSource}}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Nil(t, m, "nothing to write")
	assert.Equal(t, before, snapshot(v))

	// The same link given twice in one call is added once.
	m, err = kernel.LinkRecords(v, rawID, []kernel.Link{{TargetID: raw2ID, Kind: "related"}, {TargetID: raw2ID, Kind: "related"}}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Equal(t, []kernel.Link{{TargetID: raw2ID, Kind: "related"}}, m.Writes[0].Links)
	v.commit(m)

	m, err = kernel.LinkRecords(v, rawID, []kernel.Link{{TargetID: raw2ID, Kind: "related", Label: "another label"}}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Nil(t, m, "a (target, kind) pair already present is not duplicated, whatever its label")
}

func TestLinkToItselfIsAllowed(t *testing.T) {
	m, err := kernel.LinkRecords(fixture(t), rawID, []kernel.Link{{TargetID: rawID, Kind: kernel.LinkRelated}}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.True(t, m.Writes[0].HasLink(rawID, kernel.LinkRelated))
}
