package endrun

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m) }

// TestNewCmdEndRun: the run, its own --state (default completed) and the
// manage evidence into options; a missing run is a usage error.
func TestNewCmdEndRun(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *EndRunOptions
	r := cmdtest.Run(f, NewCmdEndRun(f, func(o *EndRunOptions) error { got = o; return nil }), "r1", "--session", "s", "--agent", "a")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "r1", got.Run)
	assert.Equal(t, string(kernel.ExecCompleted), got.State)
	assert.Equal(t, "s", got.Input.Session)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, NewCmdEndRun(f, func(*EndRunOptions) error { t.Fatal("ran"); return nil }), "--json", "--session", "s").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
