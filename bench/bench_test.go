package bench

// The machine is shared and noisy, so every operation, its git CLI
// baseline and its runs at each store size are measured in the same loop,
// interleaved (one of each per iteration, the order rotating), and each
// reports its own mean as a metric "ns/<operation>@<size>[-loose]", e.g.
// "ns/cli-create@10k"; bench/cmd/benchtable reads those. ns/op is only
// their sum.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// stores returns the seeded store of every size in the given layout, each
// reset to its seeded state.
func stores(b *testing.B, layout string) []*fixture {
	var out []*fixture
	for _, n := range sizes() {
		out = append(out, store(b, n, layout))
	}
	b.ResetTimer()
	return out
}

// op is one measured operation: run does iteration i and returns the time
// of its measured part (setup it needs, such as reading the tip, is not).
type op struct {
	name string
	run  func(i int) time.Duration
}

// interleave runs every op once per iteration, rotating which goes first,
// and reports each op's mean time as "ns/<name>".
func interleave(b *testing.B, ops ...op) {
	total := make([]time.Duration, len(ops))
	for i := 0; i < b.N; i++ {
		for k := range ops {
			j := (i + k) % len(ops)
			total[j] += ops[j].run(i)
		}
	}
	for j, o := range ops {
		b.ReportMetric(float64(total[j].Nanoseconds())/float64(b.N), "ns/"+o.name)
	}
}

func timed(fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}

func cliBody(i int) string {
	return fmt.Sprintf("Benchmark note %d: refresh tokens rotate on every use. See [[%s]].\n", i, hubID)
}

func tipOf(b *testing.B, f *fixture) string {
	return mustRun(b, f.dir, nil, nil, "git", "rev-parse", "refs/heads/records")
}

// BenchmarkCreate: one signed record commit per op.
//
//   - cli-create: `git records create` (one process; key from init --generate-key)
//   - plumbing: per record `git hash-object -w --stdin`, each tree on the
//     path (records/<type>/<xx>, records/<type>, records, root) rebuilt with
//     `git ls-tree` + `git mktree`, `git commit-tree -S`, `git update-ref
//     <ref> <new> <old>`
//   - plumbing-fsync: the same loop with core.fsync=committed, so that git
//     too makes objects and ref durable as git-records does (git's default
//     fsyncs neither loose objects nor refs)
//   - plumbing-index: the same with a temporary index: `read-tree <tip>`,
//     `update-index --add --cacheinfo`, `write-tree`
func BenchmarkCreate(b *testing.B) {
	bin := bin(b)
	index := []string{"GIT_INDEX_FILE=" + filepath.Join(b.TempDir(), "index")}
	var ops []op
	for _, f := range stores(b, "packed") {
		ops = append(ops,
			op{"cli-create" + f.label, func(i int) time.Duration {
				return timed(func() {
					mustRun(b, f.dir, nil, nil, bin, "create", "--type", "concept", "--category", "bench.cli",
						"--title", fmt.Sprintf("CLI record %d", i), "--agent", "bench", "--body", cliBody(i))
				})
			}},
			op{"plumbing" + f.label, func(i int) time.Duration {
				r, data, msg := plumbingRecord(b, i)
				tip := tipOf(b, f)
				return timed(func() { plumbingMktree(b, f, tip, r, data, msg) })
			}},
			op{"plumbing-fsync" + f.label, func(i int) time.Duration {
				r, data, msg := plumbingRecord(b, i)
				tip := tipOf(b, f)
				return timed(func() { plumbingMktree(b, f, tip, r, data, msg, durable...) })
			}},
			op{"plumbing-index" + f.label, func(i int) time.Duration {
				r, data, msg := plumbingRecord(b, i)
				tip := tipOf(b, f)
				return timed(func() {
					blob := mustRun(b, f.dir, data, nil, "git", "hash-object", "-w", "--stdin")
					mustRun(b, f.dir, nil, index, "git", "read-tree", tip)
					mustRun(b, f.dir, nil, index, "git", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+r.path())
					tree := mustRun(b, f.dir, nil, index, "git", "write-tree")
					commitAndMove(b, f, tip, tree, msg)
				})
			}},
		)
	}
	interleave(b, ops...)
}

// plumbingRecord is the file a plumbing loop writes for record i: the
// bytes git-records would write for it, and its commit message.
func plumbingRecord(b *testing.B, i int) (rec, []byte, string) {
	b.Helper()
	now := kernel.At(time.Now())
	id := kernel.NewID()
	def, _ := kernel.LookupType("concept")
	r := &kernel.Record{ID: id, Type: "concept", Title: fmt.Sprintf("Plumbing record %d", i), Body: cliBody(i),
		Category: "bench.cli", Status: kernel.StatusActive, Kind: def.Kind, Role: def.Role, Authority: def.Authority,
		Provenance: kernel.Provenance{Agent: "bench"}, CreatedAt: now, UpdatedAt: now,
		MutationLog: []kernel.MutationEntry{{Op: string(kernel.OpCreate), At: now, Agent: "bench"}}}
	data, err := gitstore.EncodeRecord(r)
	if err != nil {
		b.Fatal(err)
	}
	msg := fmt.Sprintf("create(concept): %s\n\nRecord-Op: create\nRecord-Id: %s\nRecord-Agent: bench\nRecord-Format: %s\n",
		r.Title, id, kernel.FormatVersion)
	return rec{ID: id, Type: "concept"}, data, msg
}

// durable makes every git command of a plumbing loop fsync what it writes
// (objects and refs), as git-records does.
var durable = []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.fsync", "GIT_CONFIG_VALUE_0=committed",
	"GIT_CONFIG_KEY_1=core.fsyncMethod", "GIT_CONFIG_VALUE_1=fsync"}

// plumbingMktree writes the blob, rebuilds the trees from the leaf up (each
// replaces one entry of its parent), then commits and moves the ref; env is
// added to every git command's environment.
func plumbingMktree(b *testing.B, f *fixture, tip string, r rec, data []byte, msg string, env ...string) {
	blob := mustRun(b, f.dir, data, env, "git", "hash-object", "-w", "--stdin")
	parts := strings.Split(r.path(), "/") // records, <type>, <xx>, <id>.md
	entry := "100644 blob " + blob + "\t" + parts[len(parts)-1]
	for depth := len(parts) - 1; depth >= 0; depth-- {
		listing, err := run(f.dir, nil, env, "git", "ls-tree", tip+":"+strings.Join(parts[:depth], "/"))
		if err != nil {
			listing = "" // a directory the branch does not have yet
		}
		var lines []string
		for _, l := range strings.Split(listing, "\n") {
			if l != "" && !strings.HasSuffix(l, "\t"+parts[depth]) {
				lines = append(lines, l)
			}
		}
		tree := mustRun(b, f.dir, []byte(strings.Join(append(lines, entry), "\n")+"\n"), env, "git", "mktree")
		if depth == 0 {
			commitAndMove(b, f, tip, tree, msg, env...)
			return
		}
		entry = "040000 tree " + tree + "\t" + parts[depth-1]
	}
}

// commitAndMove signs a commit with the store's own ssh key, as
// `commit -S` would with gpg.format=ssh and user.signingkey, and moves the
// branch to it by compare-and-swap.
func commitAndMove(b *testing.B, f *fixture, tip, tree, msg string, env ...string) {
	commit := mustRun(b, f.dir, []byte(msg), env, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+f.key,
		"commit-tree", "-S", "-p", tip, tree)
	mustRun(b, f.dir, nil, env, "git", "update-ref", "refs/heads/records", commit, tip)
}

// BenchmarkLibCreate: Store.Mutate with kernel.Create in one long-lived
// process, signed, one commit per record, ten back to back per iteration;
// one plumbing-loop record per iteration is the baseline.
func BenchmarkLibCreate(b *testing.B) {
	const burst = 10
	var ops []op
	for _, f := range stores(b, "packed") {
		s := openStore(b, f)
		defer closeStore(s)
		warmIndex(b, s)
		ops = append(ops,
			op{"lib-create" + f.label, func(i int) time.Duration {
				return timed(func() {
					for k := 0; k < burst; k++ {
						in := kernel.CreateInput{Type: "concept", Category: "bench.lib", Title: fmt.Sprintf("Library record %d.%d", i, k),
							Body: cliBody(i), Provenance: kernel.Provenance{Agent: "bench"}}
						if _, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
							return kernel.Create(v, in, env)
						}); err != nil {
							b.Fatal(err)
						}
					}
				}) / burst
			}},
			op{"plumbing" + f.label, func(i int) time.Duration {
				r, data, msg := plumbingRecord(b, i)
				tip := tipOf(b, f)
				return timed(func() { plumbingMktree(b, f, tip, r, data, msg) })
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}

// BenchmarkShow: `git records show <id>` and `show <8-character prefix>`,
// against `git cat-file -p <ref>:<path>` and the process floor
// `git log -1`, on packed stores (as after a clone) and loose ones (as
// written, before any gc).
func BenchmarkShow(b *testing.B) {
	bin := bin(b)
	var ops []op
	for _, f := range append(stores(b, "packed"), stores(b, "loose")...) {
		recs := f.generated()
		pick := func(i int) rec { return recs[(i*7919)%len(recs)] }
		ops = append(ops,
			op{"show-id" + f.label, func(i int) time.Duration {
				return timed(func() { mustRun(b, f.dir, nil, nil, bin, "show", pick(i).ID) })
			}},
			op{"show-prefix" + f.label, func(i int) time.Duration {
				return timed(func() { mustRun(b, f.dir, nil, nil, bin, "show", pick(i).ID[:kernel.MinIDPrefix]) })
			}},
			op{"cat-file" + f.label, func(i int) time.Duration {
				return timed(func() { mustRun(b, f.dir, nil, nil, "git", "cat-file", "-p", "refs/heads/records:"+pick(i).path()) })
			}},
			op{"git-log" + f.label, func(i int) time.Duration {
				return timed(func() { mustRun(b, f.dir, nil, nil, "git", "log", "-1", "refs/heads/records") })
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}

func openStore(b *testing.B, f *fixture) *gitstore.Store {
	b.Helper()
	s, err := gitstore.Open(f.dir, gitstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func warmIndex(b *testing.B, s *gitstore.Store) *gitstore.Index {
	b.Helper()
	v, err := s.View()
	if err != nil {
		b.Fatal(err)
	}
	ix, err := v.Index()
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

// BenchmarkBacklinks: View.Links on the hub (linked from every tenth
// record), index warm, a fresh view per lookup as a long-lived process
// takes one per request; the baseline finds the same backlinks the way one
// would without the index, `git grep -l '[[hub' <ref> -- records/`.
func BenchmarkBacklinks(b *testing.B) {
	var ops []op
	for _, f := range stores(b, "packed") {
		s := openStore(b, f)
		defer closeStore(s)
		if v, err := s.View(); err != nil {
			b.Fatal(err)
		} else if _, err := v.Links(hubID); err != nil { // warm: index loaded, reverse map built
			b.Fatal(err)
		}
		ops = append(ops,
			op{"links" + f.label, func(i int) time.Duration {
				var n int
				d := timed(func() {
					v, err := s.View()
					if err != nil {
						b.Fatal(err)
					}
					l, err := v.Links(hubID)
					if err != nil {
						b.Fatal(err)
					}
					n = len(l.Reverse)
				})
				if n < f.N/10 {
					b.Fatalf("hub has %d backlinks, want ≥ %d", n, f.N/10)
				}
				return d
			}},
			op{"git-grep" + f.label, func(i int) time.Duration {
				return timed(func() {
					mustRun(b, f.dir, nil, nil, "git", "grep", "-l", "-F", "[["+hubID, "refs/heads/records", "--", "records/")
				})
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}

// BenchmarkIndex: the branch is one commit ahead of the index cache.
//
//   - reindex-cold: Store.Reindex on a freshly opened store, cache deleted
//   - index-incremental: open the store fresh with the cache one commit
//     behind and time View.Index() (mean of several)
//   - git-read-all: `git ls-tree -r` piped into `git cat-file --batch`, git
//     reading every record file: the floor of any full rebuild
func BenchmarkIndex(b *testing.B) {
	const incrementals = 5
	var ops []op
	for _, f := range append(stores(b, "packed"), stores(b, "loose")...) {
		s := openStore(b, f)
		in := kernel.CreateInput{Type: "concept", Category: "bench.incr", Title: "One more record",
			Body: cliBody(0), Provenance: kernel.Provenance{Agent: "bench"}}
		w, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) })
		if err != nil {
			b.Fatal(err)
		}
		closeStore(s)
		ops = append(ops,
			op{"reindex-cold" + f.label, func(i int) time.Duration {
				for _, p := range f.indexFiles() {
					os.Remove(p)
				}
				var res *gitstore.ReindexResult
				d := timed(func() {
					s := openStore(b, f)
					defer closeStore(s)
					var err error
					if res, err = s.Reindex(""); err != nil {
						b.Fatal(err)
					}
				})
				if res.Records != f.N+1 {
					b.Fatalf("reindex found %d records, want %d", res.Records, f.N+1)
				}
				return d
			}},
			op{"index-incremental" + f.label, func(i int) time.Duration {
				var sum time.Duration
				for k := 0; k < incrementals; k++ {
					if err := f.resetDelta(); err != nil { // back to the seeded tip
						b.Fatal(err)
					}
					var ix *gitstore.Index
					sum += timed(func() {
						s := openStore(b, f)
						defer closeStore(s)
						ix = warmIndex(b, s)
					})
					if ix.Tip != w.Commit || ix.Len() != f.N+1 {
						b.Fatalf("index at %s with %d records, want %s with %d", ix.Tip, ix.Len(), w.Commit, f.N+1)
					}
				}
				return sum / incrementals
			}},
			op{"git-read-all" + f.label, func(i int) time.Duration {
				return timed(func() {
					mustRun(b, f.dir, nil, nil, "sh", "-c",
						"git ls-tree -r --format='%(objectname)' refs/heads/records records/ | git cat-file --batch >/dev/null")
				})
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}
