package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-records/git-records/kernel"
)

// The benchmarks of this file are the read rows of issue 10's table: each
// CLI op is one process, next to git doing the same read in the same loop,
// and each also reports the largest resident set its process reached
// ("B/maxrss-<op>@<size>", from getrusage of the child).

// rssMeter keeps the largest max RSS seen per op.
type rssMeter struct {
	mu  sync.Mutex
	max map[string]int64
}

func newRSSMeter() *rssMeter { return &rssMeter{max: map[string]int64{}} }

func (m *rssMeter) report(b *testing.B) {
	for name, v := range m.max {
		b.ReportMetric(float64(v), "B/maxrss-"+name)
	}
}

// cli is an op that runs git-records (or git, for a baseline) in f's store;
// stdout is discarded. The timed run is a plain exec, the same for git
// and for us (see quiet). The first iteration then runs the program once
// more, untimed, under GNU time for its max RSS: a child started straight
// from this (large) test process would report the test's own high-water
// mark, which Linux carries across the vfork and exec that os/exec uses,
// and timing the wrapper would charge each op a second process that a
// baseline run with quiet does not pay.
func (m *rssMeter) cli(b *testing.B, name string, f *fixture, prog string, args ...string) op {
	return m.cliAfter(b, name, f, nil, prog, args...)
}

// cliAfter is cli with a step run before each run of the program, untimed
// (deleting the index for a cold reindex, say), so that the RSS run sees
// the same state as the timed one.
func (m *rssMeter) cliAfter(b *testing.B, name string, f *fixture, before func(), prog string, args ...string) op {
	return op{name + f.label, func(i int) time.Duration {
		if before != nil {
			before()
		}
		d := timed(func() { quiet(b, f.dir, prog, args...) })
		if i == 0 {
			if before != nil {
				before()
			}
			m.measure(b, name+f.label, f.dir, prog, args...)
		}
		return d
	}}
}

// quiet runs prog in dir with stdout discarded, as every timed
// process-per-op row does: the same exec path for git and for us.
func quiet(b *testing.B, dir, prog string, args ...string) {
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v: %s", prog, strings.Join(args, " "), err, errb.String())
	}
}

// measure runs prog once under GNU time and keeps its max RSS as key's.
func (m *rssMeter) measure(b *testing.B, key, dir, prog string, args ...string) {
	m.measureInput(b, key, dir, nil, prog, args...)
}

// measureInput is measure with stdin given (nil: none).
func (m *rssMeter) measureInput(b *testing.B, key, dir string, stdin []byte, prog string, args ...string) {
	out := filepath.Join(b.TempDir(), "rss")
	mustRun(b, dir, stdin, nil, "/usr/bin/time", append([]string{"-f", "%M", "-o", out, prog}, args...)...)
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	var kib int64
	if _, err := fmt.Sscan(strings.TrimSpace(string(data)), &kib); err != nil {
		b.Fatalf("max RSS of %s: %q: %v", key, data, err)
	}
	m.mu.Lock()
	m.max[key] = max(m.max[key], kib*1024)
	m.mu.Unlock()
}

// sh is an op that runs a shell pipeline of git in f's store.
func sh(b *testing.B, name string, f *fixture, script string) op {
	return op{name + f.label, func(int) time.Duration {
		return timed(func() { mustRun(b, f.dir, nil, nil, "sh", "-c", script) })
	}}
}

// seededAlias is the alias seedInput gives record i (every 50th, from 7).
func seededAlias(i int) string { return fmt.Sprintf("bench/topic-%d", i) }

// seededCategory is the category of record i: 161 categories, so each
// holds about 0.6% of the records.
func seededCategory(i int) string { return fmt.Sprintf("bench.area%d.topic%d", i%7, i%23) }

// BenchmarkPointReads: one process per read, on the packed store.
//
//   - show-id, show-alias, show-prefix: `git records show` by each handle
//   - links-hub: `links hub` (backlinks from every tenth record)
//   - links-leaf: `links` of a generated record (a few links each way)
//   - cat-file: `git cat-file -p <ref>:<path>` of the same record
//   - version, git-version: `git-records --version` and `git --version`
//   - go-hello: a Go program that prints one line (bench/cmd/hello), the
//     floor under every per-process row
func BenchmarkPointReads(b *testing.B) {
	bin := bin(b)
	m := newRSSMeter()
	var ops []op
	for k, f := range stores(b, "packed") {
		recs := f.Records
		pick := func(i int) rec { return recs[1+(i*7919)%(len(recs)-1)] }
		aliased := func(i int) int { return 7 + 50*((i*31)%(len(recs)/50)) }
		ops = append(ops,
			op{"show-id" + f.label, func(i int) time.Duration { return m.cli(b, "show-id", f, bin, "show", pick(i).ID).run(i) }},
			op{"show-alias" + f.label, func(i int) time.Duration {
				return m.cli(b, "show-alias", f, bin, "show", seededAlias(aliased(i))).run(i)
			}},
			op{"show-prefix" + f.label, func(i int) time.Duration {
				return m.cli(b, "show-prefix", f, bin, "show", pick(i).ID[:kernel.MinIDPrefix]).run(i)
			}},
			m.cli(b, "links-hub", f, bin, "links", hubID),
			op{"links-leaf" + f.label, func(i int) time.Duration { return m.cli(b, "links-leaf", f, bin, "links", pick(i).ID).run(i) }},
			op{"cat-file" + f.label, func(i int) time.Duration {
				return timed(func() { quiet(b, f.dir, "git", "cat-file", "-p", "refs/heads/records:"+pick(i).path()) })
			}},
		)
		if k == 0 {
			ops = append(ops, m.cli(b, "version", f, bin, "--version"), m.cli(b, "git-version", f, "git", "--version"),
				m.cli(b, "go-hello", f, goHello(b)))
		}
	}
	b.ResetTimer()
	interleave(b, ops...)
	m.report(b)
}

// BenchmarkListCategory: `list --category C` (text and --json) of one
// seeded category (0.6% of the records) against `git cat-file --batch`
// reading exactly those blobs.
func BenchmarkListCategory(b *testing.B) {
	bin := bin(b)
	m := newRSSMeter()
	var ops []op
	for _, f := range stores(b, "packed") {
		var specs strings.Builder
		for i, r := range f.Records {
			if seededCategory(i) == seededCategory(0) {
				specs.WriteString("refs/heads/records:" + r.path() + "\n")
			}
		}
		list := filepath.Join(b.TempDir(), "blobs")
		if err := os.WriteFile(list, []byte(specs.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		ops = append(ops,
			m.cli(b, "list-category", f, bin, "list", "--category", seededCategory(0)),
			m.cli(b, "list-category-json", f, bin, "list", "--json", "--category", seededCategory(0)),
			sh(b, "cat-file-batch", f, "git cat-file --batch <"+list+" >/dev/null"),
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
	m.report(b)
}

// BenchmarkFullRead: every record, one process each.
//
//   - list-json: `list --json --include-retired` (streamed)
//   - reindex-cli: `git records reindex` with the index files deleted
//   - git-read-all: `git ls-tree -r` piped into `git cat-file --batch`
func BenchmarkFullRead(b *testing.B) {
	bin := bin(b)
	m := newRSSMeter()
	var ops []op
	for _, f := range stores(b, "packed") {
		cold := func() {
			for _, p := range f.indexFiles() {
				os.Remove(p)
			}
		}
		ops = append(ops,
			m.cli(b, "list-json", f, bin, "list", "--json", "--include-retired"),
			m.cliAfter(b, "reindex-cli", f, cold, bin, "reindex"),
			sh(b, "git-read-all", f, "git ls-tree -r --format='%(objectname)' refs/heads/records records/ | git cat-file --batch >/dev/null"),
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
	m.report(b)
}

// BenchmarkAfterWrite: the first command after a commit written elsewhere
// (the index one commit behind: it catches up by the tree diff and saves
// its delta) against the same command with a current index.
func BenchmarkAfterWrite(b *testing.B) {
	bin := bin(b)
	m := newRSSMeter()
	var ops []op
	for _, f := range stores(b, "packed") {
		s := openStore(b, f)
		in := kernel.CreateInput{Type: "concept", Category: "bench.incr", Title: "Written elsewhere",
			Body: cliBody(0), Provenance: kernel.Provenance{Agent: "bench"}}
		if _, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }); err != nil {
			b.Fatal(err)
		}
		closeStore(s)
		prefix := f.Records[1].ID[:kernel.MinIDPrefix]
		behind := func() {
			// The seeded base, one commit behind, with the delta the last
			// catch-up saved removed: the base is not rewritten (and so not
			// re-read into the page cache) unless a command replaced it.
			if err := f.resetDelta(); err != nil {
				b.Fatal(err)
			}
		}
		current := func() {
			quiet(b, f.dir, bin, "show", prefix) // whatever ran before, the index is current now
		}
		ops = append(ops,
			m.cliAfter(b, "show-prefix-behind", f, behind, bin, "show", prefix),
			m.cliAfter(b, "show-prefix-current", f, current, bin, "show", prefix),
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
	m.report(b)
}
