package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	endruncmd "github.com/git-records/git-records/pkg/cmd/exec/endrun"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdEndRun: the run, its own --state (default completed) and the
// manage evidence into options; a missing run is a usage error.
func TestNewCmdEndRun(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *endruncmd.EndRunOptions
	r := cmdtest.Run(f, endruncmd.NewCmdEndRun(f, func(o *endruncmd.EndRunOptions) error { got = o; return nil }), "r1", "--session", "s", "--agent", "a")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "r1", got.Run)
	assert.Equal(t, string(kernel.ExecCompleted), got.State)
	assert.Equal(t, "s", got.Input.Session)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, endruncmd.NewCmdEndRun(f, func(*endruncmd.EndRunOptions) error { t.Fatal("ran"); return nil }), "--json", "--session", "s").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
