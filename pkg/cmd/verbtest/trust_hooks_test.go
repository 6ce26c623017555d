package verbtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	hookscmd "github.com/git-records/git-records/pkg/cmd/trust/hooks"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdHooks: install takes --server; neither subcommand takes an
// argument.
func TestNewCmdHooks(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *hookscmd.HooksOptions
	r := cmdtest.Run(f, hookscmd.NewCmdHooks(f, func(o *hookscmd.HooksOptions) error { got = o; return nil }), "install", "--server")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "install", got.Verb)
	assert.True(t, got.Server)
	never := func(*hookscmd.HooksOptions) error { t.Fatal("ran"); return nil }
	for _, args := range [][]string{{"install", "stray"}, {"uninstall", "stray"}, {"install", "--bogus"}} {
		f, _, _, _ := st.Factory()
		cmdtest.Run(f, hookscmd.NewCmdHooks(f, never), append([]string{"--json"}, args...)...).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
}

// TestHooksRun: install in a clone writes the client hooks, keeps one
// already there to run first, commits the merge driver's .gitattributes
// to the records branch; uninstall
// removes them and restores the one it chained.
func TestHooksRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	run := func(args ...string) cmdtest.Result {
		return st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return hookscmd.NewCmdHooks(f, nil) }, args...)
	}
	mine := filepath.Join(st.Dir, ".git", "hooks", "pre-push")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	require.NoError(t, os.WriteFile(mine, []byte("#!/bin/sh\nexit 0\n"), 0o755))
	before := st.Tip(t)

	r := run("install")
	require.Equal(t, 0, r.Code, r.String())
	for _, h := range []string{"pre-commit", "commit-msg"} {
		assert.Contains(t, r.Stdout, "installed "+filepath.Join(st.Dir, ".git", "hooks", h)+"\n")
	}
	assert.Contains(t, r.Stdout, "pre-push (runs "+filepath.Join(st.Dir, ".git", "hooks", "pre-push.pre-records")+" first)")
	assert.Contains(t, r.Stdout, "committed .gitattributes to refs/heads/records (")
	assert.NotEqual(t, before, st.Tip(t))
	assert.Contains(t, cmdtest.Git(t, st.Dir, "show", "records:.gitattributes"), "merge=")

	r = run("uninstall", "--json")
	require.Equal(t, 0, r.Code, r.String())
	var got struct{ Removed []string }
	r.JSON(t, &got)
	assert.NotEmpty(t, got.Removed)
	data, err := os.ReadFile(mine)
	require.NoError(t, err)
	assert.Equal(t, "#!/bin/sh\nexit 0\n", string(data), "the chained hook is back")
}
