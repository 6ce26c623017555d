package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	retiresandboxcmd "github.com/git-records/git-records/pkg/cmd/exec/retiresandbox"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdRetireSandbox: the sandbox, --force and the evidence into
// options; a missing sandbox is a usage error.
func TestNewCmdRetireSandbox(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *retiresandboxcmd.RetireSandboxOptions
	r := cmdtest.Run(f, retiresandboxcmd.NewCmdRetireSandbox(f, func(o *retiresandboxcmd.RetireSandboxOptions) error { got = o; return nil }),
		"sb", "--force", "--agent", "ops", "--reason", "done")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "sb", got.Sandbox)
	assert.True(t, got.Force)
	assert.Equal(t, "ops", got.Input.Agent)
	assert.Equal(t, "done", got.Input.Reason)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, retiresandboxcmd.NewCmdRetireSandbox(f, func(*retiresandboxcmd.RetireSandboxOptions) error { t.Fatal("ran"); return nil }), "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
