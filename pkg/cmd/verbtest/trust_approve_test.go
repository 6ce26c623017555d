package verbtest

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	approvecmd "github.com/git-records/git-records/pkg/cmd/trust/approve"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdApprove: the flags fill the request (records in order); an
// argument is a usage error and nothing runs.
func TestNewCmdApprove(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *approvecmd.ApproveOptions
	r := cmdtest.Run(f, approvecmd.NewCmdApprove(f, func(o *approvecmd.ApproveOptions) error { got = o; return nil }),
		"--op", "supersede", "--record", "b", "--record", "a", "--evidence", "sha256:ab", "--tip", "records~1", "--key", "k")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, []any{"supersede", []string{"b", "a"}, "sha256:ab", "records~1", "k"},
		[]any{got.Op, got.Records, got.Evidence, got.Tip, got.Key})
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, approvecmd.NewCmdApprove(f, func(*approvecmd.ApproveOptions) error { t.Fatal("ran"); return nil }), "--json", "stray").
		Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestApproveRun: the token is signed on the branch's tip with the
// store's key; an op that is not one, or evidence that is not a digest,
// is a usage error.
func TestApproveRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	run := func(args ...string) cmdtest.Result {
		return st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return approvecmd.NewCmdApprove(f, nil) }, args...)
	}
	r := run("--op", "retire", "--record", "k7m2qxw4", "--evidence", "sha256:9f2c", "--json")
	require.Equal(t, 0, r.Code, r.String())
	var got map[string]any
	r.JSON(t, &got)
	assert.Equal(t, st.Tip(t), got["tip"])
	assert.Equal(t, "retire", got["op"])
	assert.Equal(t, []any{"k7m2qxw4"}, got["records"])
	token, _ := got["token"].(string)
	require.NotEmpty(t, token)

	r = run("--op", "retire", "--record", "k7m2qxw4", "--evidence", "sha256:9f2c", "--tip", "records")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, token+"\n", r.Stdout, "the same request on the same tip")
	assert.False(t, strings.Contains(r.Stderr, "error"), r.Stderr)

	run("--op", "frobnicate", "--evidence", "sha256:1", "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	run("--op", "retire", "--evidence", "9f2c", "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
