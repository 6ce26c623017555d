package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkImport: `git records import` of a generated vault of N notes
// (N = each of BENCH_SIZES: nested folders, YAML front matter with tags
// and aliases, [[Name]], [[Name|label]] and [[Name#heading]] links) into a
// new store, one signed commit, against `git fast-import` writing the same
// files as one commit into a new repository. Each iteration starts both
// from a fresh repository (not timed). Metrics are per record, so the
// table shows records/s (goal ≥ 5,000/s). Both also report the largest
// resident set their process reached ("B/maxrss-import-vault@<size>",
// "B/maxrss-fast-import@<size>"): an import streams its notes, so its
// memory stays flat as the vault grows (goal ≤ 256 MiB at 100k).
func BenchmarkImport(b *testing.B) {
	bin := bin(b)
	m := newRSSMeter()
	var ops []op
	for _, n := range sizes() {
		label := "@" + sizeLabel(n)
		vault := filepath.Join(b.TempDir(), "vault")
		stream := writeVault(b, vault, n)
		fresh := func(i int, records bool) string {
			dir := filepath.Join(b.TempDir(), fmt.Sprintf("repo-%d", i))
			for _, args := range [][]string{{"init", "-q", "-b", "main", dir}, {"-C", dir, "config", "user.name", "Bench"},
				{"-C", dir, "config", "user.email", "bench@example.com"}, {"-C", dir, "config", "gc.auto", "0"}} {
				mustRun(b, "", nil, nil, "git", args...)
			}
			if records {
				mustRun(b, dir, nil, nil, bin, "init", "--generate-key")
			}
			return dir
		}
		ops = append(ops,
			op{"import-vault" + label, func(i int) time.Duration {
				dir := fresh(i, true)
				// Timed under GNU time, as fast-import is: the wrapper costs
				// milliseconds against seconds, and a second untimed run
				// of each would double the bench's longest rows.
				d := timed(func() { m.measure(b, "import-vault"+label, dir, bin, "import", vault, "--agent", "bench") })
				if got := strings.TrimSpace(mustRun(b, dir, nil, nil, "git", "log", "-1", "--format=%(trailers:key=Evidence-Count,valueonly)", "refs/heads/records")); got != fmt.Sprint(n) {
					b.Fatalf("the import created %s records, want %d", got, n)
				}
				os.RemoveAll(dir)
				return d / time.Duration(n)
			}},
			op{"fast-import" + label, func(i int) time.Duration {
				dir := fresh(i, false)
				d := timed(func() { m.measureInput(b, "fast-import"+label, dir, stream, "git", "fast-import", "--quiet") })
				os.RemoveAll(dir)
				return d / time.Duration(n)
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
	m.report(b)
}

// writeVault writes n notes under dir and returns the fast-import stream
// that commits the same files to refs/heads/records.
func writeVault(b *testing.B, dir string, n int) []byte {
	b.Helper()
	var stream bytes.Buffer
	name := func(i int) string { return fmt.Sprintf("Note %d about topic %d", i, i%97) }
	var files []string
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("Area %d/Project %d/%s.md", i%10, i%100, name(i))
		body := fmt.Sprintf("---\ntags: [bench, topic-%d]\naliases: [N%d]\n---\n\n# %s\n\n## Details\n\nSee [[%s]], [[%s|the earlier one]] and [[%s#Details]].\n%s\n",
			i%97, i, name(i), name((i+1)%n), name((i+7)%n), name((i*31)%n), words(rng, 40))
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&stream, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(body), body)
		files = append(files, rel)
	}
	msg := fmt.Sprintf("import %d notes", n)
	fmt.Fprintf(&stream, "commit refs/heads/records\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata %d\n%s\n", len(msg), msg)
	for i, f := range files {
		fmt.Fprintf(&stream, "M 100644 :%d \"%s\"\n", i+1, f)
	}
	stream.WriteString("\n")
	return stream.Bytes()
}
