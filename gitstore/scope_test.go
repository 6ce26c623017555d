package gitstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// scopeRepo is a code repository with a few files and one commit.
func scopeRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main", ".")
	writeFile(t, dir, "src/auth/token.go", "package auth\n")
	writeFile(t, dir, "src/auth/session.go", "package auth // sessions\n")
	writeFile(t, dir, "docs/readme.md", "docs\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "code")
	return dir
}

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// verdict captures a claim about paths when written, then re-derives its
// freshness against the tree as it is at the time of the call.
func verdict(t *testing.T, dir string, r *kernel.Record) kernel.Verdict {
	t.Helper()
	return kernel.DeriveFreshness(r, time.Now(), false, NewScopeScanner(dir).State)
}

func scopedRecord(t *testing.T, dir string, paths ...string) *kernel.Record {
	t.Helper()
	scope, err := NewScopeScanner(dir).Capture(paths)
	require.NoError(t, err)
	return &kernel.Record{ID: "finding", CreatedAt: kernel.At(time.Now()), Scope: scope}
}

func TestFreshnessFollowsContentNotCommits(t *testing.T) {
	t.Parallel()
	dir := scopeRepo(t)
	r := scopedRecord(t, dir, "src/auth/token.go")
	require.Equal(t, kernel.FreshnessCurrent, verdict(t, dir, r).State, "just captured")

	writeFile(t, dir, "src/auth/token.go", "package auth\n// edited, not committed\n")
	v := verdict(t, dir, r)
	require.Equal(t, kernel.FreshnessStale, v.State, "an uncommitted edit makes it stale at once")
	require.Equal(t, []string{"src/auth/token.go"}, v.ChangedPaths)

	git(t, dir, "checkout", "-q", "--", "src/auth/token.go")
	require.Equal(t, kernel.FreshnessCurrent, verdict(t, dir, r).State, "reverting makes it current again")

	writeFile(t, dir, "docs/readme.md", "docs v2\n")
	git(t, dir, "commit", "-q", "-am", "unrelated")
	require.Equal(t, kernel.FreshnessCurrent, verdict(t, dir, r).State, "an unrelated commit changes nothing")

	// A rebase rewrites every commit id but leaves the scoped file alone.
	git(t, dir, "checkout", "-q", "-b", "feature", "HEAD~1")
	writeFile(t, dir, "docs/other.md", "other\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "feature work")
	git(t, dir, "rebase", "-q", "main")
	require.NotEqual(t, r.Scope.GitHead, git(t, dir, "rev-parse", "HEAD"))
	require.Equal(t, kernel.FreshnessCurrent, verdict(t, dir, r).State, "a rebase keeps it current")

	require.NoError(t, os.Remove(filepath.Join(dir, "src/auth/token.go")))
	v = verdict(t, dir, r)
	require.Equal(t, kernel.FreshnessStale, v.State, "deleting the file makes it stale")
	require.Equal(t, []string{"src/auth/token.go"}, v.ChangedPaths)
}

func TestFreshnessOfDirectoriesAndGlobs(t *testing.T) {
	t.Parallel()
	dir := scopeRepo(t)
	for _, pattern := range []string{"src/auth", "src/auth/", "src/*/*.go", "src/**/*.go", "**/session.go"} {
		t.Run(pattern, func(t *testing.T) {
			r := scopedRecord(t, dir, pattern)
			require.Contains(t, r.Scope.Files, "src/auth/session.go")
			require.Equal(t, kernel.FreshnessCurrent, verdict(t, dir, r).State)
		})
	}
	r := scopedRecord(t, dir, "src/auth")
	writeFile(t, dir, "src/auth/new.go", "package auth // new file\n")
	v := verdict(t, dir, r)
	require.Equal(t, kernel.FreshnessStale, v.State, "a new file under a scoped directory is a change")
	require.Equal(t, []string{"src/auth/new.go"}, v.ChangedPaths)

	_, err := NewScopeScanner(dir).Capture([]string{"no/such/path"})
	require.Equal(t, kernel.CodeMissingEvidence, kernel.CodeOf(err), "a scope that matches nothing is refused")
}

func TestFreshnessStates(t *testing.T) {
	t.Parallel()
	dir := scopeRepo(t)
	past := kernel.At(time.Now().Add(-time.Hour))
	expired := &kernel.Record{ID: "old", CreatedAt: past, ExpiresAt: &past}
	require.Equal(t, kernel.FreshnessStale, verdict(t, dir, expired).State, "past expires_at is stale")

	noScope := &kernel.Record{ID: "plain", CreatedAt: past}
	require.Equal(t, kernel.FreshnessUnknown, verdict(t, dir, noScope).State)

	r := scopedRecord(t, dir, "src/auth/token.go")
	require.Equal(t, kernel.FreshnessSuperseded, kernel.DeriveFreshness(r, time.Now(), true, NewScopeScanner(dir).State).State)

	outside := t.TempDir() // not a repository
	v := kernel.DeriveFreshness(r, time.Now(), false, NewScopeScanner(outside).State)
	require.Equal(t, kernel.FreshnessUnavailable, v.State)
	require.Contains(t, v.Reason, "not inside a git working tree")
}

// TestScopeScannerHashesEachFileOnce pins the cost model of fresh: 10,000
// records naming the same files hash each distinct file once.
func TestScopeScannerHashesEachFileOnce(t *testing.T) {
	t.Parallel()
	dir := scopeRepo(t)
	sc := NewScopeScanner(dir)
	scope, err := sc.Capture([]string{"src/auth"})
	require.NoError(t, err)
	for i := 0; i < 10000; i++ {
		require.Equal(t, scope.ChangedFilesHash, sc.State(scope).Hash)
	}
	require.Len(t, sc.hashes, 2, "two distinct files, hashed once each")
}
