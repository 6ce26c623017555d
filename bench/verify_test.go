package bench

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// verifyRef holds, in each seeded store, a range of single-record commits
// on top of the seeded tip: what verify judges. It lives outside
// refs/heads/records, so resetting the store keeps it (and its objects).
const verifyRef = "refs/bench/verify-range"

// verifyRanges are the range lengths measured.
var verifyRanges = []int{100, 1000}

// verifyRange returns the tip of the range of the longest length in f,
// seeding it once: one signed create per commit, as people and agents
// write, then packed with the rest of the store for the packed layout.
func verifyRange(b *testing.B, f *fixture, layout string) string {
	b.Helper()
	n := verifyRanges[len(verifyRanges)-1]
	if tip, err := run(f.dir, nil, nil, "git", "rev-parse", "-q", "--verify", verifyRef); err == nil {
		if c, err := run(f.dir, nil, nil, "git", "rev-list", "--count", f.Tip+".."+tip); err == nil && c == strconv.Itoa(n) {
			return tip
		}
	}
	mustRun(b, f.dir, nil, nil, "git", "update-ref", verifyRef, f.Tip)
	s, err := gitstore.Open(f.dir, gitstore.Options{Ref: verifyRef})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		in := kernel.CreateInput{Type: "concept", Category: "bench.verify", Title: fmt.Sprintf("Verified record %d", i),
			Body: cliBody(i), Provenance: kernel.Provenance{Agent: "bench"}}
		if _, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }); err != nil {
			b.Fatal(err)
		}
	}
	closeStore(s)
	if layout == "packed" {
		mustRun(b, f.dir, nil, nil, "git", "repack", "-adq")
	}
	return mustRun(b, f.dir, nil, nil, "git", "rev-parse", verifyRef)
}

// BenchmarkVerify: verify of the last 100 and 1,000 commits of a range of
// single-record commits on top of a store of 1k and 10k records.
//
//   - verify-<n>: hooks.Verify in a freshly opened store (every rule:
//     signature, trailers, records, invariants, handles, links, policy)
//   - cli-verify-<n>: `git records verify <range>`, one process
//   - git-log-<n>: `git log --format=%G?` over the same range with
//     gpg.ssh.allowedSignersFile set to the same signers (signatures only)
func BenchmarkVerify(b *testing.B) {
	bin := bin(b)
	var ops []op
	for _, layout := range []string{"packed", "loose"} {
		for _, f := range stores(b, layout) {
			tip := verifyRange(b, f, layout)
			for _, n := range verifyRanges {
				rng := fmt.Sprintf("%s~%d..%s", tip, n, tip)
				ops = append(ops,
					op{fmt.Sprintf("verify-%d%s", n, f.label), func(int) time.Duration {
						return timed(func() {
							s := openStore(b, f)
							defer closeStore(s)
							commits, err := s.RevList(rng)
							if err != nil {
								b.Fatal(err)
							}
							rep, err := hooks.Verify(s, commits, hooks.Options{})
							if err != nil {
								b.Fatal(err)
							}
							if !rep.OK || rep.Commits != n {
								b.Fatalf("verify %s: %d commits, ok=%v: %+v", rng, rep.Commits, rep.OK, rep.Violations)
							}
						})
					}},
					op{fmt.Sprintf("cli-verify-%d%s", n, f.label), func(int) time.Duration {
						return timed(func() { mustRun(b, f.dir, nil, nil, bin, "verify", rng) })
					}},
					op{fmt.Sprintf("git-log-%d%s", n, f.label), func(int) time.Duration {
						var out string
						d := timed(func() { out = mustRun(b, f.dir, nil, nil, "git", "log", "--format=%G?", rng) })
						if got := strings.Count(out, "G"); got != n {
							b.Fatalf("git log --format=%%G? %s: %d good signatures of %d:\n%s", rng, got, n, out)
						}
						return d
					}},
				)
			}
		}
	}
	b.ResetTimer()
	interleave(b, ops...)
}
