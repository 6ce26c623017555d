package verbtest

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	applycmd "github.com/git-records/git-records/pkg/cmd/proposal/apply"
	"github.com/git-records/git-records/pkg/cmd/proposal/conflicts"
	"github.com/git-records/git-records/pkg/cmd/proposal/proposals"
	"github.com/git-records/git-records/pkg/cmd/proposal/propose"
	"github.com/git-records/git-records/pkg/cmd/proposal/reject"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
	"github.com/git-records/git-records/service"
)

// TestNewCmdApply: the concept, proposer, rationale and a body given (even
// an empty one) land in the options; each proposal command takes exactly
// one concept; proposals refuses an unknown --state.
func TestNewCmdApply(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *applycmd.ApplyOptions
	r := cmdtest.Run(f, applycmd.NewCmdApply(f, func(o *applycmd.ApplyOptions) error { got = o; return nil }), "c", "--proposer", "p", "--rationale", "r", "--body", "", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "c", got.Concept)
	assert.Equal(t, "p", got.Proposer)
	assert.True(t, got.BodySet)
	assert.Equal(t, kernel.Evidence{Agent: "alice", Rationale: "r"}, got.Evidence)

	var proposed *propose.ProposeOptions
	f, _, _, _ = st.Factory()
	r = cmdtest.Run(f, propose.NewCmdPropose(f, func(o *propose.ProposeOptions) error { proposed = o; return nil }), "c", "--proposer", "p", "--proposal", "text", "--agent", "bot")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "text", proposed.Evidence.Proposal)

	for _, newCmd := range []func(*cmdutil.Factory) *cobra.Command{
		func(f *cmdutil.Factory) *cobra.Command {
			return applycmd.NewCmdApply(f, func(*applycmd.ApplyOptions) error { t.Fatal("ran"); return nil })
		},
		func(f *cmdutil.Factory) *cobra.Command {
			return propose.NewCmdPropose(f, func(*propose.ProposeOptions) error { t.Fatal("ran"); return nil })
		},
		func(f *cmdutil.Factory) *cobra.Command {
			return reject.NewCmdReject(f, func(*reject.RejectOptions) error { t.Fatal("ran"); return nil })
		},
	} {
		st.RunIn(newCmd, "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
	e := st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return proposals.NewCmdProposals(f, nil) }, "--json", "--state", "bogus").
		Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, "--state", e["flag"])
}

type proposalsOut struct {
	Proposals []struct {
		ID         string `json:"id"`
		ProposerID string `json:"proposer_id"`
		Agent      string `json:"agent"`
		State      string `json:"state"`
		ResolvedBy string `json:"resolved_by"`
	} `json:"proposals"`
}

// TestProposalLifecycle: proposals lists each proposal with its state;
// apply without --body takes the proposed text; --proposer takes a
// proposal id; a proposal is applied or rejected once; verify accepts the
// history.
func TestProposalLifecycle(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	concept := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Token refresh", Category: "auth", Body: "Old."})
	finding := st.Create(t, kernel.CreateInput{Type: "review.finding", Title: "PR 42 review", Category: "auth", Body: "F."})
	run := func(newCmd func(*cmdutil.Factory) *cobra.Command, args ...string) cmdtest.Result {
		return st.RunIn(newCmd, args...)
	}
	proposeCmd := func(f *cmdutil.Factory) *cobra.Command { return propose.NewCmdPropose(f, nil) }
	applyCmd := func(f *cmdutil.Factory) *cobra.Command { return applycmd.NewCmdApply(f, nil) }
	rejectCmd := func(f *cmdutil.Factory) *cobra.Command { return reject.NewCmdReject(f, nil) }
	listCmd := func(f *cmdutil.Factory) *cobra.Command { return proposals.NewCmdProposals(f, nil) }
	list := func(args ...string) proposalsOut {
		r := run(listCmd, append([]string{"--json"}, args...)...)
		require.Equal(t, 0, r.Code, r.String())
		var out proposalsOut
		r.JSON(t, &out)
		return out
	}
	for _, text := range []string{"Rotate on every refresh.", "Never rotate."} {
		r := run(proposeCmd, concept, "--proposer", finding, "--proposal", text, "--agent", "bot")
		require.Equal(t, 0, r.Code, r.String())
		assert.Equal(t, concept+"\n", r.Stdout)
	}
	ps := list(concept).Proposals
	require.Len(t, ps, 2)
	for _, p := range ps {
		assert.Equal(t, "pending", p.State)
		assert.Equal(t, finding, p.ProposerID)
		assert.Equal(t, "bot", p.Agent)
		assert.Regexp(t, `^[0-9a-f]{12}$`, p.ID)
	}
	first, second := ps[0].ID, ps[1].ID

	// By proposal id, without --body: the proposed text becomes the body.
	r := run(applyCmd, concept, "--proposer", first, "--rationale", "agreed", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	rec, err := st.Service(t).Show(concept)
	require.NoError(t, err)
	assert.Equal(t, "Rotate on every refresh.", strings.TrimSpace(rec.Body))

	run(applyCmd, "--json", concept, "--proposer", first, "--rationale", "again", "--agent", "alice").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	run(rejectCmd, "--json", concept, "--proposer", first, "--reason", "late", "--agent", "alice").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	// By proposer: its one pending proposal.
	r = run(rejectCmd, concept, "--proposer", finding, "--reason", "too risky", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	e := run(applyCmd, "--json", concept, "--proposer", second, "--rationale", "changed my mind", "--agent", "alice").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Contains(t, e["message"], "is already rejected")

	ps = list().Proposals
	require.Len(t, ps, 2)
	assert.Equal(t, []string{"applied", "rejected"}, []string{ps[0].State, ps[1].State})
	assert.Equal(t, "alice", ps[1].ResolvedBy)
	assert.Len(t, list("--state", "pending").Proposals, 0)

	out := run(listCmd, concept).Stdout
	assert.Contains(t, out, first+"  applied   on "+concept+" (Token refresh)")
	assert.Contains(t, out, "proposer "+finding+" (PR 42 review), agent bot")
	assert.Contains(t, out, "    | Never rotate.")
	rep, err := st.Service(t).Verify("", service.VerifyOptions{})
	require.NoError(t, err)
	assert.True(t, rep.OK, "%+v", rep.Violations)

	// No merge ever lost a value here.
	conflictsCmd := func(f *cmdutil.Factory) *cobra.Command { return conflicts.NewCmdConflicts(f, nil) }
	assert.Equal(t, "no conflicts\n", run(conflictsCmd).Stdout)
	assert.JSONEq(t, `{"conflicts":[]}`, run(conflictsCmd, "--json", concept).Stdout)
	run(conflictsCmd, "--json", "nothing-here").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
}
