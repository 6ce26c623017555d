package verbtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	policycmd "github.com/git-records/git-records/pkg/cmd/trust/policy"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdPolicy: check takes exactly principal, op, type and category;
// set takes the file with the evidence and approval flags; a wrong
// argument count is a usage error and nothing runs.
func TestNewCmdPolicy(t *testing.T) {
	st := cmdtest.NewRepo(t)
	var got *policycmd.PolicyOptions
	capture := func(o *policycmd.PolicyOptions) error { got = o; return nil }
	f, _, _, _ := st.Factory()
	r := cmdtest.Run(f, policycmd.NewCmdPolicy(f, capture), "check", "alice@example.com", "retire", "concept", "auth.tokens")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "check", got.Verb)
	assert.Equal(t, []string{"alice@example.com", "retire", "concept", "auth.tokens"}, []string{got.Principal, got.Op, got.Type, got.Category})

	f, _, _, _ = st.Factory()
	r = cmdtest.Run(f, policycmd.NewCmdPolicy(f, capture), "set", "p.yaml", "--rationale", "why", "--agent", "alice", "--note", "n", "--approve")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "set", got.Verb)
	assert.Equal(t, "p.yaml", got.File)
	assert.Equal(t, kernel.Evidence{Rationale: "why", Agent: "alice", Note: "n"}, got.Evidence)
	assert.True(t, got.Approval.Approve)

	never := func(*policycmd.PolicyOptions) error { t.Fatal("ran"); return nil }
	for _, args := range [][]string{{"show", "stray"}, {"check", "alice@example.com", "retire"}, {"set"}} {
		f, _, _, _ := st.Factory()
		cmdtest.Run(f, policycmd.NewCmdPolicy(f, never), append([]string{"--json"}, args...)...).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
}

// TestPolicyRun: without a policy file every allowed signer is a
// maintainer; set commits one, after which
// check explains a denial with exit 1; a policy that does not parse is
// refused with nothing written.
func TestPolicyRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	run := func(args ...string) cmdtest.Result {
		return st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return policycmd.NewCmdPolicy(f, nil) }, args...)
	}
	r := run("show")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "# no .records/policy.yaml on the branch: every allowed signer is a maintainer\n")

	r = run("check", cmdtest.UserEmail, "retire", "concept", "auth")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "allowed: ")

	file := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(file, []byte("version: 1\nrules:\n  - profile: read-only\n  - principal: "+cmdtest.UserEmail+"\n    profile: maintainer\n"), 0o644))
	r = run("set", file, "--rationale", "lock down", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "policy\n", r.Stdout)

	r = run("check", "eve@example.com", "retire", "concept", "auth")
	assert.Equal(t, cmdutil.ExitRefused, r.Code, r.String())
	assert.Contains(t, r.Stdout, "denied: ")
	r = run("show", "--json")
	require.Equal(t, 0, r.Code, r.String())
	var p map[string]any
	r.JSON(t, &p)

	tip := st.Tip(t)
	require.NoError(t, os.WriteFile(file, []byte("rules: [not, a, map\n"), 0o644))
	r = run("set", file, "--rationale", "r", "--agent", "alice", "--json")
	assert.NotEqual(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, `"error"`)
	run("set", filepath.Join(t.TempDir(), "missing.yaml"), "--rationale", "r", "--agent", "alice", "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, tip, st.Tip(t), "nothing written")
}
