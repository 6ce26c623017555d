package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	supersedecmd "github.com/git-records/git-records/pkg/cmd/record/supersede"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdSupersede: the first argument is the new record, the rest the
// old ones; fewer than two is a usage error.
func TestNewCmdSupersede(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *supersedecmd.SupersedeOptions
	r := cmdtest.Run(f, supersedecmd.NewCmdSupersede(f, func(o *supersedecmd.SupersedeOptions) error { got = o; return nil }), "new", "a", "b", "--rationale", "r", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "new", got.New)
	assert.Equal(t, []string{"a", "b"}, got.Old)
	assert.Equal(t, "r", got.Evidence.Rationale)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, supersedecmd.NewCmdSupersede(f, func(*supersedecmd.SupersedeOptions) error { t.Fatal("ran"); return nil }), "--json", "new").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestSupersedeRun: the old records point to the new one in one commit;
// nothing is deleted; without a rationale nothing is written.
func TestSupersedeRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	a := st.Create(t, kernel.CreateInput{Type: "concept", Title: "A"})
	b := st.Create(t, kernel.CreateInput{Type: "concept", Title: "B"})
	v2 := st.Create(t, kernel.CreateInput{Type: "concept", Title: "V2"})
	supersede := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, supersedecmd.NewCmdSupersede(f, nil), args...)
	}
	tip := st.Tip(t)
	e := supersede("--json", v2, a, "--agent", "alice").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--rationale", e["flag"])
	assert.Equal(t, tip, st.Tip(t))

	r := supersede(v2, a, b, "--rationale", "merged both", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, tip, cmdtest.Git(t, st.Dir, "rev-parse", "refs/heads/records^"), "one commit")
	svc := st.Service(t)
	for _, old := range []string{a, b} {
		rec, err := svc.Show(old)
		require.NoError(t, err, "nothing is deleted")
		assert.NotEmpty(t, rec.MutationLog)
		assert.Equal(t, v2, rec.MutationLog[len(rec.MutationLog)-1].NewID, "%s points to what superseded it", old)
	}
}
