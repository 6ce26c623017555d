package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
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

// TestMCPRefusesInvalidUTF8: a tool call whose arguments hold bytes that
// are not UTF-8, or a lone surrogate escape, as they come over the wire,
// is refused as the CLI and the
// contract refuse them (INVALID_RECORD) and writes nothing; decoded first,
// each bad byte would have been stored as U+FFFD. The frames are written
// raw: the SDK's client would have replaced the bytes before sending.
func TestMCPRefusesInvalidUTF8(t *testing.T) {
	st := cmdtest.NewStore(t)
	before := st.Tip(t)
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	f, _, _, _ := st.Factory()
	done := make(chan cmdtest.Result, 1)
	go func() {
		transport := &sdk.IOTransport{Reader: toServer, Writer: fromServer}
		done <- cmdtest.Run(f, mcp.NewCmdMCP(f, func(o *mcp.MCPOptions) error { return mcpRun(o, transport) }), "--agent", "tester")
	}()
	answers := bufio.NewScanner(clientIn)
	answers.Buffer(nil, 1<<20)
	// answer sends one frame and returns the answer to the request id.
	answer := func(id int, frame string) map[string]any {
		t.Helper()
		_, err := io.WriteString(clientOut, frame+"\n")
		require.NoError(t, err)
		for answers.Scan() {
			var msg map[string]any
			require.NoError(t, json.Unmarshal(answers.Bytes(), &msg), "%s", answers.Bytes())
			if msg["id"] == float64(id) {
				return msg
			}
		}
		t.Fatalf("no answer to request %d: %v", id, answers.Err())
		return nil
	}
	answer(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	_, err := io.WriteString(clientOut, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(t, err)

	for i, args := range []string{
		`{"type":"concept","title":"caf` + "\xe9" + `","category":"c","body":"b"}`,
		`{"type":"concept","title":"T","category":"c","body":"b","tags":["` + "\xff" + `"]}`,
		`{"type":"concept","title":"T","category":"c","body":"b","note":"` + "\xc3" + `"}`,
		`{"type":"concept","title":"T\ud800","category":"c","body":"b"}`,
	} {
		msg := answer(2+i, `{"jsonrpc":"2.0","id":`+strconv.Itoa(2+i)+`,"method":"tools/call","params":{"name":"create","arguments":`+args+`}}`)
		res, _ := msg["result"].(map[string]any)
		require.NotNil(t, res, "a refusal is a tool error, not a protocol error: %v", msg)
		assert.Equal(t, true, res["isError"], "%v", msg)
		e, _ := res["structuredContent"].(map[string]any)["error"].(map[string]any)
		assert.Equal(t, "INVALID_RECORD", e["code"], "%v", msg)
		assert.Regexp(t, `^the arguments of "create" (is not valid UTF-8|holds the escape \\uD800)`, e["message"])
	}
	// The same call in UTF-8 is written: the refusals were about the bytes.
	msg := answer(9, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"create","arguments":{"type":"concept","title":"café","category":"c","body":"b"}}}`)
	assert.Nil(t, msg["result"].(map[string]any)["isError"], "%v", msg)
	require.NoError(t, clientOut.Close())
	r := <-done
	assert.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, 1, strings.Count(cmdtest.Git(t, st.Dir, "log", "--format=%H", before+"..refs/heads/records"), "\n")+1,
		"only the UTF-8 create wrote a commit")
}

// TestMCPErrorsNameTheArgument: a refused tool call names the argument to
// fix, as the CLI names the flag, for the inputs the kernel checks.
func TestMCPErrorsNameTheArgument(t *testing.T) {
	st := cmdtest.NewStore(t)
	st.Create(t, kernel.CreateInput{ID: "held", Type: "concept", Title: "Held", Aliases: []string{"taken"}})
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

	create := func(extra map[string]any) map[string]any {
		args := map[string]any{"type": "concept", "title": "T", "category": "c", "body": "b"}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	for _, c := range []struct {
		name     string
		tool     string
		args     map[string]any
		argument string
	}{
		{"an alias that climbs out", "create", create(map[string]any{"aliases": []string{"a/../b"}}), "aliases"},
		{"an id that is not a slug", "create", create(map[string]any{"id": "Not An Id"}), "id"},
		{"an empty tag", "create", create(map[string]any{"tags": []string{""}}), "tags"},
		{"a relation without its end", "create", map[string]any{"type": "relation", "title": "R", "category": "c", "body": "b", "from": "held", "relation": "related"}, "to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
			require.NoError(t, err)
			require.True(t, res.IsError, "the call is refused: %v", res.Content)
			body, _ := res.StructuredContent.(map[string]any)
			e, _ := body["error"].(map[string]any)
			assert.Equal(t, c.argument, e["argument"], "the error names the argument: %v", e)
		})
	}
	require.NoError(t, session.Close())
	<-done
}
