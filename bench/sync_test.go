package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// syncIncoming records arrive from the remote in a sync; mergeConflicting
// records are retitled on both sides of a merge.
const (
	syncIncoming     = 1000
	mergeConflicting = 100
)

// mutateOn runs decide on ref in dir with the fixture's signing key.
func mutateOn(b *testing.B, f *fixture, dir, ref string, decide gitstore.Decision) {
	b.Helper()
	fs := openStore(b, f)
	signer, err := fs.Signer()
	closeStore(fs)
	if err != nil {
		b.Fatal(err)
	}
	s, err := gitstore.Open(dir, gitstore.Options{Ref: ref, Signer: signer})
	if err != nil {
		b.Fatal(err)
	}
	defer closeStore(s)
	if _, err := s.Mutate(decide); err != nil {
		b.Fatal(err)
	}
}

// createMany is one commit creating records first..first+n-1.
func createMany(prefix string, first, n int) gitstore.Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m := &kernel.Mutation{Op: kernel.OpCreate, Type: "concept", Title: fmt.Sprintf("%s %d-%d", prefix, first, first+n-1)}
		m.Trailers = []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpCreate)}}
		for i := first; i < first+n; i++ {
			one, err := kernel.Create(v, kernel.CreateInput{Type: "concept", Category: "bench.sync", Title: fmt.Sprintf("%s record %d", prefix, i),
				Body: cliBody(i), Provenance: kernel.Provenance{Agent: "bench"}}, env)
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

// retitleMany is one update commit retitling recs.
func retitleMany(recs []rec, title string) gitstore.Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m := &kernel.Mutation{Op: kernel.OpUpdate, Type: "concept", Title: title}
		m.Trailers = []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpUpdate)}}
		for i, r := range recs {
			t := fmt.Sprintf("%s %d", title, i)
			one, err := kernel.Update(v, r.ID, kernel.UpdateFields{Title: &t}, kernel.Evidence{Agent: "bench"}, env)
			if err != nil {
				return nil, err
			}
			m.Writes = append(m.Writes, one.Writes...)
			m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerID, Value: r.ID})
		}
		m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerAgent, Value: "bench"},
			kernel.Trailer{Key: kernel.TrailerFormat, Value: kernel.FormatVersion}, kernel.Trailer{Key: kernel.TrailerFields, Value: "title"})
		return m, nil
	}
}

// BenchmarkSync: 1,000 new records on the remote come into a store of 1k
// and 10k records that has one record of its own (so it is a real merge),
// the remote and the clone copied afresh for every run.
//
//   - pull: `git records pull` (fetch, verify every incoming commit, merge,
//     index caught up)
//   - git-fetch-merge: `git fetch` + `git merge` of the same branches in a
//     checkout of the records branch
func BenchmarkSync(b *testing.B) {
	bin := bin(b)
	var ops []op
	for _, f := range stores(b, "packed") {
		root := b.TempDir()
		// The remote: the seeded store plus 1,000 records in 4 commits.
		remote0 := filepath.Join(root, "remote0.git")
		mustRun(b, root, nil, nil, "git", "clone", "-q", "--bare", f.dir, remote0)
		for _, kv := range [][2]string{{"user.name", "Remote Writer"}, {"user.email", "remote@example.com"}} {
			mustRun(b, remote0, nil, nil, "git", "config", kv[0], kv[1])
		}
		for first := 0; first < syncIncoming; first += syncIncoming / 4 {
			mutateOn(b, f, remote0, gitstore.DefaultRef, createMany("Remote", first, syncIncoming/4))
		}
		mustRun(b, remote0, nil, nil, "git", "repack", "-adq")
		// The clone: the seeded store, one record of its own, its index
		// current; git's side is the same clone with the branch checked out.
		local0 := filepath.Join(root, "local0")
		mustRun(b, root, nil, nil, "cp", "-a", f.dir, local0)
		mustRun(b, local0, nil, nil, "git", "remote", "add", "origin", remote0)
		mustRun(b, local0, nil, nil, bin, "create", "--type", "concept", "--category", "bench.local", "--title", "Local only", "--agent", "bench", "--body", "l\n")
		gitLocal0 := filepath.Join(root, "gitlocal0")
		mustRun(b, root, nil, nil, "cp", "-a", local0, gitLocal0)
		mustRun(b, gitLocal0, nil, nil, "git", "checkout", "-q", "records")
		// fresh copies the remote and a clone for one run (not timed).
		fresh := func(i int, clone string) (string, string) {
			it := filepath.Join(root, fmt.Sprint(i))
			if err := os.RemoveAll(it); err != nil {
				b.Fatal(err)
			}
			if err := os.MkdirAll(it, 0o755); err != nil {
				b.Fatal(err)
			}
			remote, local := filepath.Join(it, "remote.git"), filepath.Join(it, "local")
			mustRun(b, it, nil, nil, "cp", "-a", remote0, remote)
			mustRun(b, it, nil, nil, "cp", "-a", clone, local)
			mustRun(b, local, nil, nil, "git", "remote", "set-url", "origin", remote)
			return it, local
		}
		ops = append(ops,
			op{"pull" + f.label, func(i int) time.Duration {
				it, local := fresh(i, local0)
				defer os.RemoveAll(it)
				return timed(func() { mustRun(b, local, nil, nil, bin, "pull") })
			}},
			op{"git-fetch-merge" + f.label, func(i int) time.Duration {
				it, local := fresh(i, gitLocal0)
				defer os.RemoveAll(it)
				return timed(func() {
					mustRun(b, local, nil, nil, "git", "fetch", "-q", "origin")
					mustRun(b, local, nil, nil, "git", "merge", "-q", "--no-edit", "origin/records")
				})
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}

// BenchmarkMerge: a merge where both sides retitled the same 100 records
// in a store of 1k and 10k records, the branch reset to ours before each.
//
//   - merge-conflicting: `git records merge <theirs>` (verify what comes
//     in, merge field by field, losing values kept in the mutation log)
//   - git-merge-theirs: `git merge -X theirs` of the same commits in a
//     checkout of ours (it resolves the conflicting lines without stopping)
func BenchmarkMerge(b *testing.B) {
	bin := bin(b)
	var ops []op
	for _, f := range stores(b, "packed") {
		const ours, theirs = "refs/bench/merge-ours", "refs/bench/merge-theirs"
		recs := f.generated()[:mergeConflicting]
		for _, side := range []string{ours, theirs} {
			mustRun(b, f.dir, nil, nil, "git", "update-ref", side, f.Tip)
		}
		mutateOn(b, f, f.dir, ours, retitleMany(recs, "Ours"))
		mutateOn(b, f, f.dir, theirs, retitleMany(recs, "Theirs"))
		oursTip := mustRun(b, f.dir, nil, nil, "git", "rev-parse", ours)
		theirsTip := mustRun(b, f.dir, nil, nil, "git", "rev-parse", theirs)
		wt := filepath.Join(b.TempDir(), "wt")
		mustRun(b, f.dir, nil, nil, "git", "worktree", "add", "-q", "--detach", wt, oursTip)
		defer run(f.dir, nil, nil, "git", "worktree", "remove", "--force", wt)
		ops = append(ops,
			op{"merge-conflicting" + f.label, func(int) time.Duration {
				mustRun(b, f.dir, nil, nil, "git", "update-ref", "refs/heads/records", oursTip)
				return timed(func() { mustRun(b, f.dir, nil, nil, bin, "merge", theirsTip) })
			}},
			op{"git-merge-theirs" + f.label, func(int) time.Duration {
				mustRun(b, wt, nil, nil, "git", "reset", "-q", "--hard", oursTip)
				return timed(func() { mustRun(b, wt, nil, nil, "git", "merge", "-q", "--no-edit", "-X", "theirs", theirsTip) })
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}
