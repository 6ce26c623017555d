package mcp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m) }

// TestNewCmdMCP: --agent and --poll land in the server's options; mcp
// takes no arguments.
func TestNewCmdMCP(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *MCPOptions
	r := cmdtest.Run(f, NewCmdMCP(f, func(o *MCPOptions) error { got = o; return nil }), "--agent", "claude", "--poll", "250ms")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "claude", got.Agent)
	assert.Equal(t, 250*time.Millisecond, got.Poll)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, NewCmdMCP(f, nil), "--json", "stray").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
