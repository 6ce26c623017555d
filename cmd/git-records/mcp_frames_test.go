package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawMCP is `git-records mcp` over plain pipes: the frames a test writes
// go to its stdin as they are, and each line it answers comes back.
type rawMCP struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

func startRawMCP(t *testing.T, dir string) *rawMCP {
	t.Helper()
	needServer(t)
	cmd := exec.Command(binPath, "mcp")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	m := &rawMCP{cmd: cmd, stdin: stdin, lines: make(chan string, 64)}
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(m.lines)
				return
			}
			m.lines <- line
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return m
}

func (m *rawMCP) send(t *testing.T, frame string) {
	t.Helper()
	_, err := io.WriteString(m.stdin, frame+"\n")
	require.NoError(t, err, "the server still reads")
}

// answers reads lines until one answers each id of want (JSON-encoded ids,
// "null" for an error no id could be given to), and returns them by id.
func (m *rawMCP) answers(t *testing.T, want ...string) map[string]map[string]any {
	t.Helper()
	got := map[string]map[string]any{}
	deadline := time.After(time.Minute)
	for len(got) < len(want) {
		select {
		case line, ok := <-m.lines:
			require.True(t, ok, "the server ended its output, answering %v of %v", got, want)
			var msg map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &msg), line)
			id, ok := msg["id"]
			if !ok {
				continue // a notification
			}
			key, _ := json.Marshal(id)
			got[string(key)] = msg
		case <-deadline:
			t.Fatalf("no answer to %v: got %v", want, got)
		}
	}
	return got
}

// errorCode is the JSON-RPC error code of an answer, or 0.
func errorCode(msg map[string]any) int {
	e, _ := msg["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return int(code)
}

// TestMCPMalformedFrames: a real `git-records mcp` answers each malformed
// frame with a JSON-RPC error, -32700 when it is not JSON and -32600 when
// it is not a message the server takes, and goes on serving: the request
// after it is answered, and the server exits 0 when its client hangs up.
// Each of these frames ended the session with exit 70.
func TestMCPMalformedFrames(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	m := startRawMCP(t, dir)
	m.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.NotContains(t, m.answers(t, `"init"`)[`"init"`], "error")
	m.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	for i, tc := range []struct {
		name, frame string
		code        int
		id          string // the id the error answers, "null" when none could be read
	}{
		{"not JSON", `{not json`, -32700, "null"},
		{"two values on a line", `{"jsonrpc":"2.0","id":90,"method":"ping"} {}`, -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":91,"method":"ping"}]`, -32600, "null"},
		{"an object as the id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"an id past float64", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, -32600, "null"},
		{"not an object", `"ping"`, -32600, "null"},
		{"no version", `{"id":92,"method":"ping"}`, -32600, "92"},
		{"a number as the method", `{"jsonrpc":"2.0","id":93,"method":7}`, -32600, "93"},
		{"two ids", `{"jsonrpc":"2.0","id":94,"id":95,"method":"ping"}`, -32600, "null"},
		{"a response with no id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
		{"a response with a string as the error", `{"jsonrpc":"2.0","id":96,"error":"bad"}`, -32600, "96"},
		{"a line over the bound", `{"jsonrpc":"2.0","id":97,"method":"ping","params":{"x":"` + strings.Repeat("a", 16<<20) + `"}}`, -32600, "null"},
		{"a 100k-deep argument", `{"jsonrpc":"2.0","id":98,"method":"tools/call","params":{"name":"show","arguments":{"handle":` + deep + `}}}`, -32600, "null"},
	} {
		ping := fmt.Sprintf(`"after-%d"`, i)
		m.send(t, tc.frame)
		m.send(t, `{"jsonrpc":"2.0","id":`+ping+`,"method":"ping"}`)
		got := m.answers(t, tc.id, ping)
		assert.Equal(t, tc.code, errorCode(got[tc.id]), "%s: %v", tc.name, got[tc.id])
		assert.NotContains(t, got[ping], "error", "%s: the next request is served", tc.name)
	}
	// A tool call still works, and the session ends cleanly when the client hangs up.
	m.send(t, `{"jsonrpc":"2.0","id":"list","method":"tools/call","params":{"name":"list","arguments":{}}}`)
	assert.NotContains(t, m.answers(t, `"list"`)[`"list"`], "error")
	require.NoError(t, m.stdin.Close())
	require.NoError(t, m.cmd.Wait(), "exit 0")
}
