package verbtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	awaitcmd "github.com/git-records/git-records/pkg/cmd/exec/await"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdAwait: the handle, --session, --state split on commas and the
// durations into options; an unknown state names --state, and a missing
// handle is a usage error; nothing runs.
func TestNewCmdAwait(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *awaitcmd.AwaitOptions
	r := cmdtest.Run(f, awaitcmd.NewCmdAwait(f, func(o *awaitcmd.AwaitOptions) error { got = o; return nil }),
		"r1", "--session", "s", "--state", "completed,failed", "--timeout", "5m", "--interval", "1s")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "r1", got.Handle)
	assert.Equal(t, "s", got.Session)
	assert.Equal(t, []string{"completed", "failed"}, got.States)
	assert.Equal(t, 5*time.Minute, got.Timeout)
	assert.Equal(t, time.Second, got.Interval)

	never := func(*awaitcmd.AwaitOptions) error { t.Fatal("ran"); return nil }
	f, _, _, _ = st.Factory()
	e := cmdtest.Run(f, awaitcmd.NewCmdAwait(f, never), "--json", "r1", "--state", "completed,done").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, "--state", e["flag"])
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, awaitcmd.NewCmdAwait(f, never), "--json", "--session", "s").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
