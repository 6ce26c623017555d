package verbtest

import (
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/remote/merge"
	synccmd "github.com/git-records/git-records/pkg/cmd/remote/sync"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
	"github.com/git-records/git-records/service"
)

// TestNewCmdSync: each command's direction, the remote argument, the
// agent; push takes no approval (it merges nothing); sync and push take
// --retry-for, positive; two remotes is a usage error.
func TestNewCmdSync(t *testing.T) {
	st := cmdtest.NewRepo(t)
	for _, c := range []struct {
		newCmd     func(*cmdutil.Factory, func(*synccmd.SyncOptions) error) *cobra.Command
		pull, push bool
	}{{synccmd.NewCmdSync, true, true}, {synccmd.NewCmdPull, true, false}, {synccmd.NewCmdPush, false, true}} {
		f, _, _, _ := st.Factory()
		var got *synccmd.SyncOptions
		cmd := c.newCmd(f, func(o *synccmd.SyncOptions) error { got = o; return nil })
		r := cmdtest.Run(f, cmd, "upstream", "--agent", "ci")
		require.Equal(t, 0, r.Code, r.String())
		assert.Equal(t, [2]bool{c.pull, c.push}, [2]bool{got.Pull, got.Push}, cmd.Name())
		assert.Equal(t, "upstream", got.Remote)
		assert.Equal(t, "ci", got.Agent)
		assert.Equal(t, c.pull, cmd.Flags().Lookup("approve") != nil, cmd.Name())
		assert.Equal(t, c.push, cmd.Flags().Lookup("retry-for") != nil, "%s: only what pushes retries a lost race", cmd.Name())
		if c.push {
			assert.Equal(t, service.DefaultRetryFor, got.RetryFor, "the documented default")
			f, _, _, _ = st.Factory()
			r = cmdtest.Run(f, c.newCmd(f, func(o *synccmd.SyncOptions) error { got = o; return nil }), "--retry-for", "30s")
			require.Equal(t, 0, r.Code, r.String())
			assert.Equal(t, 30*time.Second, got.RetryFor)
			f, _, _, _ = st.Factory()
			r = cmdtest.Run(f, c.newCmd(f, nil), "--json", "--retry-for", "0s")
			r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
			assert.Contains(t, r.Stdout, "--retry-for")
		}
		f, _, _, _ = st.Factory()
		cmdtest.Run(f, c.newCmd(f, func(*synccmd.SyncOptions) error { t.Fatal("ran"); return nil }), "--json", "a", "b").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
}

// TestSyncRun: push carries the records branch to a bare remote; a clone
// pulls it as a verified fast-forward, then is up to date; sync --json is
// the result; merge of a branch ahead verifies what it brings.
func TestSyncRun(t *testing.T) {
	t.Parallel()
	origin := cmdtest.NewStore(t)
	bare := t.TempDir()
	cmdtest.Git(t, bare, "init", "-q", "--bare", ".")
	cmdtest.Git(t, origin.Dir, "remote", "add", "origin", bare)
	origin.Create(t, kernel.CreateInput{Type: "concept", Title: "Shared"})
	run := func(st *cmdtest.Store, newCmd func(*cmdutil.Factory, func(*synccmd.SyncOptions) error) *cobra.Command, args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, newCmd(f, nil), args...)
	}

	r := run(origin, synccmd.NewCmdPush)
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "refs/heads/records: pushed to origin\n", r.Stdout)
	assert.Equal(t, origin.Tip(t), cmdtest.Git(t, bare, "rev-parse", "refs/heads/records"))

	clone := cmdtest.NewRepo(t)
	cmdtest.Git(t, clone.Dir, "remote", "add", "origin", bare)
	r = run(clone, synccmd.NewCmdPull)
	require.Equal(t, 0, r.Code, r.String())
	assert.Regexp(t, `^refs/heads/records: fast-forward to [0-9a-f]{12} \(\d+ new commits verified\)\n$`, r.Stdout)
	assert.Empty(t, r.Stderr, "no progress line off a terminal")
	assert.Equal(t, origin.Tip(t), clone.Tip(t))

	r = run(clone, synccmd.NewCmdSync, "--json")
	require.Equal(t, 0, r.Code, r.String())
	var res map[string]any
	r.JSON(t, &res)
	assert.Equal(t, "origin", res["remote"])
	assert.Equal(t, "up-to-date", res["merge"].(map[string]any)["kind"])
	assert.Equal(t, false, res["pushed"], "nothing new to push")

	// A reviewed branch one record ahead merges as a verified fast-forward.
	origin.Create(t, kernel.CreateInput{Type: "concept", Title: "Reviewed"})
	cmdtest.Git(t, origin.Dir, "branch", "review", "refs/heads/records")
	cmdtest.Git(t, origin.Dir, "update-ref", "refs/heads/records", "refs/heads/records~1")
	f, _, _, _ := origin.Factory()
	r = cmdtest.Run(f, merge.NewCmdMerge(f, nil), "review")
	require.Equal(t, 0, r.Code, r.String())
	assert.Regexp(t, `fast-forward to [0-9a-f]{12} \(1 new commits verified\)`, r.Stdout)
	assert.Equal(t, cmdtest.Git(t, origin.Dir, "rev-parse", "review"), origin.Tip(t))
	f, _, _, _ = origin.Factory()
	cmdtest.Run(f, merge.NewCmdMerge(f, nil), "--json", "no-such-branch").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
}
