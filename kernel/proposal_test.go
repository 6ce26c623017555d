package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// proposalOp is propose, apply or reject: (concept, proposer, evidence).
type proposalOp func(kernel.View, string, string, kernel.Evidence, kernel.Env) (*kernel.Mutation, error)

// proposalRow is one rejection rule of propose, apply or reject.
type proposalRow struct {
	name              string
	concept, proposer string
	ev                kernel.Evidence
	want              kernel.Code
}

// The rejection rows shared by propose, apply and reject (§6.4–6.6): the
// target must exist, and the proposer must exist. The target may be of any
// type (TestProposeOnAnyType).
func targetRows(ev kernel.Evidence) []proposalRow {
	return []proposalRow{
		{"concept does not exist", "nope0000", proposerID, ev, kernel.CodeNotFound},
		{"proposer does not exist", conceptID, "nope0000", ev, kernel.CodeNotFound},
	}
}

func TestProposeRejects(t *testing.T) {
	ev := kernel.Evidence{Agent: agent, Proposal: proposalText}
	rows := append(targetRows(ev), []proposalRow{
		{"missing agent", conceptID, idleID, kernel.Evidence{Proposal: proposalText}, kernel.CodeMissingEvidence},
		{"missing proposal", conceptID, idleID, kernel.Evidence{Agent: agent}, kernel.CodeMissingEvidence},
		{"blank proposal", conceptID, idleID, kernel.Evidence{Agent: agent, Proposal: " \n"}, kernel.CodeMissingEvidence},
	}...)
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kernel.Propose(fixture(t), tt.concept, tt.proposer, tt.ev, opEnv())
			rejects(t, tt.want, m, err)
		})
	}
}

func TestProposeLinksTheProposerAndLogsOnTheConcept(t *testing.T) {
	v := fixture(t)
	concept, idle := get(t, v, conceptID), get(t, v, idleID)
	m, err := kernel.Propose(v, conceptAlias, idleID, kernel.Evidence{Agent: agent, Proposal: "Rename it.", Note: "from chat"}, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 2)

	c := mustWrite(t, m, conceptID)
	assert.Equal(t, conceptBody, c.Body, "a proposal does not modify the concept")
	assert.Equal(t, concept.Links, c.Links)
	assert.Equal(t, concept.UpdatedAt, c.UpdatedAt, "the concept itself is not mutated, so updated_at stays")
	require.Len(t, c.MutationLog, len(concept.MutationLog)+1)
	assert.Equal(t, kernel.MutationEntry{Op: "propose", At: kernel.At(opAt), Agent: agent, Note: "from chat",
		Evidence: map[string]any{"proposer_id": idleID, "proposal": "Rename it.",
			"proposal_id": kernel.ProposalID(conceptID, idleID, kernel.At(opAt), "Rename it.")}}, lastLog(t, c))

	p := mustWrite(t, m, idleID)
	assert.Equal(t, append(idle.Links, kernel.Link{TargetID: conceptID, Kind: kernel.LinkProposes}), p.Links)
	assert.Equal(t, kernel.At(opAt), p.UpdatedAt, "the proposer gained a link")
	assert.Equal(t, idle.Body, p.Body)

	assert.Equal(t, "propose(concept): Token refresh policy", m.Subject())
	assert.Equal(t, []string{idleID}, trailerValues(m, kernel.TrailerProposer))
	assert.Equal(t, []string{"Rename it."}, trailerValues(m, kernel.TrailerProposal))
}

func TestProposeAgainOnlyLogs(t *testing.T) {
	// The proposer already has its proposes link: a second proposal logs on
	// the concept and leaves the proposer alone.
	v := fixture(t)
	m, err := kernel.Propose(v, conceptID, proposerID, kernel.Evidence{Agent: agent, Proposal: "Also log refreshes."}, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 1)
	assert.Equal(t, conceptID, m.Writes[0].ID)
	assert.Equal(t, []string{conceptID}, trailerValues(m, kernel.TrailerID))
}

func TestApplyRejects(t *testing.T) {
	ev := kernel.Evidence{Agent: agent, NewBody: "Refresh early.", Rationale: "matches the RFC"}
	rows := append(targetRows(ev), []proposalRow{
		{"missing agent", conceptID, proposerID, kernel.Evidence{NewBody: "x", Rationale: "y"}, kernel.CodeMissingEvidence},
		{"missing new_body", conceptID, proposerID, kernel.Evidence{Agent: agent, Rationale: "y"}, kernel.CodeMissingEvidence},
		{"blank new_body", conceptID, proposerID, kernel.Evidence{Agent: agent, NewBody: "  ", Rationale: "y"}, kernel.CodeMissingEvidence},
		{"missing rationale", conceptID, proposerID, kernel.Evidence{Agent: agent, NewBody: "x"}, kernel.CodeMissingEvidence},
		{"blank rationale", conceptID, proposerID, kernel.Evidence{Agent: agent, NewBody: "x", Rationale: "\t"}, kernel.CodeMissingEvidence},
		{"no proposes link from the proposer", conceptID, idleID, ev, kernel.CodeMissingEvidence},
	}...)
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kernel.Apply(fixture(t), tt.concept, tt.proposer, tt.ev, opEnv())
			rejects(t, tt.want, m, err)
		})
	}
}

func TestApplyReplacesTheConceptBody(t *testing.T) {
	v := fixture(t)
	concept, proposer := get(t, v, conceptID), get(t, v, proposerID)
	ev := kernel.Evidence{Agent: agent, NewBody: proposalText, Rationale: "matches the RFC and the incident report", Note: "Accept the proposal from the review of PR 42."}
	m, err := kernel.Apply(v, conceptID, proposerID, ev, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 1, "only the concept is written; the proposer keeps its proposes link")

	c := m.Writes[0]
	assert.Equal(t, proposalText, c.Body)
	assert.Equal(t, kernel.At(opAt), c.UpdatedAt)
	require.Len(t, c.MutationLog, len(concept.MutationLog)+1)
	assert.Equal(t, kernel.MutationEntry{Op: "apply", At: kernel.At(opAt), Agent: agent, Note: ev.Note,
		Evidence: map[string]any{"proposer_id": proposerID, "proposal_id": fixtureProposalID, "rationale": ev.Rationale}}, lastLog(t, c))
	assert.True(t, get(t, v, proposerID).HasLink(conceptID, kernel.LinkProposes), "§6.5: the proposes link is history and stays")
	assert.Equal(t, proposer, get(t, v, proposerID))

	assert.Equal(t, "apply(concept): Token refresh policy", m.Subject())
	assert.Equal(t, ev.Note, m.Message)
	assert.Equal(t, []string{proposerID}, trailerValues(m, kernel.TrailerProposer))
	assert.Equal(t, []string{ev.Rationale}, trailerValues(m, kernel.TrailerRationale))
	assert.Equal(t, []string{kernel.BodyDigest(proposalText)}, trailerValues(m, kernel.TrailerNewBody),
		"the trailer names the new body by digest instead of copying it")
}

func TestRejectRejects(t *testing.T) {
	ev := kernel.Evidence{Agent: agent, Reason: "too aggressive"}
	rows := append(targetRows(ev), []proposalRow{
		{"missing agent", conceptID, proposerID, kernel.Evidence{Reason: "no"}, kernel.CodeMissingEvidence},
		{"missing reason", conceptID, proposerID, kernel.Evidence{Agent: agent}, kernel.CodeMissingEvidence},
		{"blank reason", conceptID, proposerID, kernel.Evidence{Agent: agent, Reason: " "}, kernel.CodeMissingEvidence},
		{"no proposes link from the proposer", conceptID, idleID, ev, kernel.CodeMissingEvidence},
	}...)
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kernel.Reject(fixture(t), tt.concept, tt.proposer, tt.ev, opEnv())
			rejects(t, tt.want, m, err)
		})
	}
}

func TestRejectOnlyLogsOnTheConcept(t *testing.T) {
	v := fixture(t)
	concept := get(t, v, conceptID)
	m, err := kernel.Reject(v, conceptAlias, proposerID, kernel.Evidence{Agent: agent, Reason: "too aggressive"}, opEnv())
	require.NoError(t, err)
	require.Len(t, m.Writes, 1)

	c := m.Writes[0]
	assert.Equal(t, conceptBody, c.Body, "§6.6: the concept body is unchanged")
	assert.Equal(t, concept.UpdatedAt, c.UpdatedAt, "§6.6: updated_at is NOT changed")
	require.Len(t, c.MutationLog, len(concept.MutationLog)+1)
	assert.Equal(t, kernel.MutationEntry{Op: "reject", At: kernel.At(opAt), Agent: agent,
		Evidence: map[string]any{"proposer_id": proposerID, "proposal_id": fixtureProposalID, "reason": "too aggressive"}}, lastLog(t, c))
	assert.Equal(t, []string{"too aggressive"}, trailerValues(m, kernel.TrailerReason))
}

func TestProposalOpsReturnNoMutationForAnInvalidRecord(t *testing.T) {
	// A hand-edited concept that no longer validates: the op fails and there
	// is nothing a careless caller could write.
	ops := map[string]proposalOp{"propose": kernel.Propose, "apply": kernel.Apply, "reject": kernel.Reject}
	ev := kernel.Evidence{Agent: agent, Proposal: "p", NewBody: "b", Rationale: "r", Reason: "r"}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			v := fixture(t)
			broken := get(t, v, conceptID).Clone()
			broken.Category = "Not A Category"
			v.put(broken)
			m, err := op(v, conceptID, proposerID, ev, opEnv())
			rejects(t, kernel.CodeInvalidRecord, m, err)
		})
	}
}

// TestProposeOnAnyType: the contract's consolidation flow proposes on
// snapshots and its entity records (people) take proposals: the target of a
// proposal may be a record of any type.
func TestProposeOnAnyType(t *testing.T) {
	v := fixture(t)
	m, err := kernel.Propose(v, compiledID, idleID, kernel.Evidence{Agent: agent, Proposal: "Recompile it."}, opEnv())
	require.NoError(t, err)
	c := mustWrite(t, m, compiledID)
	assert.Equal(t, "propose", c.MutationLog[len(c.MutationLog)-1].Op)
}
