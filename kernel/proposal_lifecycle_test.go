package kernel_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// lifecycleStep is one op of a proposal's life: apply or reject, naming
// the proposal by proposer handle or proposal id.
type lifecycleStep struct {
	op     string // "apply", "reject" or "propose"
	handle string
	want   kernel.Code // "" when the step succeeds
}

func runLifecycleStep(t *testing.T, v *memView, i int, s lifecycleStep) (*kernel.Mutation, error) {
	t.Helper()
	env := envAt(opAt.Add(time.Duration(i) * time.Minute))
	switch s.op {
	case "apply":
		return kernel.Apply(v, conceptID, s.handle, kernel.Evidence{Agent: agent, NewBody: "New body.", Rationale: "ok"}, env)
	case "reject":
		return kernel.Reject(v, conceptID, s.handle, kernel.Evidence{Agent: agent, Reason: "no"}, env)
	case "propose":
		return kernel.Propose(v, conceptID, s.handle, kernel.Evidence{Agent: agent, Proposal: "Another idea."}, env)
	}
	t.Fatalf("unknown op %q", s.op)
	return nil, nil
}

// Apply and reject act only on a pending proposal: a proposal cannot be
// applied twice, applied after a rejection, or rejected after it was applied.
func TestProposalLifecycle(t *testing.T) {
	rows := []struct {
		name  string
		steps []lifecycleStep
	}{
		{"apply then apply again", []lifecycleStep{{"apply", proposerID, ""}, {"apply", proposerID, kernel.CodeMissingEvidence}}},
		{"reject then apply", []lifecycleStep{{"reject", proposerID, ""}, {"apply", proposerID, kernel.CodeMissingEvidence}}},
		{"apply then reject", []lifecycleStep{{"apply", proposerID, ""}, {"reject", proposerID, kernel.CodeMissingEvidence}}},
		{"reject twice by proposal id", []lifecycleStep{{"reject", fixtureProposalID, ""}, {"reject", fixtureProposalID, kernel.CodeMissingEvidence}}},
		{"apply by a proposal id prefix", []lifecycleStep{{"apply", fixtureProposalID[:8], ""}, {"apply", fixtureProposalID, kernel.CodeMissingEvidence}}},
		{"a new proposal reopens the proposer", []lifecycleStep{{"apply", proposerID, ""}, {"propose", proposerID, ""}, {"reject", proposerID, ""}}},
		{"two pending: each resolves once", []lifecycleStep{{"propose", proposerID, ""}, {"apply", proposerID, ""}, {"reject", proposerID, ""}, {"apply", proposerID, kernel.CodeMissingEvidence}}},
		{"an unknown handle", []lifecycleStep{{"apply", "0123456789ab", kernel.CodeNotFound}}},
	}
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			v := fixture(t)
			for i, s := range tt.steps {
				m, err := runLifecycleStep(t, v, i, s)
				if s.want != "" {
					rejects(t, s.want, m, err)
					continue
				}
				require.NoError(t, err, "step %d (%s %s)", i, s.op, s.handle)
				v.commit(m)
			}
		})
	}
}

func TestProposalsReadTheirStatesFromTheLog(t *testing.T) {
	v := fixture(t)
	for i, s := range []lifecycleStep{{"propose", idleID, ""}, {"propose", proposerID, ""}, {"reject", idleID, ""}, {"apply", fixtureProposalID, ""}} {
		m, err := runLifecycleStep(t, v, i, s)
		require.NoError(t, err)
		v.commit(m)
	}
	ps, faults := kernel.Proposals(get(t, v, conceptID))
	assert.Empty(t, faults)
	require.Len(t, ps, 3)
	assert.Equal(t, fixtureProposalID, ps[0].ID)
	assert.Equal(t, proposalText, ps[0].Text)
	assert.Equal(t, []kernel.ProposalState{kernel.ProposalApplied, kernel.ProposalRejected, kernel.ProposalPending},
		[]kernel.ProposalState{ps[0].State, ps[1].State, ps[2].State})
	assert.Equal(t, []string{proposerID, idleID, proposerID}, []string{ps[0].ProposerID, ps[1].ProposerID, ps[2].ProposerID})
	require.NotNil(t, ps[0].ResolvedAt)
	assert.Equal(t, kernel.At(opAt.Add(3*time.Minute)), *ps[0].ResolvedAt)
	assert.Equal(t, agent, ps[0].ResolvedBy)
	assert.Nil(t, ps[2].ResolvedAt)
}

// A forged log (an apply entry appended by hand after the proposal was
// rejected) is what verify judges: CheckProposalLifecycle names it.
func TestCheckProposalLifecycle(t *testing.T) {
	v := fixture(t)
	m, err := kernel.Reject(v, conceptID, proposerID, kernel.Evidence{Agent: agent, Reason: "no"}, opEnv())
	require.NoError(t, err)
	rejected := m.Writes[0]
	forged := rejected.Clone()
	forged.MutationLog = append(forged.MutationLog, kernel.MutationEntry{Op: "apply", At: kernel.At(opAt.Add(time.Hour)), Agent: agent,
		Evidence: map[string]any{"proposer_id": proposerID, "proposal_id": fixtureProposalID, "rationale": "sneak"}})
	n := len(rejected.MutationLog)

	errs := kernel.CheckProposalLifecycle(forged, n, kernel.OpApply)
	require.Len(t, errs, 1)
	assert.Equal(t, kernel.CodeMissingEvidence, errs[0].Code)
	assert.Contains(t, errs[0].Message, "already rejected")

	// Without a proposal id (the contract's concept_id + proposer_id) the
	// same forged entry finds no pending proposal of the proposer.
	delete(forged.MutationLog[n].Evidence, "proposal_id")
	assert.Len(t, kernel.CheckProposalLifecycle(forged, n, kernel.OpApply), 1)

	assert.Empty(t, kernel.CheckProposalLifecycle(rejected, n-1, kernel.OpReject), "the legal reject itself passes")
	assert.Empty(t, kernel.CheckProposalLifecycle(forged, n, kernel.OpMerge), "a merge's entries were judged on their own side")
}
