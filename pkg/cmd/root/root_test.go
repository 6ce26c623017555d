package root

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m) }

// TestRootReportsUsageErrors: an unknown command or flag is a usage error,
// exit 2, with the JSON envelope when --json was asked for even though
// the flags were never parsed.
func TestRootReportsUsageErrors(t *testing.T) {
	st := cmdtest.NewRepo(t)
	for _, args := range [][]string{{"--json", "frobnicate"}, {"frobnicate", "--json"}, {"--json", "--bogus"}} {
		f, _, out, errOut := st.Factory()
		code := Run(f, NewCmdRoot(f), args)
		r := cmdtest.Result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
		r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
	f, _, _, errOut := st.Factory()
	assert.Equal(t, cmdutil.ExitUsage, Run(f, NewCmdRoot(f, noop("probe")), []string{"--color", "sometimes", "probe"}))
	assert.Contains(t, errOut.String(), `git-records: USAGE: --color "sometimes" is not one of auto, always, never`)
}

// TestCommandsAreGroupedAndComplete: a command named in a help group gets
// the group; a handle command completes ids and aliases from the store,
// described by the title; a store that cannot be read completes nothing.
func TestCommandsAreGroupedAndComplete(t *testing.T) {
	st := cmdtest.NewStore(t)
	id := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Token refresh", Aliases: []string{"auth/token-refresh"}})
	f, _, _, _ := st.Factory()
	root := NewCmdRoot(f)
	show, _, err := root.Find([]string{"show"})
	require.NoError(t, err)
	assert.Equal(t, "read", show.GroupID)
	assert.Nil(t, show.ValidArgsFunction, "completion is wired in by Run, for __complete only")
	addCompletions(f, root)
	require.NotNil(t, show.ValidArgsFunction)
	got, _ := show.ValidArgsFunction(show, nil, id[:6])
	assert.Equal(t, []cobra.Completion{cobra.CompletionWithDesc(id, "Token refresh")}, got)
	got, _ = show.ValidArgsFunction(show, nil, "auth/")
	assert.Equal(t, []cobra.Completion{cobra.CompletionWithDesc("auth/token-refresh", "Token refresh")}, got)

	empty := cmdtest.NewRepo(t)
	f, _, _, _ = empty.Factory()
	f.WorkDir = t.TempDir() // not a repository
	root = NewCmdRoot(f)
	addCompletions(f, root)
	show, _, err = root.Find([]string{"show"})
	require.NoError(t, err)
	got, _ = show.ValidArgsFunction(show, nil, "")
	assert.Empty(t, got)
}

// TestRunCompletes: Run wires completion in for cobra's __complete (and
// __completeNoDesc), handles and flag values alike, and leaves the tree
// alone for any other command.
func TestRunCompletes(t *testing.T) {
	st := cmdtest.NewStore(t)
	id := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Token refresh", Aliases: []string{"auth/token-refresh"}})
	for _, req := range []string{cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd} {
		f, _, out, _ := st.Factory()
		require.Equal(t, cmdutil.ExitOK, Run(f, NewCmdRoot(f), []string{req, "show", id[:6]}))
		assert.Contains(t, out.String(), id, req)
		f, _, out, _ = st.Factory()
		require.Equal(t, cmdutil.ExitOK, Run(f, NewCmdRoot(f), []string{req, "list", "--status", "act"}))
		assert.Contains(t, out.String(), "active", req)
	}
	f, _, _, _ := st.Factory()
	root := NewCmdRoot(f)
	require.Equal(t, cmdutil.ExitOK, Run(f, root, []string{"--version"}))
	list, _, err := root.Find([]string{"list"})
	require.NoError(t, err)
	_, ok := list.GetFlagCompletionFunc("status")
	assert.False(t, ok, "no completion wired in for a command that does not complete")
}

// noop is a command that does nothing, to register under the root.
func noop(name string) *cobra.Command {
	return &cobra.Command{Use: name + " <handle>", RunE: func(*cobra.Command, []string) error { return nil }}
}
