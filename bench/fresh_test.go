package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The benchmarks of this file are the rows of a store that is new to this
// machine or that has been written to for a long time: every derived
// index brought up to date in one pass (reindex, the first read after a
// clone), the search that follows it, the start of an MCP session, and the
// cost of a write after many writes.

// allIndexFiles are every derived index file of the store: the graph
// index and the search index.
func (f *fixture) allIndexFiles() []string {
	m, _ := filepath.Glob(filepath.Join(f.dir, ".git", "records", "index", "*"))
	return m
}

func (f *fixture) removeAllIndexes() {
	for _, p := range f.allIndexFiles() {
		os.RemoveAll(p)
	}
}

// BenchmarkFresh: every derived index from nothing, one process each.
//
//   - reindex-all: `git records reindex` with every index file deleted
//     (graph and search)
//   - search-after-reindex: the first `search <word>` after that reindex
//   - search-current: the same search with its index current (the
//     baseline of the one before)
//   - search-cold: `search <word>` with every index file deleted, as the
//     first search after a clone
//   - git-read-all: `git ls-tree -r` piped into `git cat-file --batch`
func BenchmarkFresh(b *testing.B) {
	bin := bin(b)
	m := newRSSMeter()
	var ops []op
	for _, f := range stores(b, "packed") {
		reindexed := func() {
			f.removeAllIndexes()
			quiet(b, f.dir, bin, "reindex")
			// The 200 MB it wrote at 100k records, written back now: the
			// search timed next is measured, not the kernel's writeback.
			syscall.Sync()
		}
		current := func() { quiet(b, f.dir, bin, "search", searchWord) }
		ops = append(ops,
			m.cliAfter(b, "reindex-all", f, f.removeAllIndexes, bin, "reindex"),
			m.cliAfter(b, "search-after-reindex", f, reindexed, bin, "search", "--json", searchWord),
			m.cliAfter(b, "search-current", f, current, bin, "search", "--json", searchWord),
			m.cliAfter(b, "search-cold", f, f.removeAllIndexes, bin, "search", "--json", searchWord),
			sh(b, "git-read-all", f, "git ls-tree -r --format='%(objectname)' refs/heads/records records/ | git cat-file --batch >/dev/null"),
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
	m.report(b)
}

// mcpSession starts `git records mcp` in dir and connects the SDK's
// client to it; it returns once the session is initialized (the server
// has published the store's records and answers calls).
func mcpSession(ctx context.Context, b *testing.B, bin, dir string) (*mcp.ClientSession, *exec.Cmd) {
	cmd := exec.CommandContext(ctx, bin, "mcp", "--agent", "bench")
	cmd.Dir = dir
	session, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return session, cmd
}

// peakRSS is the largest resident set the process pid has reached
// (VmHWM): git-records mcp execs the server in its own process.
func peakRSS(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kib << 10
		}
	}
	b.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// BenchmarkMCPStart: a new `git records mcp` session, from the exec to the
// answer of its first call (`show` of a record), against `git records
// show` of the same record in a process of its own (each the mean of a
// few); the server's peak resident set by then is reported too.
func BenchmarkMCPStart(b *testing.B) {
	const runs = 5
	bin := bin(b)
	m := newRSSMeter()
	var ops []op
	for _, f := range stores(b, "packed") {
		id := f.Records[1].ID
		start := func() time.Duration {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var session *mcp.ClientSession
			var cmd *exec.Cmd
			d := timed(func() {
				session, cmd = mcpSession(ctx, b, bin, f.dir)
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "show", Arguments: map[string]any{"handle": id}})
				if err != nil || res.IsError {
					b.Fatalf("show through MCP: %v %v", err, res)
				}
			})
			rss := peakRSS(b, cmd.Process.Pid)
			m.mu.Lock()
			m.max["mcp-start"+f.label] = max(m.max["mcp-start"+f.label], rss)
			m.mu.Unlock()
			session.Close()
			return d
		}
		ops = append(ops,
			op{"mcp-start" + f.label, func(i int) time.Duration {
				var sum time.Duration
				for range runs {
					sum += start()
				}
				return sum / runs
			}},
			op{"show-process" + f.label, func(i int) time.Duration {
				var sum time.Duration
				for range runs {
					sum += timed(func() { quiet(b, f.dir, bin, "show", id) })
				}
				return sum / runs
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
	m.report(b)
}

// mcpWrites is how many creates BenchmarkMCPWrites makes in one session
// (BENCH_MCP_WRITES overrides it).
func mcpWrites() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_MCP_WRITES")); err == nil && n >= 420 {
		return n
	}
	return 10000
}

// BenchmarkMCPWrites: signed creates through one `git records mcp`
// session, each call issued after the answer to the one before, many of
// them: mcp-write-first is the mean of writes 10 to 209, mcp-write-last of
// the last 200 (of mcpWrites). A write must cost the same after thousands
// of writes as after ten: whatever the derived indexes keep of the writes
// before (a delta, its merges into a new base) must not make the next one
// dearer. The server's peak resident set over the session is reported
// too.
func BenchmarkMCPWrites(b *testing.B) {
	const window = 200
	bin := bin(b)
	n := mcpWrites()
	var ops []op
	for _, f := range stores(b, "packed") {
		ops = append(ops, op{"mcp-writes" + f.label, func(i int) time.Duration {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			session, cmd := mcpSession(ctx, b, bin, f.dir)
			defer session.Close()
			var first, last time.Duration
			for k := range n {
				d := timed(func() {
					res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "create", Arguments: map[string]any{
						"type": "concept", "category": "bench.writes", "title": fmt.Sprintf("Write %d.%d", i, k), "body": cliBody(k)}})
					if err != nil || res.IsError {
						b.Fatalf("create through MCP: %v %v", err, res)
					}
				})
				switch {
				case k >= 10 && k < 10+window:
					first += d
				case k >= n-window:
					last += d
				}
			}
			b.ReportMetric(float64(peakRSS(b, cmd.Process.Pid)), "B/maxrss-mcp-writes"+f.label)
			b.ReportMetric(float64(first.Nanoseconds())/window, "ns/mcp-write-first"+f.label)
			b.ReportMetric(float64(last.Nanoseconds())/window, "ns/mcp-write-last"+f.label)
			return first + last
		}})
	}
	b.ResetTimer()
	interleave(b, ops...)
}
