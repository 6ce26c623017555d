package verbtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	mcpcmd "github.com/git-records/git-records/pkg/cmd/agent/mcp"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdMCP: --agent and --poll land in the server's options; mcp
// takes no arguments. (What mcp runs is tested in pkg/cmd/server.)
func TestNewCmdMCP(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *mcpcmd.MCPOptions
	r := cmdtest.Run(f, mcpcmd.NewCmdMCP(f, func(o *mcpcmd.MCPOptions) error { got = o; return nil }), "--agent", "claude", "--poll", "250ms")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "claude", got.Agent)
	assert.Equal(t, 250*time.Millisecond, got.Poll)
	f, _, _, _ = st.Factory()
	ran := func(*mcpcmd.MCPOptions) error { t.Error("mcp ran with a stray argument"); return nil }
	cmdtest.Run(f, mcpcmd.NewCmdMCP(f, ran), "--json", "stray").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
