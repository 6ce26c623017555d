package hooks_test

// Benchmarks of verification against git's own signature check over the
// same commits:
//
//	go test ./hooks -run '^$' -bench Verify -benchtime 5x
//
// BenchmarkVerifyRange1000 judges a range of 1,000 record commits (every
// rule, in-process) beside `git log --format=%G?` over that range (the
// signatures only, through ssh-keygen). BenchmarkVerifyOneCommitOn10k
// judges one new commit on top of a branch of 1,000 and of 10,000 records,
// beside `git verify-commit`: its cost must follow the commit, not the
// branch. The stores are seeded once per run, in-process, many records to
// a commit.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// benchStore is a seeded store: verify judges base..tip.
type benchStore struct {
	dir       string
	base, tip plumbing.Hash
	commits   []plumbing.Hash // base..tip, parents first
}

var (
	benchMu     sync.Mutex
	benchStores = map[string]*benchStore{}
)

// seeded returns the store named key, seeding it on first use with seed.
func seeded(b *testing.B, key string, seed func(b *testing.B, s *gitstore.Store) plumbing.Hash) *benchStore {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if bs := benchStores[key]; bs != nil {
		return bs
	}
	root, err := os.MkdirTemp("", "git-records-bench-")
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(root, "store")
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	cmd := exec.Command(binPath, "init", "--generate-key")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("init: %v\n%s", err, out)
	}
	s, err := gitstore.Open(dir, gitstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	base := seed(b, s)
	tip, err := s.Tip()
	if err != nil {
		b.Fatal(err)
	}
	commits, err := s.RevList(base.String() + ".." + tip.String())
	if err != nil {
		b.Fatal(err)
	}
	bs := &benchStore{dir: dir, base: base, tip: tip, commits: commits}
	benchStores[key] = bs
	return bs
}

// createOne is the create op for one small record.
func createOne(i int) gitstore.Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Create(v, kernel.CreateInput{Type: "concept", Title: fmt.Sprintf("Record %d", i), Category: "bench.verify",
			Body: fmt.Sprintf("Body of record %d.", i), Provenance: kernel.Provenance{Agent: "bench"}}, env)
	}
}

// createBatch is one commit creating n records.
func createBatch(first, n int) gitstore.Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m := &kernel.Mutation{Op: kernel.OpCreate, Type: "concept", Title: fmt.Sprintf("records %d-%d", first, first+n-1)}
		m.Trailers = []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpCreate)}}
		for i := first; i < first+n; i++ {
			one, err := createOne(i)(v, env)
			if err != nil {
				return nil, err
			}
			m.Writes = append(m.Writes, one.Writes...)
			m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerID, Value: one.Writes[0].ID})
		}
		m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerAgent, Value: "bench"}, kernel.Trailer{Key: kernel.TrailerFormat, Value: kernel.FormatVersion})
		return m, nil
	}
}

func mutate(b *testing.B, s *gitstore.Store, d gitstore.Decision) *gitstore.Written {
	b.Helper()
	w, err := s.Mutate(d)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// storeOf seeds n records in batches and then one update on top: the
// commit verify judges.
func storeOf(b *testing.B, n int) *benchStore {
	return seeded(b, fmt.Sprintf("records-%d", n), func(b *testing.B, s *gitstore.Store) plumbing.Hash {
		const batch = 500
		var last *gitstore.Written
		for i := 0; i < n; i += batch {
			last = mutate(b, s, createBatch(i, min(batch, n-i)))
		}
		id := last.Mutation.Writes[0].ID
		body := "Updated on top of the branch."
		mutate(b, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, id, kernel.UpdateFields{Body: &body}, kernel.Evidence{Agent: "bench"}, env)
		})
		return last.Commit
	})
}

// rangeOf1000 seeds 1,000 commits, one record each, after init.
func rangeOf1000(b *testing.B) *benchStore {
	return seeded(b, "range-1000", func(b *testing.B, s *gitstore.Store) plumbing.Hash {
		base, err := s.Tip()
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 1000; i++ {
			mutate(b, s, createOne(i))
		}
		return base
	})
}

// verifyIn runs hooks.Verify over the store's range and insists on a clean
// report, so what is measured is the whole judgement.
func verifyIn(b *testing.B, bs *benchStore) {
	b.Helper()
	s, err := gitstore.Open(bs.dir, gitstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rep, err := hooks.Verify(s, bs.commits, hooks.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if !rep.OK || rep.Commits != len(bs.commits) {
		b.Fatalf("verify: %+v", rep)
	}
}

// gitIn runs git in the store and checks its output.
func gitIn(b *testing.B, bs *benchStore, check func(string) bool, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = bs.dir
	out, err := cmd.Output()
	if err != nil || !check(string(out)) {
		b.Fatalf("git %q: %v\n%s", args, err, out)
	}
}

// allGood says every line of %G? output is G, one per commit.
func allGood(n int) func(string) bool {
	return func(out string) bool {
		lines := strings.Fields(out)
		if len(lines) != n {
			return false
		}
		for _, l := range lines {
			if l != "G" {
				return false
			}
		}
		return true
	}
}

// BenchmarkVerifyRange1000 verifies 1,000 commits: hooks.Verify in-process
// (signature, trailers, records, invariants, policy) and the git-records
// CLI, beside git's signature check of the same range.
func BenchmarkVerifyRange1000(b *testing.B) {
	bs := rangeOf1000(b)
	rng := bs.base.String() + ".." + bs.tip.String()
	b.Run("hooks.Verify", func(b *testing.B) {
		for b.Loop() {
			verifyIn(b, bs)
		}
	})
	b.Run("git-records-verify", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(binPath, "verify", rng)
			cmd.Dir = bs.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("verify: %v\n%s", err, out)
			}
		}
	})
	b.Run("git-log-%G?", func(b *testing.B) {
		for b.Loop() {
			gitIn(b, bs, allGood(1000), "log", "--format=%G?", rng)
		}
	})
}

// BenchmarkVerifyOneCommitOn10k verifies the newest commit of a branch of
// 1,000 and of 10,000 records, beside git verify-commit of that commit.
func BenchmarkVerifyOneCommitOn10k(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		bs := storeOf(b, n)
		one := &benchStore{dir: bs.dir, commits: []plumbing.Hash{bs.tip}}
		b.Run(fmt.Sprintf("records=%d/hooks.Verify", n), func(b *testing.B) {
			for b.Loop() {
				verifyIn(b, one)
			}
		})
		b.Run(fmt.Sprintf("records=%d/git-records-verify", n), func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(binPath, "verify", bs.tip.String()+"~1.."+bs.tip.String())
				cmd.Dir = bs.dir
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("verify: %v\n%s", err, out)
				}
			}
		})
		b.Run(fmt.Sprintf("records=%d/git-verify-commit", n), func(b *testing.B) {
			for b.Loop() {
				gitIn(b, bs, func(string) bool { return true }, "verify-commit", bs.tip.String())
			}
		})
	}
}
