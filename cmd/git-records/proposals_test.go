package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type proposalsOut struct {
	Proposals []struct {
		ID         string `json:"id"`
		ConceptID  string `json:"concept_id"`
		ProposerID string `json:"proposer_id"`
		Agent      string `json:"agent"`
		Text       string `json:"proposal"`
		State      string `json:"state"`
		At         string `json:"at"`
		ResolvedBy string `json:"resolved_by"`
	} `json:"proposals"`
}

// TestProposalsCLI: proposals lists each proposal with its state; apply
// without --body takes the proposed text; --proposer takes a proposal id;
// a proposal is applied or rejected once.
func TestProposalsCLI(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	concept := createID(t, dir, "--type", "concept", "--title", "Token refresh", "--category", "auth", "--body", "Old.", "--agent", "alice")
	finding := createID(t, dir, "--type", "review.finding", "--title", "PR 42 review", "--category", "auth", "--body", "F.", "--agent", "bot")
	mustRec(t, dir, "propose", concept, "--proposer", finding, "--proposal", "Rotate on every refresh.", "--agent", "bot")
	mustRec(t, dir, "propose", concept, "--proposer", finding, "--proposal", "Never rotate.", "--agent", "bot")

	ps := mustJSON[proposalsOut](t, dir, "proposals", concept).Proposals
	require.Len(t, ps, 2)
	for _, p := range ps {
		assert.Equal(t, "pending", p.State)
		assert.Equal(t, finding, p.ProposerID)
		assert.Equal(t, "bot", p.Agent)
		assert.Regexp(t, `^[0-9a-f]{12}$`, p.ID)
	}
	first, second := ps[0].ID, ps[1].ID

	// By proposal id, without --body: the proposed text becomes the body.
	mustRec(t, dir, "apply", concept, "--proposer", first, "--rationale", "agreed", "--agent", "alice")
	show := mustJSON[obj](t, dir, "show", concept)
	assert.Equal(t, "Rotate on every refresh.", strings.TrimSpace(show["body"].(string)))

	requireError(t, rec(t, dir, "--json", "apply", concept, "--proposer", first, "--rationale", "again", "--agent", "alice"), "MISSING_EVIDENCE", 1)
	requireError(t, rec(t, dir, "--json", "reject", concept, "--proposer", first, "--reason", "late", "--agent", "alice"), "MISSING_EVIDENCE", 1)
	// By proposer: its one pending proposal.
	mustRec(t, dir, "reject", concept, "--proposer", finding, "--reason", "too risky", "--agent", "alice")
	e := requireError(t, rec(t, dir, "--json", "apply", concept, "--proposer", second, "--rationale", "changed my mind", "--agent", "alice"), "MISSING_EVIDENCE", 1)
	assert.Contains(t, e["message"], "is already rejected")

	ps = mustJSON[proposalsOut](t, dir, "proposals").Proposals
	require.Len(t, ps, 2)
	assert.Equal(t, []string{"applied", "rejected"}, []string{ps[0].State, ps[1].State})
	assert.Equal(t, "alice", ps[1].ResolvedBy)
	assert.Len(t, mustJSON[proposalsOut](t, dir, "proposals", "--state", "pending").Proposals, 0)

	out := mustRec(t, dir, "proposals", concept)
	assert.Contains(t, out, first+"  applied   on "+concept+" (Token refresh)")
	assert.Contains(t, out, "proposer "+finding+" (PR 42 review), agent bot")
	assert.Contains(t, out, "    | Never rotate.")
	requireError(t, rec(t, dir, "--json", "proposals", "--state", "bogus"), "USAGE", 2)
	verifyAll(t, dir, 0)
	mustRec(t, dir, "verify")
}
