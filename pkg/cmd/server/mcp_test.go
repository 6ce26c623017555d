package server

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/agent/mcp"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m) }

// TestMCPRun: the command serves the store over its transport: a client
// lists the tools and reads a record through one; the command ends when
// the client hangs up.
func TestMCPRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	id := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Served"})
	server, client := sdk.NewInMemoryTransports()
	f, _, _, _ := st.Factory()
	done := make(chan cmdtest.Result, 1)
	go func() {
		done <- cmdtest.Run(f, mcp.NewCmdMCP(f, func(o *mcp.MCPOptions) error { return mcpRun(o, server) }), "--agent", "tester")
	}()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, client, nil)
	require.NoError(t, err)
	tools, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	assert.Contains(t, names, "show")
	assert.Contains(t, names, "create")
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "show", Arguments: map[string]any{"handle": id}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	require.NotEmpty(t, res.Content)
	assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, "Served")
	require.NoError(t, session.Close())

	select {
	case r := <-done:
		assert.Equal(t, 0, r.Code, r.String())
	case <-ctx.Done():
		t.Fatal("mcp did not end when the client hung up")
	}
}
