package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	freshcmd "github.com/git-records/git-records/pkg/cmd/record/fresh"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdFresh: handles, --record, --exit-code and the evidence flags
// land in the options.
func TestNewCmdFresh(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *freshcmd.FreshOptions
	r := cmdtest.Run(f, freshcmd.NewCmdFresh(f, func(o *freshcmd.FreshOptions) error { got = o; return nil }),
		"a", "b", "--record", "--exit-code", "--agent", "ci", "--note", "nightly", "--approve")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, []string{"a", "b"}, got.Handles)
	assert.True(t, got.Record)
	assert.True(t, got.ExitCode)
	assert.Equal(t, "ci", got.Evidence.Agent)
	assert.Equal(t, "nightly", got.Evidence.Note)
	assert.True(t, got.Approval.Approve)
}

// TestFreshRun: current while the scoped file hashes as it did; stale once
// it changes, committed or not, which --exit-code turns into exit 1 (only
// for the records checked); --record writes changed verdicts in one
// commit and nothing when none changed.
func TestFreshRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	st.WriteFile(t, "auth.go", "package auth\n")
	st.Commit(t, "code")
	finding := st.Create(t, kernel.CreateInput{Type: "review.finding", Title: "Reuse accepted", Category: "auth",
		Scope: &kernel.Scope{Paths: []string{"auth.go"}}})
	other := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Unscoped", Category: "auth"})
	fresh := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, freshcmd.NewCmdFresh(f, nil), args...)
	}

	r := fresh("--exit-code", finding)
	require.Equal(t, 0, r.Code, r.String())
	assert.Regexp(t, `^`+finding[:8]+`\s+current\s+`, r.Stdout)

	st.WriteFile(t, "auth.go", "package auth // changed\n")
	r = fresh("--exit-code")
	assert.Equal(t, cmdutil.ExitRefused, r.Code, "a stale record fails --exit-code\n%s", r)
	assert.Regexp(t, finding[:8]+`\s+stale\s+.*: auth.go`, r.Stdout, "the report is printed before the exit")
	assert.Empty(t, r.Stderr, "SilentError: nothing more to say")
	assert.Equal(t, 0, fresh(finding).Code, "without --exit-code, fresh reports and exits 0")
	assert.Equal(t, 0, fresh("--exit-code", other).Code, "only the records checked count")

	var verdicts []kernel.Verdict
	fresh("--json", finding).JSON(t, &verdicts)
	require.Len(t, verdicts, 1)
	assert.Equal(t, kernel.FreshnessStale, verdicts[0].State)

	before := st.Tip(t)
	r = fresh("--record", "--agent", "ci")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stderr, "recorded ")
	assert.NotEqual(t, before, st.Tip(t), "the verdicts are one commit")
	before = st.Tip(t)
	r = fresh("--record", "--agent", "ci")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stderr, "no verdict changed: nothing written")
	assert.Equal(t, before, st.Tip(t))

	fresh("--json", "--record").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, before, st.Tip(t), "a refused --record writes nothing")
}
