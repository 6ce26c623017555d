package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	endsessioncmd "github.com/git-records/git-records/pkg/cmd/exec/endsession"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdEndSession: --archive or --terminate sets the state; neither
// or both is a usage error naming --terminate, and nothing runs.
func TestNewCmdEndSession(t *testing.T) {
	st := cmdtest.NewRepo(t)
	for state, flag := range map[kernel.ExecState]string{kernel.ExecArchived: "--archive", kernel.ExecTerminated: "--terminate"} {
		f, _, _, _ := st.Factory()
		var got *endsessioncmd.EndSessionOptions
		r := cmdtest.Run(f, endsessioncmd.NewCmdEndSession(f, func(o *endsessioncmd.EndSessionOptions) error { got = o; return nil }), "--session", "s", flag)
		require.Equal(t, 0, r.Code, r.String())
		assert.Equal(t, state, got.Input.State)
		assert.Equal(t, "s", got.Input.Session)
	}
	never := func(*endsessioncmd.EndSessionOptions) error { t.Fatal("ran"); return nil }
	for _, args := range [][]string{{"--session", "s"}, {"--session", "s", "--archive", "--terminate"}} {
		f, _, _, _ := st.Factory()
		e := cmdtest.Run(f, endsessioncmd.NewCmdEndSession(f, never), append([]string{"--json"}, args...)...).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
		assert.Equal(t, "--terminate", e["flag"])
	}
}
