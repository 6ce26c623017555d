package root

// The cross-command tests: what several commands do to one store together
// (derived state rebuilt by every read, the audit every write leaves, the
// log of what the others wrote, compaction and import seen by the reads).
// Each command runs in-process under the root main builds for it
// (NewCmdRootFor), exactly as one run of the binary would (the same flags,
// error envelope and exit codes; a fresh Factory and store per command, so
// nothing is remembered between them), over real repositories in
// t.TempDir() checked with real git. They used to run the binary once per
// command in cmd/git-records, ~30 ms of start-up each; the black-box tests
// there keep what only a whole process shows.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// Identity of the test user, from $HOME/.gitconfig (cmdtest.Main).
const userEmail = cmdtest.UserEmail

type obj = map[string]any

// result is what one run of a command did.
type result = cmdtest.Result

// recIn runs git-records args in dir ("" is the test's working directory)
// with stdin, in-process under the root the binary builds for args
// (NewCmdRootFor, as main does: the one command args name, else the whole
// tree), so that the refusals, exit codes and golden reads tested here
// are the binary's.
func recIn(t testing.TB, dir, stdin string, args ...string) result {
	t.Helper()
	return cmdtest.InProcess(Main, dir, stdin, args...)
}

// rec runs git-records args in dir.
func rec(t testing.TB, dir string, args ...string) result {
	t.Helper()
	return recIn(t, dir, "", args...)
}

// mustRec runs git-records args in dir and fails the test unless it exits 0.
func mustRec(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := rec(t, dir, args...)
	require.Equal(t, 0, r.Code, "git-records %q:\n%s", args, r)
	return r.Stdout
}

// jsonOf decodes a command's --json output.
func jsonOf[T any](t testing.TB, r result) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &v), "stdout is not the expected JSON:\n%s", r)
	return v
}

// mustJSON runs git-records --json args in dir, requires exit 0 and decodes
// stdout.
func mustJSON[T any](t testing.TB, dir string, args ...string) T {
	t.Helper()
	r := rec(t, dir, append([]string{"--json"}, args...)...)
	require.Equal(t, 0, r.Code, "git-records --json %q:\n%s", args, r)
	return jsonOf[T](t, r)
}

// requireError checks a refused command: the exit code, and with --json
// exactly one error envelope on stdout carrying code and a message.
func requireError(t testing.TB, r result, code string, exit int) map[string]any {
	t.Helper()
	require.Equal(t, exit, r.Code, "exit code for %s:\n%s", code, r)
	dec := json.NewDecoder(strings.NewReader(r.Stdout))
	var env struct {
		Error map[string]any `json:"error"`
	}
	require.NoError(t, dec.Decode(&env), "stdout is not an error envelope:\n%s", r)
	require.False(t, dec.More(), "more than one JSON value on stdout:\n%s", r)
	require.NotNil(t, env.Error, "no \"error\" key:\n%s", r)
	assert.Equal(t, code, env.Error["code"], "error code:\n%s", r)
	msg, _ := env.Error["message"].(string)
	assert.NotEmpty(t, strings.TrimSpace(msg), "error message:\n%s", r)
	return env.Error
}

// newRepo makes a repository with an initialized records store and its own
// signing key, as a user would: git init, git records init --generate-key.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := cmdtest.NewRepo(t).Dir
	mustRec(t, dir, "init", "--generate-key")
	return dir
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

// git runs the real git in dir and fails the test unless it exits 0; its
// stdout, untrimmed.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gitIn(t, dir, "", args...)
}

// gitIn is git with stdin.
func gitIn(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), "git %q: %s", args, errOut.String())
	return out.String()
}

// tip is the commit the records branch points at, "" when there is none.
func tip(t testing.TB, dir string) string {
	t.Helper()
	out, _ := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "refs/heads/records").Output()
	return strings.TrimSpace(string(out))
}

// storeState is what must not change when an op is refused: the ref, its
// reflog and every file in the object store (loose objects and packs).
type storeState struct {
	Tip, Reflog string
	Objects     []string
}

func stateOf(t testing.TB, dir string) storeState {
	t.Helper()
	gitDir := filepath.Join(dir, ".git")
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
	return storeState{Tip: testenv.RefValue(gitDir, "refs/heads/records"), Reflog: string(reflog), Objects: objects}
}

// parsedTrailers is `git interpret-trailers --parse` of a commit's message:
// what a reviewer or a hook reading with git sees.
func parsedTrailers(t testing.TB, dir, commit string) []string {
	t.Helper()
	msg := git(t, dir, "log", "-1", "--format=%B", commit)
	out := gitIn(t, dir, msg, "interpret-trailers", "--parse")
	return strings.Split(strings.TrimSpace(out), "\n")
}
