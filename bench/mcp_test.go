package bench

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPCreate: signed creates through one long-lived `git records
// mcp` session (the SDK's client over a stdio pipe, one tools/call per
// record, each answered after its commit landed) against `git records
// create`, one process per record, in the same loop. Goal: ≥ 300 creates/s
// through MCP. The mcp-create metric is the mean of a burst of calls an
// agent runtime issues at once (the SDK serves a session's calls
// concurrently, and the server writes the creates that wait for a commit
// in flight as one group); mcp-create-serial is the mean of calls issued
// one after another, each waiting for the answer to the one before.
func BenchmarkMCPCreate(b *testing.B) {
	const burst = 16
	bin := bin(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ops []op
	for _, f := range stores(b, "packed") {
		cmd := exec.CommandContext(ctx, bin, "mcp", "--agent", "bench")
		cmd.Dir = f.dir
		session, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer session.Close()
		create := func(i, k int) {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "create", Arguments: map[string]any{
				"type": "concept", "category": "bench.mcp", "title": fmt.Sprintf("MCP record %d.%d", i, k), "body": cliBody(i)}})
			// Called from several goroutines: b.Error, not b.Fatal.
			if err != nil {
				b.Error(err)
			} else if res.IsError {
				b.Errorf("create through MCP refused: %v", res.StructuredContent)
			}
		}
		create(-1, 0) // the session's first call opens the index
		ops = append(ops,
			op{"mcp-create" + f.label, func(i int) time.Duration {
				return timed(func() {
					var wg sync.WaitGroup
					for k := 0; k < burst; k++ {
						wg.Add(1)
						go func() {
							defer wg.Done()
							create(i, k)
						}()
					}
					wg.Wait()
				}) / burst
			}},
			op{"mcp-create-serial" + f.label, func(i int) time.Duration {
				return timed(func() {
					for k := 0; k < burst; k++ {
						create(-2-i, k)
					}
				}) / burst
			}},
			op{"cli-create" + f.label, func(i int) time.Duration {
				return timed(func() {
					mustRun(b, f.dir, nil, nil, bin, "create", "--type", "concept", "--category", "bench.cli",
						"--title", fmt.Sprintf("CLI record %d", i), "--agent", "bench", "--body", cliBody(i))
				})
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}
