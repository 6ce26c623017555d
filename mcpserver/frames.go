package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-records/git-records/internal/nesting"
)

// Bounds on one inbound frame (one line of the stdio transport). A frame
// over them is answered with an error, and the session goes on.
const (
	// MaxFrameBytes: a create or update carries a body of at most
	// kernel.MaxBodyBytes, which JSON's escapes may make up to six times
	// as long.
	MaxFrameBytes = 8 << 20
	// MaxFrameDepth: what the tools take nests a few levels; the SDK's
	// own decoder refuses 1,000 by ending the session.
	MaxFrameDepth = 64
)

// StdioTransport is the MCP SDK's newline-delimited JSON transport over in
// and out, with every inbound frame checked before the SDK reads it. The
// SDK ends the session, and so the server, on the first frame it cannot
// take (not JSON, not a JSON-RPC message, an id that is neither a string
// nor a number, an empty batch, a line over its limit); here such a frame
// is answered with a JSON-RPC error (-32700 when it is not JSON, -32600
// otherwise), as the JSON-RPC 2.0 specification asks, and the next one is
// read. Batches are refused the same way: MCP has none since 2025-06-18.
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return &checkedTransport{in: in, out: out}
}

type checkedTransport struct {
	in  io.Reader
	out io.Writer
}

// Connect starts the checker: the frames it passes go to the SDK's
// IOTransport through a pipe; its answers and the SDK's messages are
// written to out one whole line at a time.
func (t *checkedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &lineWriter{w: t.out}
	pr, pw := io.Pipe()
	go checkFrames(t.in, pw, out)
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: MaxFrameBytes + 1}).Connect(ctx)
}

// lineWriter writes each message as one Write under a lock, so that the
// checker's answers and the SDK's messages never interleave. Closing it
// leaves out open: it is the process's stdout.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lineWriter) Close() error { return nil }

// checkFrames reads in line by line until it ends (then closes sdk) or the
// SDK stops reading: a frame that passes check goes to sdk, any other is
// answered on out.
func checkFrames(in io.Reader, sdk *io.PipeWriter, out io.Writer) {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		var tooLong bool
		var err error
		line, tooLong, err = readFrame(r, line[:0])
		if tooLong {
			answer(out, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is over %d bytes, the limit of one line", MaxFrameBytes), nil)
		} else if len(bytes.TrimSpace(line)) > 0 {
			code, reason, id := check(line)
			if code != 0 {
				answer(out, code, reason, id)
			} else if _, werr := sdk.Write(append(bytes.TrimRight(line, "\r\n"), '\n')); werr != nil {
				return // the session is over
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			sdk.CloseWithError(err)
			return
		}
	}
}

// readFrame reads one line into buf, or reports it too long once it passes
// MaxFrameBytes (its line ending aside) and reads on to its end without
// keeping it.
func readFrame(r *bufio.Reader, buf []byte) ([]byte, bool, error) {
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(buf)+len(chunk) > MaxFrameBytes+len("\r\n") {
			tooLong, buf = true, buf[:0]
		}
		if !tooLong {
			buf = append(buf, chunk...)
		}
		if err != bufio.ErrBufferFull {
			if !tooLong && len(bytes.TrimRight(buf, "\r\n")) > MaxFrameBytes {
				tooLong, buf = true, buf[:0]
			}
			return buf, tooLong, err
		}
	}
}

// check says whether frame is a JSON-RPC 2.0 message the SDK takes: a code
// (-32700, -32600) and a reason if not, with the message's id when it has
// one that can be answered to.
func check(frame []byte) (code int64, reason string, id json.RawMessage) {
	if nesting.Depth(frame, nesting.JSON, MaxFrameDepth) > MaxFrameDepth {
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message nests more than %d deep", MaxFrameDepth), nil
	}
	if !json.Valid(frame) {
		return jsonrpc.CodeParseError, "the message is not JSON", nil
	}
	switch bytes.TrimSpace(frame)[0] {
	case '{':
	case '[':
		return jsonrpc.CodeInvalidRequest, "batches are not taken: send one message a line", nil
	default:
		return jsonrpc.CodeInvalidRequest, "a message is a JSON object", nil
	}
	fields, dup := members(frame)
	if dup != "" {
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message has two %q members", dup), nil
	}
	if raw, ok := fields["id"]; ok && !isNull(raw) {
		if k := kind(raw); k != '"' && (k != '0' || !finite(raw)) {
			return jsonrpc.CodeInvalidRequest, "the id is a string or a number", nil
		}
		id = raw
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return jsonrpc.CodeInvalidRequest, `"jsonrpc" must be "2.0"`, id
	}
	if method, ok := fields["method"]; ok {
		if kind(method) != '"' {
			return jsonrpc.CodeInvalidRequest, "the method is a string", id
		}
		if params, ok := fields["params"]; ok && kind(params) != '{' && kind(params) != '[' {
			return jsonrpc.CodeInvalidRequest, "params are an object or an array", id
		}
		return 0, "", nil
	}
	// No method: a response to a request of the server's.
	if id == nil {
		return jsonrpc.CodeInvalidRequest, "a message without a method is a response, and needs an id", nil
	}
	if e, ok := fields["error"]; ok && !isNull(e) {
		var wire struct {
			Code    json.Number `json:"code"`
			Message *string     `json:"message"`
		}
		if kind(e) != '{' || json.Unmarshal(e, &wire) != nil || wire.Message == nil {
			return jsonrpc.CodeInvalidRequest, "an error is an object with a code and a message", id
		}
		if _, err := wire.Code.Int64(); err != nil {
			return jsonrpc.CodeInvalidRequest, "an error's code is an integer", id
		}
	}
	return 0, "", nil
}

// members are the members of the JSON object frame (valid JSON) by their
// exact names, and the name of one given twice, if any.
func members(frame []byte) (map[string]json.RawMessage, string) {
	dec := json.NewDecoder(bytes.NewReader(frame))
	_, _ = dec.Token() // '{'
	fields := map[string]json.RawMessage{}
	for dec.More() {
		t, _ := dec.Token()
		name, _ := t.(string)
		var value json.RawMessage
		_ = dec.Decode(&value)
		if _, ok := fields[name]; ok {
			return nil, name
		}
		fields[name] = value
	}
	return fields, ""
}

// kind is the first byte of a JSON value, numbers as '0'.
func kind(v json.RawMessage) byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0
	}
	if c := v[0]; c == '-' || (c >= '0' && c <= '9') {
		return '0'
	}
	return v[0]
}

// finite reports whether the JSON number v is one a float64 holds.
func finite(v json.RawMessage) bool {
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
	return err == nil && !math.IsInf(f, 0)
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// answer writes a JSON-RPC error response to out, as one line.
func answer(out io.Writer, code int64, reason string, id json.RawMessage) {
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": reason}})
	_, _ = out.Write(append(msg, '\n'))
}
