package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	retirecmd "github.com/git-records/git-records/pkg/cmd/record/retire"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdRetire: the status defaults to retired; the evidence flags
// land in the options; no handle is a usage error.
func TestNewCmdRetire(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *retirecmd.RetireOptions
	r := cmdtest.Run(f, retirecmd.NewCmdRetire(f, func(o *retirecmd.RetireOptions) error { got = o; return nil }), "old", "--rationale", "gone", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "old", got.Handle)
	assert.Equal(t, "retired", got.Status)
	assert.Equal(t, kernel.Evidence{Agent: "alice", Rationale: "gone"}, got.Evidence)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, retirecmd.NewCmdRetire(f, func(*retirecmd.RetireOptions) error { t.Fatal("ran"); return nil }), "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestRetireRun: retire and implemented are one commit each with their
// evidence; implemented without --implemented-by and retire without a
// rationale are refused naming the flag, with nothing written.
func TestRetireRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	old := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Old"})
	adr := st.Create(t, kernel.CreateInput{Type: "decision", Title: "Rotate weekly"})
	retire := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, retirecmd.NewCmdRetire(f, nil), args...)
	}
	tip := st.Tip(t)
	e := retire("--json", adr, "--status", "implemented", "--rationale", "done", "--agent", "alice").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--implemented-by", e["flag"])
	e = retire("--json", old, "--agent", "alice").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--rationale", e["flag"])
	assert.Equal(t, tip, st.Tip(t), "nothing written")

	r := retire(old, "--rationale", "obsolete", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, old+"\n", r.Stdout)
	r = retire(adr, "--status", "implemented", "--implemented-by", "PR-43", "--rationale", "done", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, cmdtest.Git(t, st.Dir, "log", "-1", "--format=%B", "refs/heads/records"), "PR-43")
	svc := st.Service(t)
	for id, want := range map[string]kernel.Status{old: kernel.StatusRetired, adr: kernel.StatusImplemented} {
		rec, err := svc.Show(id)
		require.NoError(t, err)
		assert.Equal(t, want, rec.Status)
	}
}
