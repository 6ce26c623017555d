package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	managecmd "github.com/git-records/git-records/pkg/cmd/exec/manage"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdCancel: the handle and the manage evidence into options, op
// cancel; no --state flag; a missing handle is a usage error.
func TestNewCmdCancel(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *managecmd.ManageOptions
	r := cmdtest.Run(f, managecmd.NewCmdCancel(f, func(o *managecmd.ManageOptions) error { got = o; return nil }),
		"r1", "--session", "s", "--agent", "a", "--reason", "why", "--note", "n")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, kernel.OpCancel, got.Op)
	assert.Equal(t, "r1", got.Handle)
	assert.Equal(t, kernel.ManageInput{Session: "s", Agent: "a", Reason: "why", Note: "n"}, got.Input)

	never := func(*managecmd.ManageOptions) error { t.Fatal("ran"); return nil }
	for _, args := range [][]string{{"--session", "s"}, {"r1", "--state", "failed"}} {
		f, _, _, _ := st.Factory()
		cmdtest.Run(f, managecmd.NewCmdCancel(f, never), append([]string{"--json"}, args...)...).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
}

// TestNewCmdClose: op close, --state defaults to completed; a malformed
// --bind is a usage error.
func TestNewCmdClose(t *testing.T) {
	st := cmdtest.NewRepo(t)
	for state, args := range map[kernel.ExecState][]string{
		kernel.ExecCompleted: {"r1", "--session", "s"},
		kernel.ExecFailed:    {"r1", "--session", "s", "--state", "failed"},
	} {
		f, _, _, _ := st.Factory()
		var got *managecmd.ManageOptions
		r := cmdtest.Run(f, managecmd.NewCmdClose(f, func(o *managecmd.ManageOptions) error { got = o; return nil }), args...)
		require.Equal(t, 0, r.Code, r.String())
		assert.Equal(t, kernel.OpClose, got.Op)
		assert.Equal(t, state, got.Input.State)
	}
	f, _, _, _ := st.Factory()
	e := cmdtest.Run(f, managecmd.NewCmdClose(f, func(*managecmd.ManageOptions) error { t.Fatal("ran"); return nil }), "--json", "r1", "--bind", "x").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, "--bind", e["flag"])
}
