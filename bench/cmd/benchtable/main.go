// Command benchtable reads `go test -bench ./bench/` output on stdin and
// prints the Markdown table of scripts/bench.sh:
//
//	operation | 1k | 10k | baseline | ratio | target | pass
//
// The benchmarks report one metric per operation and store size, e.g.
// "123 ns/cli-create@10k" in BenchmarkCreate; with -count > 1 values are
// medians over the runs and ratios are medians of each run's ratio. Every
// ratio compares two numbers measured in the same interleaved loop, so load
// on a shared machine affects both alike.
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// results maps "Benchmark/metric@size" (e.g. "Create/cli-create@10k") to
// the values reported by each run, in ns.
type results map[string][]float64

func parse(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		bench := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndex(bench, "-"); i > 0 {
			bench = bench[:i] // the GOMAXPROCS suffix
		}
		for i := 2; i+1 < len(f); i += 2 {
			unit := f[i+1]
			if !(strings.HasPrefix(unit, "ns/") || strings.HasPrefix(unit, "B/maxrss-")) || !strings.Contains(unit, "@") {
				continue
			}
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			// "B/maxrss-show-id@10k" is kept as "maxrss-show-id@10k".
			key := bench + "/" + strings.TrimPrefix(strings.TrimPrefix(unit, "ns/"), "B/")
			res[key] = append(res[key], v)
		}
	}
	return res, sc.Err()
}

// get is the median of metric ("Create/cli-create") at size ("1k", "10k-loose").
func (r results) get(metric, size string) float64 { return median(r[metric+"@"+size]) }

// ratio is the median over runs of a/b, each run's pair measured in the
// same loop under the same load (so it is steadier than a ratio of medians).
func (r results) ratio(a, b string) float64 {
	as, bs := r[a], r[b]
	if len(as) == 0 || len(as) != len(bs) {
		return median(as) / median(bs)
	}
	q := make([]float64, len(as))
	for i := range as {
		q[i] = as[i] / bs[i]
	}
	return median(q)
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	vs = append([]float64(nil), vs...)
	sort.Float64s(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// A row compares metric with base at each store size measured (1k, 10k,
// and 100k when BENCH_SIZES asks for it); a target is judged at the
// largest size that has both numbers. Kinds:
//
//	cost    ratio = ours / baseline (≤ target passes)
//	speedup ratio = baseline / ours (≥ target passes)
//	scale   ratio = ours at the largest size / ours at 1k (≤ target
//	        passes); the baseline column shows the baseline's own
//	bytes   max resident memory of the process (≤ target bytes passes)
type row struct {
	op, metric, base, baseLabel string
	suffix                      string // "" (packed) or "-loose"; baseSuffix for the baseline
	baseSuffix                  string
	kind                        string
	target                      float64 // 0: no target
	rate                        bool    // show values as ops/s
	// at is the one workload the row is measured at ("16x20"), for a
	// benchmark that runs no store size: such rows make a table of their
	// own.
	at string
}

var rows = []row{
	{op: "CLI create, signed (per op)", metric: "Create/cli-create", base: "Create/plumbing",
		baseLabel: "git plumbing loop", kind: "cost", target: 0.3},
	{op: "CLI create, signed: 10k vs 1k", metric: "Create/cli-create", base: "Create/plumbing",
		baseLabel: "git plumbing loop", kind: "scale", target: 1.2},
	{op: "CLI create, signed, vs durable plumbing", metric: "Create/cli-create", base: "Create/plumbing-fsync",
		baseLabel: "git plumbing loop with core.fsync=committed", kind: "cost"},
	{op: "git plumbing loop with a temporary index", metric: "Create/plumbing-index", base: "Create/plumbing",
		baseLabel: "git plumbing loop (mktree)", kind: "cost"},
	{op: "library create, signed, in-process", metric: "LibCreate/lib-create", base: "LibCreate/plumbing",
		baseLabel: "git plumbing loop", kind: "speedup", rate: true},
	{op: "MCP create, signed, one session (goal ≥ 300/s)", metric: "MCPCreate/mcp-create", base: "MCPCreate/cli-create",
		baseLabel: "CLI create, one process per record", kind: "speedup", rate: true},
	{op: "MCP create, signed, one session, calls one at a time", metric: "MCPCreate/mcp-create-serial", base: "MCPCreate/cli-create",
		baseLabel: "CLI create, one process per record", kind: "speedup", rate: true},
	{op: "CLI import of an N-note vault, per record (goal ≥ 5,000/s)", metric: "Import/import-vault", base: "Import/fast-import",
		baseLabel: "git fast-import of the same files", kind: "speedup", rate: true},
	{op: "CLI show <id> (per op)", metric: "Show/show-id", base: "Show/cat-file",
		baseLabel: "git cat-file -p", kind: "cost"},
	{op: "CLI show <id>: 10k vs 1k", metric: "Show/show-id", base: "Show/cat-file",
		baseLabel: "git cat-file -p", kind: "scale", target: 1.5},
	{op: "CLI show <8-char prefix> (per op)", metric: "Show/show-prefix", base: "Show/cat-file",
		baseLabel: "git cat-file -p", kind: "cost"},
	{op: "CLI show <8-char prefix>: 10k vs 1k", metric: "Show/show-prefix", base: "Show/cat-file",
		baseLabel: "git cat-file -p", kind: "scale", target: 1.5},
	{op: "process-spawn floor: git log -1", metric: "Show/git-log", base: "Show/cat-file",
		baseLabel: "git cat-file -p", kind: "cost"},
	{op: "backlinks, View.Links(hub), warm index", metric: "Backlinks/links", base: "Backlinks/git-grep",
		baseLabel: "git grep -l '[[hub'", kind: "cost"},
	{op: "cold reindex (Store.Reindex, cache deleted)", metric: "Index/reindex-cold", base: "Index/git-read-all",
		baseLabel: "git ls-tree -r | cat-file --batch", kind: "cost"},
	{op: "incremental index update, 1 commit (fresh open + View.Index)", metric: "Index/index-incremental",
		base: "Index/reindex-cold", baseLabel: "cold reindex", kind: "speedup", target: 50},
	{op: "CLI search <word> (per process)", metric: "Search/search", base: "Search/git-grep-c",
		baseLabel: "git grep -c in a checkout", kind: "cost"},
	{op: "CLI search <word>: 10k vs 1k", metric: "Search/search", base: "Search/git-grep-c",
		baseLabel: "git grep -c in a checkout", kind: "scale", target: 1.5},
	{op: "incremental search-index update, 1 commit (fresh open + a search)", metric: "SearchIncremental/search-incremental",
		base: "SearchIncremental/search-current", baseLabel: "the same search, index current", kind: "cost"},
	{op: "CLI continue --owner (60 execution records)", metric: "Continue/continue", base: "Continue/git-ls-tree-cat-file",
		baseLabel: "git ls-tree -r | cat-file --batch of them", kind: "cost"},
	{op: "CLI continue --owner: 10k vs 1k", metric: "Continue/continue", base: "Continue/git-ls-tree-cat-file",
		baseLabel: "git ls-tree -r | cat-file --batch of them", kind: "scale", target: 1.2},
	{op: "verify of 100 commits, in-process (hooks.Verify)", metric: "Verify/verify-100", base: "Verify/git-log-100",
		baseLabel: "git log --format=%G?", kind: "speedup", target: 50},
	{op: "verify of 1,000 commits, in-process (hooks.Verify)", metric: "Verify/verify-1000", base: "Verify/git-log-1000",
		baseLabel: "git log --format=%G?", kind: "speedup", target: 50},
	{op: "CLI verify of 100 commits", metric: "Verify/cli-verify-100", base: "Verify/git-log-100",
		baseLabel: "git log --format=%G?", kind: "speedup"},
	{op: "CLI verify of 1,000 commits", metric: "Verify/cli-verify-1000", base: "Verify/git-log-1000",
		baseLabel: "git log --format=%G?", kind: "speedup", target: 50},
	{op: "sync of 1,000 new remote records (CLI pull: fetch, verify, merge)", metric: "Sync/pull", base: "Sync/git-fetch-merge",
		baseLabel: "git fetch + git merge", kind: "cost", target: 1.0},
	{op: "merge of 100 records both sides retitled (CLI merge)", metric: "Merge/merge-conflicting", base: "Merge/git-merge-theirs",
		baseLabel: "git merge -X theirs", kind: "cost", target: 1.5},
	{op: "16 writer clones × 20 records, sync after every create, server hooks: aggregate records/s (0 lost, 0 gave up, 0 merges, verify passes, or the benchmark fails)",
		metric: "ManyWriters/records-sync", base: "ManyWriters/git-pull-rebase", at: "16x20",
		baseLabel: "git: signed commit per file, pull --rebase + push until accepted", kind: "speedup", target: 2, rate: true},
	// Loose objects (as written, before any gc) against the packed store.
	{op: "CLI show <id>, loose objects", metric: "Show/show-id", suffix: "-loose", base: "Show/show-id",
		baseLabel: "same, packed", kind: "cost"},
	{op: "CLI show <8-char prefix>, loose objects", metric: "Show/show-prefix", suffix: "-loose", base: "Show/show-prefix",
		baseLabel: "same, packed", kind: "cost"},
	{op: "git cat-file -p, loose objects", metric: "Show/cat-file", suffix: "-loose", base: "Show/cat-file",
		baseLabel: "same, packed", kind: "cost"},
	{op: "cold reindex, loose objects", metric: "Index/reindex-cold", suffix: "-loose", base: "Index/reindex-cold",
		baseLabel: "same, packed", kind: "cost"},
	{op: "incremental index update, loose objects", metric: "Index/index-incremental", suffix: "-loose",
		base: "Index/index-incremental", baseLabel: "same, packed", kind: "cost"},
	// Reads in one process each, and their memory. The show and --version
	// targets sit at the floor of a Go process here (a hello world takes
	// about 1.5x git --version): they are the last measured ratios plus 10%,
	// so they catch regressions (docs/performance.md, Method).
	{op: "CLI show <id>", metric: "PointReads/show-id", base: "PointReads/cat-file",
		baseLabel: "git cat-file -p", kind: "cost", target: 2.75},
	{op: "CLI show <alias>", metric: "PointReads/show-alias", base: "PointReads/cat-file",
		baseLabel: "git cat-file -p", kind: "cost", target: 2.85},
	{op: "CLI show <8-char prefix>", metric: "PointReads/show-prefix", base: "PointReads/cat-file",
		baseLabel: "git cat-file -p", kind: "cost", target: 3.15},
	{op: "CLI links <hub> (every 10th record links it)", metric: "PointReads/links-hub", base: "PointReads/cat-file",
		baseLabel: "git cat-file -p", kind: "cost", target: 3},
	{op: "CLI links <hub>: 10k vs 1k", metric: "PointReads/links-hub", base: "PointReads/cat-file",
		baseLabel: "git cat-file -p", kind: "scale", target: 1.2},
	{op: "CLI links <record> (a few links)", metric: "PointReads/links-leaf", base: "PointReads/cat-file",
		baseLabel: "git cat-file -p", kind: "cost", target: 3},
	{op: "CLI links <record>: 10k vs 1k", metric: "PointReads/links-leaf", base: "PointReads/cat-file",
		baseLabel: "git cat-file -p", kind: "scale", target: 1.2},
	{op: "CLI list --category (0.6% of records)", metric: "ListCategory/list-category", base: "ListCategory/cat-file-batch",
		baseLabel: "git cat-file --batch of those blobs", kind: "cost", target: 2},
	{op: "CLI list --json --category (0.6%)", metric: "ListCategory/list-category-json", base: "ListCategory/cat-file-batch",
		baseLabel: "git cat-file --batch of those blobs", kind: "cost", target: 2},
	{op: "first show <prefix> after a commit written elsewhere", metric: "AfterWrite/show-prefix-behind", base: "AfterWrite/show-prefix-current",
		baseLabel: "same, index current", kind: "cost", target: 1.5},
	{op: "incremental index update: 10k vs 1k", metric: "Index/index-incremental", base: "Index/git-read-all",
		baseLabel: "git ls-tree -r | cat-file --batch", kind: "scale", target: 1.2},
	{op: "CLI reindex, cold", metric: "FullRead/reindex-cli", base: "FullRead/git-read-all",
		baseLabel: "git ls-tree -r | cat-file --batch", kind: "cost", target: 2},
	{op: "CLI list --json, every record", metric: "FullRead/list-json", base: "FullRead/git-read-all",
		baseLabel: "git ls-tree -r | cat-file --batch", kind: "cost", target: 2},
	{op: "git-records --version", metric: "PointReads/version", base: "PointReads/git-version",
		baseLabel: "git --version", kind: "cost", target: 3.45},
	{op: "Go hello world (the floor of any Go process)", metric: "PointReads/go-hello", base: "PointReads/git-version",
		baseLabel: "git --version", kind: "cost"},
	// A store new to this machine, or written to for a long time.
	{op: "CLI reindex of graph and search, every index file deleted", metric: "Fresh/reindex-all", base: "Fresh/git-read-all",
		baseLabel: "git ls-tree -r | cat-file --batch", kind: "cost", target: 2},
	{op: "first CLI search after reindex", metric: "Fresh/search-after-reindex", base: "Fresh/search-current",
		baseLabel: "same, index current", kind: "cost", target: 1.2},
	{op: "first CLI search in a new clone (no index file)", metric: "Fresh/search-cold", base: "Fresh/git-read-all",
		baseLabel: "git ls-tree -r | cat-file --batch", kind: "cost", target: 2},
	{op: "MCP session start (exec to the answer of a show)", metric: "MCPStart/mcp-start", base: "MCPStart/show-process",
		baseLabel: "CLI show, one process", kind: "cost"},
	{op: "MCP session start: 10k vs 1k", metric: "MCPStart/mcp-start", base: "MCPStart/show-process",
		baseLabel: "CLI show, one process", kind: "scale", target: 1.2},
	{op: "MCP create, calls one at a time: the last 200 of N writes vs writes 10-209", metric: "MCPWrites/mcp-write-last",
		base: "MCPWrites/mcp-write-first", baseLabel: "writes 10-209 of the same session", kind: "cost", target: 1.2},
	{op: "max RSS: show <alias>", metric: "PointReads/maxrss-show-alias", kind: "bytes", target: 48 << 20},
	{op: "max RSS: links <hub>", metric: "PointReads/maxrss-links-hub", kind: "bytes", target: 48 << 20},
	{op: "max RSS: list --category", metric: "ListCategory/maxrss-list-category", kind: "bytes", target: 48 << 20},
	{op: "max RSS: list --json, every record", metric: "FullRead/maxrss-list-json", kind: "bytes", target: 256 << 20},
	{op: "max RSS: reindex, cold", metric: "FullRead/maxrss-reindex-cli", kind: "bytes", target: 256 << 20},
	{op: "max RSS: reindex of graph and search, every index file deleted", metric: "Fresh/maxrss-reindex-all", kind: "bytes", target: 256 << 20},
	{op: "max RSS: first search in a new clone", metric: "Fresh/maxrss-search-cold", kind: "bytes", target: 256 << 20},
	{op: "max RSS: first search after reindex", metric: "Fresh/maxrss-search-after-reindex", kind: "bytes", target: 48 << 20},
	{op: "max RSS: MCP session start", metric: "MCPStart/maxrss-mcp-start", kind: "bytes", target: 48 << 20},
	{op: "max RSS: MCP server over N sequential creates", metric: "MCPWrites/maxrss-mcp-writes", kind: "bytes", target: 256 << 20},
	{op: "max RSS: CLI import of an N-note vault", metric: "Import/maxrss-import-vault", kind: "bytes", target: 256 << 20},
	{op: "max RSS: git fast-import of the same files", metric: "Import/maxrss-fast-import", kind: "bytes"},
}

// sizeLabels are the store sizes a table may hold, smallest first.
var sizeLabels = []string{"1k", "10k", "100k"}

// sizesIn lists the sizes the results have numbers for.
func sizesIn(res results) []string {
	var out []string
	for _, sz := range sizeLabels {
		for k := range res {
			if strings.HasSuffix(k, "@"+sz) || strings.HasSuffix(k, "@"+sz+"-loose") {
				out = append(out, sz)
				break
			}
		}
	}
	return out
}

func main() {
	res, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if len(res) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no benchmark metrics on stdin")
		os.Exit(1)
	}
	failed := 0
	if sizes := sizesIn(res); len(sizes) > 0 {
		all := strings.Join(sizes, " / ")
		fmt.Printf("| operation | %s | baseline (%s) | ratio (%s) | target | pass |\n", strings.Join(sizes, " | "), all, all)
		fmt.Printf("|---|%s---|---|---|---|\n", strings.Repeat("---|", len(sizes)))
		for _, r := range rows {
			if r.at != "" {
				continue
			}
			line, ok := r.render(res, sizes)
			if !ok {
				failed++
			}
			fmt.Println(line)
		}
	}
	// Rows of one workload each (no store size) make a table of their own.
	header := false
	for _, r := range rows {
		if r.at == "" || len(res[r.metric+"@"+r.at]) == 0 {
			continue
		}
		if !header {
			fmt.Printf("\n| workload | git-records | baseline | ratio | target | pass |\n|---|---|---|---|---|---|\n")
			header = true
		}
		line, ok := r.render(res, []string{r.at})
		if !ok {
			failed++
		}
		fmt.Println(line)
	}
	if failed > 0 {
		fmt.Printf("\n%d target(s) failed.\n", failed)
	}
}

func (r row) render(res results, sizes []string) (string, bool) {
	show := func(ns float64) string {
		switch {
		case r.rate:
			return rate(ns)
		case r.kind == "bytes":
			return mib(ns)
		}
		return duration(ns)
	}
	var values, bases, ratios []string
	judged, judgedAt := math.NaN(), ""
	for _, sz := range sizes {
		m, n := r.metric+"@"+sz+r.suffix, r.base+"@"+sz+r.baseSuffix
		values = append(values, show(res.get(r.metric, sz+r.suffix)))
		bases = append(bases, show(res.get(r.base, sz+r.baseSuffix)))
		q := res.ratio(m, n)
		if r.kind == "speedup" {
			q = res.ratio(n, m)
		}
		if r.kind == "bytes" {
			q = res.get(r.metric, sz+r.suffix)
		}
		ratios = append(ratios, times(q))
		if !math.IsNaN(q) && !math.IsInf(q, 0) {
			judged, judgedAt = q, sz
		}
	}
	op := r.op
	var baseline, ratio, target string
	switch r.kind {
	case "cost":
		baseline = r.baseLabel + ": " + strings.Join(bases, " / ")
		ratio = strings.Join(ratios, " / ")
		if r.target > 0 {
			target = "≤ " + times(r.target) + " baseline at " + judgedAt
		}
	case "speedup":
		baseline = r.baseLabel + ": " + strings.Join(bases, " / ")
		ratio = strings.Join(ratios, " / ") + " (speed-up)"
		if r.target > 0 {
			target = "≥ " + times(r.target) + " speed-up at " + judgedAt
		}
	case "scale":
		// The largest size run against the smallest: a run of 10k and
		// 100k alone (BENCH_SIZES=10000,100000) still has a ratio.
		largest, smallest := sizes[len(sizes)-1], sizes[0]
		op = strings.Replace(op, "10k vs 1k", largest+" vs "+smallest, 1)
		baseline = fmt.Sprintf("%s %s/%s: %s", r.baseLabel, largest, smallest, times(res.ratio(r.base+"@"+largest+r.baseSuffix, r.base+"@"+smallest+r.baseSuffix)))
		judged = math.NaN()
		if largest != smallest {
			judged = res.ratio(r.metric+"@"+largest+r.suffix, r.metric+"@"+smallest+r.suffix)
		}
		ratio = largest + "/" + smallest + ": " + times(judged)
		target = "≤ " + times(r.target)
	case "bytes":
		ratio = ""
		baseline = ""
		judged = res.get(r.metric, sizes[len(sizes)-1]+r.suffix)
		if r.target > 0 {
			target = "≤ " + mib(r.target)
		}
	}
	pass, ok := "", true
	if r.target > 0 {
		switch {
		case math.IsNaN(judged):
			pass = "n/a"
		case (r.kind == "speedup") == (judged >= r.target):
			pass = "pass"
		default:
			pass, ok = "**FAIL**", false
		}
	}
	cells := append(append([]string{op}, values...), baseline, ratio, target, pass)
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return "| " + strings.Join(cells, " | ") + " |", ok
}

func duration(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "–"
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func mib(b float64) string {
	if math.IsNaN(b) {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", b/(1<<20))
}

func rate(ns float64) string {
	if math.IsNaN(ns) {
		return "–"
	}
	if r := 1e9 / ns; r < 10 {
		return fmt.Sprintf("%.1f ops/s", r)
	}
	return fmt.Sprintf("%.0f ops/s", 1e9/ns)
}

func times(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "–"
	case x >= 10:
		return fmt.Sprintf("%.0f×", x)
	case x >= 0.1:
		return fmt.Sprintf("%.2f×", x)
	}
	return fmt.Sprintf("%.2g×", x)
}
