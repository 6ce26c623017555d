package mcpserver

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// passed runs checkFrames over input and returns what it passed to the
// SDK and what it answered itself.
func passed(t *testing.T, input string) (sdk, answered string) {
	pr, pw := io.Pipe()
	var out bytes.Buffer
	done := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(pr)
		done <- data
	}()
	checkFrames(strings.NewReader(input), pw, &out)
	return string(<-done), out.String()
}

// TestFrameBound: a line of MaxFrameBytes bytes is passed on, one byte more
// is answered, and neither keeps the next line from being read.
func TestFrameBound(t *testing.T) {
	frame := func(n int) string {
		prefix := `{"jsonrpc":"2.0","method":"x","params":{"p":"`
		return prefix + strings.Repeat("a", n-len(prefix)-3) + `"}}`
	}
	next := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	atBound := frame(MaxFrameBytes)
	require.Len(t, atBound, MaxFrameBytes)
	sdk, answered := passed(t, atBound+"\r\n"+frame(MaxFrameBytes+1)+"\n"+next)
	assert.True(t, sdk == atBound+"\n"+next+"\n", "the frame at the bound and the next one, each a line: got %d bytes", len(sdk))
	assert.Equal(t, `{"error":{"code":-32600,"message":"the message is over 8388608 bytes, the limit of one line"},"id":null,"jsonrpc":"2.0"}`+"\n", answered)
}

// TestFrameDepth: a message nested MaxFrameDepth deep is passed on, one
// level more is answered, whatever its strings hold.
func TestFrameDepth(t *testing.T) {
	nested := func(n int) string {
		return `{"jsonrpc":"2.0","method":"x","params":` + strings.Repeat(`["]",`, n-1) + "1" + strings.Repeat("]", n-1) + "}"
	}
	sdk, answered := passed(t, nested(MaxFrameDepth)+"\n"+nested(MaxFrameDepth+1)+"\n")
	assert.Equal(t, nested(MaxFrameDepth)+"\n", sdk)
	assert.Contains(t, answered, `"code":-32600,"message":"the message nests more than 64 deep"`)
}
