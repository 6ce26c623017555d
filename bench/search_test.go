package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// searchWord is in the seed's vocabulary: most records hold it, so a
// search ranks a large share of the store (its worst case), and git grep
// has as many files to count.
const searchWord = "latency"

// searchDelta is the search index's delta file of the records branch.
func (f *fixture) searchDelta() string {
	return filepath.Join(f.dir, ".git", "records", "index", "heads%2Frecords.search")
}

// BenchmarkSearch: `git records search <word> --json` per process (the
// search index current: built once before timing), against `git grep -c
// <word>` in a checkout of the same branch (a detached worktree at the
// seeded tip).
func BenchmarkSearch(b *testing.B) {
	bin := bin(b)
	var ops []op
	for _, f := range stores(b, "packed") {
		mustRun(b, f.dir, nil, nil, bin, "search", searchWord) // builds the index
		checkout := f.dir + "-checkout"
		if _, err := os.Stat(checkout); err != nil {
			mustRun(b, f.dir, nil, nil, "git", "worktree", "add", "-q", "--detach", checkout, f.Tip)
		}
		mustRun(b, checkout, nil, nil, "git", "checkout", "-q", "--detach", f.Tip)
		ops = append(ops,
			op{"search" + f.label, func(i int) time.Duration {
				return timed(func() { mustRun(b, f.dir, nil, nil, bin, "search", "--json", searchWord) })
			}},
			op{"git-grep-c" + f.label, func(i int) time.Duration {
				return timed(func() { mustRun(b, checkout, nil, nil, "git", "grep", "-c", searchWord) })
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}

// BenchmarkSearchIncremental: the branch is one commit ahead of the search
// index. A fresh store (as the next process opens it) runs a search for a
// word no record holds, so what is timed is the catch-up: the tree diff,
// the one record read and decoded, the delta rewritten (mean of several).
// search-current is the same search with the index already current, the
// baseline: the difference is the update.
func BenchmarkSearchIncremental(b *testing.B) {
	const runs = 5
	const absent = "zzqxnotaword"
	var ops []op
	for _, f := range stores(b, "packed") {
		s := openStore(b, f)
		search := func(s *gitstore.Store) {
			v, err := s.View()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := v.Search(absent, gitstore.SearchOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		search(s) // the index at the seeded tip
		behind, err := os.ReadFile(f.searchDelta())
		if err != nil {
			b.Fatal(err)
		}
		in := kernel.CreateInput{Type: "concept", Category: "bench.search", Title: "One more record about latency",
			Body: cliBody(0), Provenance: kernel.Provenance{Agent: "bench"}}
		if _, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }); err != nil {
			b.Fatal(err)
		}
		closeStore(s)
		fresh := func() time.Duration {
			return timed(func() {
				s := openStore(b, f)
				defer closeStore(s)
				search(s)
			})
		}
		ops = append(ops,
			op{"search-incremental" + f.label, func(i int) time.Duration {
				var sum time.Duration
				for range runs {
					if err := os.WriteFile(f.searchDelta(), behind, 0o644); err != nil {
						b.Fatal(err)
					}
					sum += fresh()
					if now, _ := os.ReadFile(f.searchDelta()); string(now) == string(behind) {
						b.Fatal("the search index did not catch up")
					}
				}
				return sum / runs
			}},
			op{"search-current" + f.label, func(i int) time.Duration {
				fresh() // caught up, untimed
				var sum time.Duration
				for range runs {
					sum += fresh()
				}
				return sum / runs
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}
