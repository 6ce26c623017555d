package verbtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	observecmd "github.com/git-records/git-records/pkg/cmd/record/observe"
	compactcmd "github.com/git-records/git-records/pkg/cmd/store/compact"
	"github.com/git-records/git-records/pkg/cmd/store/migrate"
	verifycmd "github.com/git-records/git-records/pkg/cmd/store/verify"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdCompact: --before takes a date or an age counted back from
// now; without it, or with a bad one, nothing runs.
func TestNewCmdCompact(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *compactcmd.CompactOptions
	cmd := compactcmd.NewCmdCompact(f, func(o *compactcmd.CompactOptions) error { got = o; return nil })
	r := cmdtest.Run(f, cmd, "--before", "2026-01-01", "--record", "a", "--dry-run", "--agent", "ci")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), got.Input.Before.UTC())
	assert.Equal(t, []string{"a"}, got.Input.Records)
	assert.True(t, got.DryRun)
	never := func(*compactcmd.CompactOptions) error { t.Fatal("ran"); return nil }
	f, _, _, _ = st.Factory()
	e := cmdtest.Run(f, compactcmd.NewCmdCompact(f, never), "--json", "--agent", "ci").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--before", e["flag"])
	f, _, _, _ = st.Factory()
	assert.NotEqual(t, 0, cmdtest.Run(f, compactcmd.NewCmdCompact(f, never), "--before", "someday", "--agent", "ci").Code)
}

// TestCompactAndMigrateRun: a dry run writes nothing; compaction of old
// events is one commit with a rollup; migrate of a current store writes
// nothing and says so.
func TestCompactAndMigrateRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	for _, title := range []string{"deploy 1", "deploy 2"} {
		st.Create(t, kernel.CreateInput{Type: "raw", Kind: kernel.KindEvent, Title: title, Category: "ops.log"})
	}
	compact := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, compactcmd.NewCmdCompact(f, nil), args...)
	}
	tip := st.Tip(t)
	r := compact("--before", "2030-01-01", "--agent", "ci", "--dry-run")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "dry run: would roll up 2 records")
	assert.Equal(t, tip, st.Tip(t), "a dry run writes nothing")
	r = compact("--before", "2030-01-01", "--agent", "ci")
	require.Equal(t, 0, r.Code, r.String())
	assert.Regexp(t, `rolled up 2 records \(commit [0-9a-f]{12}\)`, r.Stdout)
	assert.Equal(t, tip, cmdtest.Git(t, st.Dir, "rev-parse", "refs/heads/records^"), "one commit")

	f, _, _, _ := st.Factory()
	r = cmdtest.Run(f, migrate.NewCmdMigrate(f, nil), "--agent", "ci", "--json")
	require.Equal(t, 0, r.Code, r.String())
	var res map[string]any
	r.JSON(t, &res)
	assert.Equal(t, true, res["unchanged"])
}

// TestCompactRollsUpObservations: observe writes snapshots of external
// facts (authority external, role fact), so compaction rolls up the ones
// nothing decision-bearing uses, and keeps an observation a decision
// cites and a decision summary (type snapshot, role decision). An
// observation a store holds with the snapshot type's old axes (role
// decision, authority computed) is judged as the fact it is. verify
// accepts the compaction.
func TestCompactRollsUpObservations(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	observe := func(externalID, payload string) string {
		f, in, _, _ := st.Factory()
		in.WriteString(payload)
		r := cmdtest.Run(f, observecmd.NewCmdObserve(f, nil), "--json", "--extension", "github", "--external-id", externalID,
			"--title", "PR "+externalID, "--category", "github.pulls", "--agent", "watcher", "--payload-file", "-")
		require.Equal(t, 0, r.Code, r.String())
		var res map[string]any
		r.JSON(t, &res)
		return res["id"].(string)
	}
	open, merged := observe("pull/42", `{"state":"open"}`), observe("pull/42", `{"state":"merged"}`)
	cited := observe("pull/43", `{"state":"open"}`)
	rec := show(t, st, open)
	assert.Equal(t, []any{kernel.KindSnapshot, kernel.RoleFact, kernel.AuthorityExternal}, []any{rec.Kind, rec.Role, rec.Authority})
	// What observe wrote before observations had their own axes.
	res, err := st.Service(t).Observe(kernel.CreateInput{Type: "snapshot", Title: "PR pull/7", Category: "github.pulls",
		Role: kernel.RoleDecision, Authority: kernel.AuthorityComputed, Source: &kernel.Source{Extension: "github", ExternalID: "pull/7"},
		Provenance: kernel.Provenance{Agent: "watcher"}}, []byte(`{"state":"closed"}`), kernel.Approval{})
	require.NoError(t, err)
	old := res.ID
	st.Create(t, kernel.CreateInput{Type: "decision", Title: "Ship 43", Links: []kernel.Link{{TargetID: cited, Kind: kernel.LinkSource}}})
	summary := st.Create(t, kernel.CreateInput{Type: "snapshot", Title: "Auth decisions", Category: "auth"})

	f, _, _, _ := st.Factory()
	r := cmdtest.Run(f, compactcmd.NewCmdCompact(f, nil), "--json", "--before", "2030-01-01", "--agent", "ci")
	require.Equal(t, 0, r.Code, r.String())
	var plan kernel.CompactPlan
	r.JSON(t, &plan)
	rules := map[string]string{}
	for _, v := range append(plan.Compacted, plan.Retained...) {
		rules[v.ID] = v.Rule
	}
	assert.Equal(t, map[string]string{open: kernel.RuleNoise, merged: kernel.RuleNoise, old: kernel.RuleNoise,
		cited: kernel.BearsCitation, summary: kernel.BearsDecision}, rules)
	assert.Equal(t, kernel.StatusRetired, show(t, st, old).Status)
	assert.Equal(t, kernel.StatusActive, show(t, st, cited).Status)

	f, _, _, _ = st.Factory()
	r = cmdtest.Run(f, verifycmd.NewCmdVerify(f, nil), "records~1..records")
	assert.Equal(t, 0, r.Code, "verify judges the compaction as compact decided it\n%s", r)
}
