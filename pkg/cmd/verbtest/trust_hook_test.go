package verbtest

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	hookcmd "github.com/git-records/git-records/pkg/cmd/trust/hook"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdHook: the first argument names the hook, the rest are git's;
// without one it is a usage error.
func TestNewCmdHook(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *hookcmd.HookOptions
	r := cmdtest.Run(f, hookcmd.NewCmdHook(f, func(o *hookcmd.HookOptions) error { got = o; return nil }), "update", "refs/heads/records", "a", "b")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "update", got.Name)
	assert.Equal(t, []string{"refs/heads/records", "a", "b"}, got.Args)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, hookcmd.NewCmdHook(f, func(*hookcmd.HookOptions) error { t.Fatal("ran"); return nil }), "--json").
		Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestHookRun: update verifies the pushed commits and says so once;
// a pre-push with nothing to push passes quietly; an unknown hook or an
// update without its three arguments is a usage error.
func TestHookRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	run := func(args ...string) cmdtest.Result {
		return st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return hookcmd.NewCmdHook(f, nil) }, args...)
	}
	zero := "0000000000000000000000000000000000000000"
	r := run("update", "refs/heads/records", zero, st.Tip(t))
	require.Equal(t, 0, r.Code, r.String())
	assert.NotEmpty(t, r.Stderr, "the server says what it verified")

	r = run("pre-push", "origin", "url")
	require.Equal(t, 0, r.Code, r.String())
	assert.Empty(t, r.Stderr)

	run("frobnicate", "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	run("update", "refs/heads/records", "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
