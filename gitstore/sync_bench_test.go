package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// The sync and merge benchmarks time git-records next to git doing the
// same job on the same branches in the same run, and report the ratio:
//
//	go test ./gitstore -run '^$' -bench 'Sync|MergeConflicting' -benchtime 5x
//
// sync-vs-git is Store.Sync (fetch, merge, push with a lease) over git
// fetch + git merge in a checkout; sync-vs-git+push counts git push too.
// Store.Sync runs without an incoming check here (the CLI adds verify).

// seedRecords writes n concept records with ids prefix-00000… in commits of
// at most batch records each, through Store.Mutate: one signed commit per
// batch, like an import.
func seedRecords(tb testing.TB, s *Store, prefix string, n, batch int) {
	tb.Helper()
	for start := 0; start < n; start += batch {
		end := min(start+batch, n)
		mutate(tb, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			m := &kernel.Mutation{Op: kernel.OpCreate, Type: "concept", Title: fmt.Sprintf("%s %d-%d", prefix, start, end)}
			m.Trailers = []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpCreate)}}
			for i := start; i < end; i++ {
				in := kernel.CreateInput{ID: fmt.Sprintf("%s-%05d", prefix, i), Type: "concept", Category: "bench.seed",
					Title: fmt.Sprintf("%s record %d", prefix, i), Body: fmt.Sprintf("Body of %s %d.\n\nSee [[%s-%05d]].\n", prefix, i, prefix, i/2),
					Provenance: kernel.Provenance{Agent: testAgent}}
				one, err := kernel.Create(v, in, env)
				if err != nil {
					return nil, err
				}
				m.Writes = append(m.Writes, one.Writes...)
				m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerID, Value: in.ID})
			}
			m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerAgent, Value: testAgent},
				kernel.Trailer{Key: kernel.TrailerFormat, Value: kernel.FormatVersion})
			return m, nil
		})
	}
}

// retitle changes the title of records prefix-00000…prefix-(n-1) in one
// commit.
func retitle(tb testing.TB, s *Store, prefix string, n int, title string) {
	tb.Helper()
	mutate(tb, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m := &kernel.Mutation{Op: kernel.OpUpdate, Type: "concept", Title: title}
		m.Trailers = []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpUpdate)}}
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("%s-%05d", prefix, i)
			t := fmt.Sprintf("%s %d", title, i)
			one, err := kernel.Update(v, id, kernel.UpdateFields{Title: &t}, ev(), env)
			if err != nil {
				return nil, err
			}
			m.Writes = append(m.Writes, one.Writes...)
			m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerID, Value: id})
		}
		m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerAgent, Value: testAgent},
			kernel.Trailer{Key: kernel.TrailerFormat, Value: kernel.FormatVersion}, kernel.Trailer{Key: kernel.TrailerFields, Value: "title"})
		return m, nil
	})
}

// copyTree copies a directory (a repository) with cp -a.
func copyTree(tb testing.TB, from, to string) {
	tb.Helper()
	out, err := exec.Command("cp", "-a", from, to).CombinedOutput()
	require.NoError(tb, err, "%s", out)
}

// timed runs git and returns how long it took.
func timedGit(tb testing.TB, dir string, args ...string) time.Duration {
	tb.Helper()
	start := time.Now()
	git(tb, dir, args...)
	return time.Since(start)
}

func BenchmarkSync1000NewRemoteRecordsInto10000(b *testing.B) {
	const existing, incoming = 10_000, 1_000
	root := b.TempDir()
	seed := newTestStore(b)
	signer, err := seed.Signer()
	require.NoError(b, err)
	seedRecords(b, seed, "seed", existing, 1000)
	base := filepath.Join(root, "base.git")
	git(b, root, "clone", "-q", "--bare", gitDir(seed), base)
	seedRecords(b, seed, "new", incoming, 250)
	remote0 := filepath.Join(root, "remote0.git")
	git(b, root, "clone", "-q", "--bare", gitDir(seed), remote0)
	for _, d := range []string{base, remote0} {
		git(b, d, "repack", "-adq")
	}

	// The local clone: at the base, one record of its own (so the sync is a
	// real merge), its index warm, HEAD on a code branch.
	local0 := filepath.Join(root, "local0")
	git(b, root, "clone", "-q", "--no-checkout", base, local0)
	git(b, local0, "branch", "-q", "records", "origin/records")
	git(b, local0, "remote", "set-url", "origin", remote0)
	ls, err := Open(local0, Options{Signer: signer})
	require.NoError(b, err)
	mgCreate(b, ls, "local-only", "Local only", "l\n")
	v, err := ls.View()
	require.NoError(b, err)
	_, err = v.Index()
	require.NoError(b, err)
	require.NoError(b, ls.Close())
	// git's side: the same clone with the records branch checked out.
	gitLocal0 := filepath.Join(root, "gitlocal0")
	copyTree(b, local0, gitLocal0)
	git(b, gitLocal0, "checkout", "-q", "records")

	var syncTime, fetchMerge, push time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		it := filepath.Join(root, fmt.Sprint(i))
		require.NoError(b, os.MkdirAll(it, 0o755))
		remote, local := filepath.Join(it, "remote.git"), filepath.Join(it, "local")
		copyTree(b, remote0, remote)
		copyTree(b, local0, local)
		git(b, local, "remote", "set-url", "origin", remote)
		s, err := Open(local, Options{Signer: signer})
		require.NoError(b, err)
		start := time.Now()
		b.StartTimer()
		res, err := s.Sync(SyncOptions{Remote: "origin", Pull: true, Push: true, Agent: testAgent})
		b.StopTimer()
		syncTime += time.Since(start)
		require.NoError(b, err)
		require.Equal(b, "merged", res.Merge.Kind)
		require.Len(b, res.Merge.Records, incoming)
		require.True(b, res.Pushed)
		require.NoError(b, s.Close())

		gremote, glocal := filepath.Join(it, "gremote.git"), filepath.Join(it, "glocal")
		copyTree(b, remote0, gremote)
		copyTree(b, gitLocal0, glocal)
		git(b, glocal, "remote", "set-url", "origin", gremote)
		fetchMerge += timedGit(b, glocal, "fetch", "-q", "origin")
		fetchMerge += timedGit(b, glocal, "merge", "-q", "--no-edit", "origin/records")
		push += timedGit(b, glocal, "push", "-q", "origin", "records")
		require.NoError(b, os.RemoveAll(it))
	}
	b.ReportMetric(float64(syncTime)/float64(fetchMerge), "sync-vs-git")
	b.ReportMetric(float64(syncTime)/float64(fetchMerge+push), "sync-vs-git+push")
	b.ReportMetric(float64(fetchMerge.Milliseconds())/float64(b.N), "git-fetch+merge-ms/op")
}

func BenchmarkMergeConflicting100Records(b *testing.B) {
	const existing, conflicting = 10_000, 100
	clock := newTestClock()
	s := newTestStore(b, Options{Now: clock.Now})
	seedRecords(b, s, "seed", existing, 1000)
	base := mgTip(b, s)
	dir := gitDir(s)
	git(b, dir, "update-ref", "refs/heads/feature", base.String())
	f, err := OpenRepo(s.repo, Options{Ref: "refs/heads/feature", Now: clock.Now})
	require.NoError(b, err)
	retitle(b, s, "seed", conflicting, "Ours")
	retitle(b, f, "seed", conflicting, "Theirs")
	ours, theirs := mgTip(b, s), mgTip(b, f)
	git(b, dir, "repack", "-adq")
	v, err := s.View()
	require.NoError(b, err)
	_, err = v.Index()
	require.NoError(b, err)

	// git's side: a checkout of ours in a worktree; git merge with -X
	// theirs resolves the same conflicting lines without stopping.
	wt := filepath.Join(b.TempDir(), "wt")
	git(b, dir, "worktree", "add", "-q", "--detach", wt, ours.String())

	var mergeTime, gitTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		git(b, dir, "update-ref", DefaultRef, ours.String())
		start := time.Now()
		b.StartTimer()
		out, err := s.Merge(theirs, testAgent)
		b.StopTimer()
		mergeTime += time.Since(start)
		require.NoError(b, err)
		require.Equal(b, "merged", out.Kind)
		require.Len(b, out.Conflicts, conflicting)

		git(b, wt, "reset", "-q", "--hard", ours.String())
		gitTime += timedGit(b, wt, "merge", "-q", "--no-edit", "-X", "theirs", theirs.String())
	}
	b.ReportMetric(float64(mergeTime)/float64(gitTime), "merge-vs-git")
	b.ReportMetric(float64(gitTime.Milliseconds())/float64(b.N), "git-merge-ms/op")
}
