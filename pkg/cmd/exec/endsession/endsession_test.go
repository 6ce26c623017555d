package endsession

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m) }

// TestNewCmdEndSession: --archive or --terminate sets the state; neither
// or both is a usage error naming --terminate, and nothing runs.
func TestNewCmdEndSession(t *testing.T) {
	st := cmdtest.NewRepo(t)
	for state, flag := range map[kernel.ExecState]string{kernel.ExecArchived: "--archive", kernel.ExecTerminated: "--terminate"} {
		f, _, _, _ := st.Factory()
		var got *EndSessionOptions
		r := cmdtest.Run(f, NewCmdEndSession(f, func(o *EndSessionOptions) error { got = o; return nil }), "--session", "s", flag)
		require.Equal(t, 0, r.Code, r.String())
		assert.Equal(t, state, got.Input.State)
		assert.Equal(t, "s", got.Input.Session)
	}
	never := func(*EndSessionOptions) error { t.Fatal("ran"); return nil }
	for _, args := range [][]string{{"--session", "s"}, {"--session", "s", "--archive", "--terminate"}} {
		f, _, _, _ := st.Factory()
		e := cmdtest.Run(f, NewCmdEndSession(f, never), append([]string{"--json"}, args...)...).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
		assert.Equal(t, "--terminate", e["flag"])
	}
}
