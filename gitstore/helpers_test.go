package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// realHome is HOME before TestMain replaced it: the go command run by a
// test finds its caches there.
var realHome string

// TestMain keeps the machine's and the user's git configuration out of every
// test in this package, once for the whole process so tests can run in
// parallel: a fake HOME, no system config, a fixed identity in the
// environment, and none of the variables that point git elsewhere (a git hook
// running go test sets GIT_DIR, for one).
func TestMain(m *testing.M) {
	// A writer process of group_test.go inherits all of this from the test
	// that started it (its HOME too): a home of its own would be left behind
	// in $TMPDIR whenever the test kills it, as the crash tests do.
	if dir := os.Getenv("GITSTORE_TEST_WRITER"); dir != "" {
		os.Exit(runTestWriter(dir))
	}
	for _, v := range []string{
		"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
		"GIT_QUARANTINE_PATH", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
		"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME", "SSH_AUTH_SOCK",
	} {
		os.Unsetenv(v)
	}
	realHome = os.Getenv("HOME")
	home, err := os.MkdirTemp("", "gitstore-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	env := map[string]string{
		"HOME":                home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GNUPGHOME":           filepath.Join(home, ".gnupg-unused"),
		"GIT_AUTHOR_NAME":     testName,
		"GIT_COMMITTER_NAME":  testName,
		"GIT_AUTHOR_EMAIL":    testEmail,
		"GIT_COMMITTER_EMAIL": testEmail,
		"TZ":                  "UTC",
	}
	for k, v := range env {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

const (
	testName  = "Records Test"
	testEmail = "records@example.com"
	testAgent = "test-agent"
)

// testClock is a deterministic clock: every reading is one second after the
// previous one, so each op gets its own timestamp and tests never sleep.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

// newTestStore is a fresh repository (`git init`, one branch "main" with no
// commits) with an initialized, signed records store in it.
func newTestStore(t testing.TB, opts ...Options) *Store {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "--object-format=sha1", "-b", "main", ".")
	return openTestStore(t, dir, opts...)
}

// openTestStore opens the store of the repository at dir and sets it up as
// `git records init --generate-key` does: a signing key of its own, the
// records branch, the allowed signers exported for git.
func openTestStore(t testing.TB, dir string, opts ...Options) *Store {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Now == nil {
		o.Now = newTestClock().Now
	}
	s, err := Open(dir, o)
	require.NoError(t, err)
	line, err := s.GenerateSigningKey(testEmail)
	require.NoError(t, err)
	w, err := s.Init(testAgent, line)
	require.NoError(t, err)
	require.False(t, w.Commit.IsZero(), "init creates the records branch")
	return s
}

// reopen opens the same store afresh, as the next process would: nothing of
// this process's index survives, only the on-disk cache.
func reopen(t testing.TB, s *Store) *Store {
	t.Helper()
	o := s.opts
	o.Ref = s.ref
	s2, err := OpenRepo(s.repo, o)
	require.NoError(t, err)
	return s2
}

// gitDir is the directory to run git in for s: the work tree, or the git
// dir of a bare repository.
func gitDir(s *Store) string {
	if s.repo.WorkTree != "" {
		return s.repo.WorkTree
	}
	return s.repo.GitDir
}

// git runs the real git CLI in dir and returns its stdout, trailing newline
// trimmed.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitInput(dir, nil, nil, args...)
	require.NoError(t, err, "git %s", strings.Join(args, " "))
	return out
}

// gitShow returns the exact content of a file at a revision.
func gitShow(t testing.TB, dir, rev, path string) string {
	t.Helper()
	out, err := gitRaw(dir, nil, nil, "cat-file", "blob", rev+":"+path)
	require.NoError(t, err)
	return out
}

// gitInput runs git with stdin and extra environment, returning stdout
// (trailing newline trimmed) and, on failure, an error holding stderr.
func gitInput(dir string, stdin []byte, env []string, args ...string) (string, error) {
	out, err := gitRaw(dir, stdin, env, args...)
	return strings.TrimSuffix(out, "\n"), err
}

// gitRaw is gitInput with stdout as git wrote it.
func gitRaw(dir string, stdin []byte, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// requireFsckClean runs git fsck with the strict checks a server applies on push.
func requireFsckClean(t testing.TB, dir string) {
	t.Helper()
	out, err := gitInput(dir, nil, nil, "fsck", "--strict", "--no-dangling", "--no-progress")
	require.NoError(t, err)
	require.Empty(t, out)
}

// requireVerifiedByGit checks commit's signature with plain git, trusting
// exactly the keys the store exported.
func requireVerifiedByGit(t testing.TB, s *Store, commit plumbing.Hash) {
	t.Helper()
	out, err := verifyCommit(gitDir(s), s.AllowedSignersExport(), commit)
	require.NoError(t, err, "git verify-commit %s: %s", commit, out)
	require.Contains(t, out, `Good "git" signature for `+testEmail+` with ED25519 key`)
}

// verifyCommit runs git verify-commit trusting allowedSigners and returns
// what it prints (on stderr).
func verifyCommit(dir, allowedSigners string, commit plumbing.Hash) (string, error) {
	cmd := exec.Command("git", "-c", "gpg.ssh.allowedSignersFile="+allowedSigners, "verify-commit", commit.String())
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mutate runs one op through the store's write loop and requires a commit.
func mutate(t testing.TB, s *Store, decide Decision) *Written {
	t.Helper()
	w, err := s.Mutate(decide)
	require.NoError(t, err)
	require.False(t, w.Commit.IsZero(), "the op commits")
	return w
}

// create runs kernel.Create with defaults for what the test does not care
// about, and returns the record as written.
func create(t testing.TB, s *Store, in kernel.CreateInput) *kernel.Record {
	t.Helper()
	w := mutate(t, s, createOp(in))
	return w.Mutation.Writes[0]
}

// createOp is kernel.Create as a Decision, with defaults for the required
// fields a test leaves empty.
func createOp(in kernel.CreateInput) Decision {
	if in.Type == "" {
		in.Type = "concept"
	}
	if in.Title == "" {
		in.Title = "A record"
	}
	if in.Body == "" {
		in.Body = "Some text.\n"
	}
	if in.Category == "" {
		in.Category = "engineering"
	}
	if in.Provenance.Agent == "" {
		in.Provenance.Agent = testAgent
	}
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }
}

func ev() kernel.Evidence { return kernel.Evidence{Agent: testAgent} }

// get reads a record through a fresh view and requires it to exist.
func get(t testing.TB, s *Store, handle string) *kernel.Record {
	t.Helper()
	v, err := s.View()
	require.NoError(t, err)
	r, err := v.Get(handle)
	require.NoError(t, err)
	require.NotNil(t, r, "record %q", handle)
	return r
}

// requireCode asserts err carries code.
func requireCode(t testing.TB, err error, code kernel.Code) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, kernel.CodeOf(err), "error: %v", err)
}

// fixedIDs returns an id source that hands out ids in order.
func fixedIDs(ids ...string) func() string {
	var mu sync.Mutex
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(ids) == 0 {
			return kernel.NewID()
		}
		id := ids[0]
		ids = ids[1:]
		return id
	}
}

func ptr[T any](v T) *T { return &v }

// handCommit commits files (path → content, "" deletes the path) on top of
// parent with git plumbing, as someone editing the branch by hand would, and
// moves the records branch there without a check. A zero parent makes an
// orphan commit. It returns the new commit.
func handCommit(t testing.TB, s *Store, parent plumbing.Hash, files map[string]string, msg string) plumbing.Hash {
	t.Helper()
	dir := gitDir(s)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	run := func(stdin []byte, args ...string) string {
		t.Helper()
		out, err := gitInput(dir, stdin, env, args...)
		require.NoError(t, err)
		return out
	}
	if !parent.IsZero() {
		run(nil, "read-tree", parent.String())
	}
	var info strings.Builder
	for p, content := range files {
		if content == "" {
			fmt.Fprintf(&info, "0 %s\t%s\n", plumbing.ZeroHash, p)
			continue
		}
		blob := run([]byte(content), "hash-object", "-w", "--stdin")
		fmt.Fprintf(&info, "100644 %s\t%s\n", blob, p)
	}
	run([]byte(info.String()), "update-index", "--index-info")
	tree := run(nil, "write-tree")
	args := []string{"commit-tree", tree, "-m", msg}
	if !parent.IsZero() {
		args = append(args, "-p", parent.String())
	}
	commit := run(nil, args...)
	run(nil, "update-ref", s.Ref(), commit)
	return plumbing.NewHash(commit)
}
