package main

// End-to-end tests of the CLI: they run the real binary, as `git-records`
// and as `git records`, against real repositories in temporary directories,
// and check the results with git itself. No git is mocked.
//
// TestMain builds the binary once and gives every child process the same
// clean environment: HOME in a temporary directory whose .gitconfig holds
// the only identity, no system config, PATH with the binary first.
//
// To measure what the end-to-end tests cover of the binary:
//
//	GIT_RECORDS_COVERDIR=$(mktemp -d) go test ./cmd/git-records
//	go tool covdata percent -i=$GIT_RECORDS_COVERDIR

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"

	"github.com/git-records/git-records/internal/storetest"
)

// binPath is the built git-records.
var binPath string

// Identity of the test user, from $HOME/.gitconfig.
const (
	userName  = "Test User"
	userEmail = "test@example.com"
)

func TestMain(m *testing.M) {
	flag.Parse()
	testenv.Main(m, "cli", setupEnv)
}

// goEnv is the go command's caches as they were before the test HOME
// replaced the user's, for tests that run the go command (make install).
var goEnv []string

func setupEnv(tmp string) error {
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output(); err == nil {
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			if v := strings.Split(string(out), "\n"); i < len(v) && v[i] != "" {
				goEnv = append(goEnv, k+"="+v[i])
			}
		}
	}
	var flags []string
	if d := os.Getenv("GIT_RECORDS_COVERDIR"); d != "" {
		flags = []string{"-cover", "-coverpkg=github.com/git-records/git-records/..."}
		defer os.Setenv("GOCOVERDIR", d)
	}
	var err error
	binPath, err = testenv.Setup(tmp, userName, userEmail, flags...)
	return err
}

// result is what a process did.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

// execIn runs a program in dir with stdin and returns what it did. A
// process that runs for a minute is a hang and fails the test.
func execIn(t testing.TB, dir, stdin, name string, args ...string) result {
	t.Helper()
	return execEnv(t, dir, stdin, nil, name, args...)
}

// execEnv is execIn with env ("K=V") added to the test environment.
func execEnv(t testing.TB, dir, stdin string, env []string, name string, args ...string) result {
	t.Helper()
	r, err := testenv.Run(dir, stdin, env, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// rec runs git-records in dir.
func rec(t testing.TB, dir string, args ...string) result {
	t.Helper()
	return execIn(t, dir, "", "git-records", args...)
}

// recIn runs git-records in dir with stdin.
func recIn(t testing.TB, dir, stdin string, args ...string) result {
	t.Helper()
	return execIn(t, dir, stdin, "git-records", args...)
}

// mustRec runs git-records and fails the test unless it exits 0.
func mustRec(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := rec(t, dir, args...)
	require.Equal(t, 0, r.code, "git-records %q:\n%s", args, r)
	return r.stdout
}

// git runs git in dir and fails the test unless it exits 0.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := execIn(t, dir, "", "git", args...)
	require.Equal(t, 0, r.code, "git %q:\n%s", args, r)
	return r.stdout
}

// newRepo makes a repository with an initialized records store and its own
// signing key, as a user would: git init, git records init --generate-key.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", dir)
	mustRec(t, dir, "init", "--generate-key")
	return dir
}

// jsonOf decodes a command's --json output.
func jsonOf[T any](t testing.TB, r result) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), "stdout is not the expected JSON:\n%s", r)
	return v
}

// mustJSON runs git-records --json … in dir, requires exit 0 and decodes stdout.
func mustJSON[T any](t testing.TB, dir string, args ...string) T {
	t.Helper()
	r := rec(t, dir, append([]string{"--json"}, args...)...)
	require.Equal(t, 0, r.code, "git-records --json %q:\n%s", args, r)
	return jsonOf[T](t, r)
}

type obj = map[string]any

// errorEnvelope is {"error":{"code","message",…}}.
type errorEnvelope struct {
	Error map[string]any `json:"error"`
}

// requireError checks a refused command: the exit code, and with --json
// exactly one error envelope on stdout carrying code and a message.
func requireError(t testing.TB, r result, code string, exit int) map[string]any {
	t.Helper()
	require.Equal(t, exit, r.code, "exit code for %s:\n%s", code, r)
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var env errorEnvelope
	require.NoError(t, dec.Decode(&env), "stdout is not an error envelope:\n%s", r)
	require.False(t, dec.More(), "more than one JSON value on stdout:\n%s", r)
	require.NotNil(t, env.Error, "no \"error\" key:\n%s", r)
	assert.Equal(t, code, env.Error["code"], "error code:\n%s", r)
	msg, _ := env.Error["message"].(string)
	assert.NotEmpty(t, strings.TrimSpace(msg), "error message:\n%s", r)
	return env.Error
}

// createID creates a record with --json and returns its id.
func createID(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out := mustJSON[obj](t, dir, append([]string{"create"}, args...)...)
	id, _ := out["id"].(string)
	require.NotEmpty(t, id, "create printed no id: %v", out)
	require.Regexp(t, `^[0-9a-f]{40}$`, out["commit"], "create names its commit")
	return id
}

// tip is the commit the records branch points at, "" when there is none.
func tip(t testing.TB, dir string) string {
	t.Helper()
	r := execIn(t, dir, "", "git", "rev-parse", "-q", "--verify", "refs/heads/records")
	return strings.TrimSpace(r.stdout)
}

// storeState is what must not change when an op is refused: the ref, its
// reflog and every file in the object store (loose objects and packs). It
// reads the files directly: the error tables take many snapshots.
type storeState struct {
	Tip, Reflog string
	Objects     []string
}

func stateOf(t testing.TB, dir string) storeState {
	t.Helper()
	gitDir := filepath.Join(dir, ".git")
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		gitDir = dir // a bare repository
	}
	require.FileExists(t, filepath.Join(gitDir, "HEAD"), "%s is not a git directory", gitDir)
	reflog, _ := os.ReadFile(filepath.Join(gitDir, "logs", "refs", "heads", "records"))
	var objects []string
	root := filepath.Join(gitDir, "objects")
	require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			objects = append(objects, rel)
		}
		return err
	}))
	sort.Strings(objects)
	return storeState{Tip: refValue(gitDir, "refs/heads/records"), Reflog: string(reflog), Objects: objects}
}

// refValue reads a ref as git stores it: the loose file, else packed-refs.
func refValue(gitDir, ref string) string {
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b))
	}
	packed, _ := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	for _, line := range strings.Split(string(packed), "\n") {
		if h, name, ok := strings.Cut(line, " "); ok && name == ref {
			return h
		}
	}
	return ""
}

// fsckClean runs git fsck and fails on anything but dangling objects, which
// lost compare-and-swap races and killed processes may leave.
func fsckClean(t testing.TB, dir string) {
	t.Helper()
	r := execIn(t, dir, "", "git", "fsck", "--strict", "--no-progress")
	require.Equal(t, 0, r.code, "git fsck:\n%s", r)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout+"\n"+r.stderr), "\n") {
		if line == "" || strings.HasPrefix(line, "dangling ") || strings.HasPrefix(line, "notice: HEAD points to an unborn branch") {
			continue
		}
		t.Errorf("git fsck reports: %s", line)
	}
}

// verifyAll checks every commit on the records branch with git itself.
func verifyAll(t testing.TB, dir string, wantCommits int) {
	t.Helper()
	storetest.VerifyAll(t, git, dir, wantCommits)
}

// opsOnBranch lists the Record-Op trailers of the records branch, newest first.
func opsOnBranch(t testing.TB, dir string) []string {
	t.Helper()
	return storetest.OpsOnBranch(t, git, dir)
}

var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
