package hooks_test

// End-to-end tests of verification and the hooks: real repositories in
// temporary directories, the real git-records binary, real `git commit`
// with the hooks installed and real `git push` to a bare repository whose
// pre-receive and update hooks were installed by `git records hooks install
// --server`. Nothing is mocked.
//
// TestMain builds the binary once, puts it first on PATH (so `git records`
// and the installed hook scripts run it), gives every process a clean
// environment (HOME in a temporary directory whose .gitconfig holds the only
// identity, no system config) and generates the SSH keys the tests sign
// with: carol's (a contributor's) and mallory's (a key in no allowed_signers).

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/pkg/cmd/root"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// Identity of the test user, from $HOME/.gitconfig. `git records init
// --generate-key` makes this email the principal of the store's key.
const (
	userName  = "Test User"
	userEmail = "test@example.com"
	carol     = "carol@example.com"
)

var (
	binPath    string // the built git-records
	tmpRoot    string // the package's temporary directory (testenv.Main's)
	carolKey   string // private key of carol, a contributor once the policy says so
	malloryKey string // private key listed in no allowed_signers
	testdata   = filepath.Join("..", "testdata", "hooks")
)

func TestMain(m *testing.M) { testenv.Main(m, "hooks", setupEnv) }

func setupEnv(tmp string) error {
	tmpRoot = tmp
	var err error
	if binPath, err = testenv.Setup(tmp, userName, userEmail); err != nil {
		return err
	}
	keys := filepath.Join(tmp, "keys")
	if err := os.MkdirAll(keys, 0o700); err != nil {
		return err
	}
	carolKey, malloryKey = filepath.Join(keys, "carol"), filepath.Join(keys, "mallory")
	for _, k := range []string{carolKey, malloryKey} {
		gen := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", filepath.Base(k), "-f", k)
		if out, err := gen.CombinedOutput(); err != nil {
			return fmt.Errorf("ssh-keygen: %v\n%s", err, out)
		}
	}
	return nil
}

// result is what a process did.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

// run runs a program in dir with stdin and extra environment. A process that
// runs for a minute is a hang and fails the test.
func run(t testing.TB, dir, stdin string, env []string, name string, args ...string) result {
	t.Helper()
	r, err := testenv.Run(dir, stdin, env, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// git runs git in dir and fails the test unless it exits 0.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := run(t, dir, "", nil, "git", args...)
	require.Equal(t, 0, r.code, "git %q:\n%s", args, r)
	return r.stdout
}

// rec runs git-records in dir. What these tests judge is what the server's
// hooks (the binary, run by git push) and verify make of the commits; the
// commands a client runs to write them run in-process, as main runs them
// (root.Run over NewCmdRootFor), with the environment every child gets,
// saving a process each (about 30 ms of CPU and 500-700 page faults). A
// command that records or execs its own executable (hooks install writes
// its path into the hook scripts; mcp and serve exec the server; git runs
// the merge driver in its repository) runs the binary, as does one in the
// test's own working directory (dir "").
func rec(t testing.TB, dir string, args ...string) result {
	t.Helper()
	for _, a := range append([]string{dir}, args...) {
		if a == "" || a == "hooks" || a == "mcp" || a == "serve" || a == "merge-driver" {
			return run(t, dir, "", nil, binPath, args...)
		}
	}
	r := cmdtest.InProcess(root.Main, dir, "", args...)
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// mustRec runs git-records and fails the test unless it exits 0.
func mustRec(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := rec(t, dir, args...)
	require.Equal(t, 0, r.code, "git-records %q:\n%s", args, r)
	return r.stdout
}

// mustJSON runs git-records --json … in dir, requires exit 0 and decodes stdout.
func mustJSON[T any](t testing.TB, dir string, args ...string) T {
	t.Helper()
	r := rec(t, dir, append([]string{"--json"}, args...)...)
	require.Equal(t, 0, r.code, "git-records --json %q:\n%s", args, r)
	var v T
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), "stdout is not JSON:\n%s", r)
	return v
}

type obj = map[string]any

// create creates a record and returns its id.
func create(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out := mustJSON[obj](t, dir, append([]string{"create"}, args...)...)
	id, _ := out["id"].(string)
	require.NotEmpty(t, id, "create printed no id: %v", out)
	return id
}

// revParse resolves rev in dir ("" when it does not exist).
//
// HEAD and full ref names of a plain repository (a clone's .git or a bare
// server) are read from their files, as serverTip does: the tests ask
// about 130 times a run, and each `git rev-parse` was a process. A ref file
// a test reads so names a commit: git writes only commits to HEAD and to
// the branches these tests ask about. Every other spelling (HEAD~3, a short
// name), a linked worktree and a reftable repository go to git.
func revParse(t testing.TB, dir, rev string) string {
	t.Helper()
	if h, ok := refFromFiles(dir, rev); ok {
		return h
	}
	r := run(t, dir, "", nil, "git", "rev-parse", "-q", "--verify", rev+"^{commit}")
	return strings.TrimSpace(r.stdout)
}

// refFromFiles resolves HEAD or refs/… of the plain repository at dir from
// its files (ok false when it cannot say: ask git). A ref that does not
// exist is "", as `git rev-parse -q --verify` prints nothing for it.
func refFromFiles(dir, rev string) (string, bool) {
	gd, ok := plainGitDir(dir)
	if !ok || (rev != "HEAD" && !strings.HasPrefix(rev, "refs/")) || strings.ContainsAny(rev, "~^:@{}[]*? \\") {
		return "", false
	}
	if rev == "HEAD" {
		head, err := os.ReadFile(filepath.Join(gd, "HEAD"))
		if err != nil {
			return "", false
		}
		target, sym := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
		if !sym {
			return target, isHash(target)
		}
		rev = target
	}
	h := testenv.RefValue(gd, rev)
	if strings.HasPrefix(h, "ref: ") { // a symbolic ref other than HEAD
		return "", false
	}
	return h, h == "" || isHash(h)
}

// plainGitDir is dir's git directory when dir is the top of a repository
// with the files ref backend: dir/.git, or dir itself when bare.
func plainGitDir(dir string) (string, bool) {
	gd := filepath.Join(dir, ".git")
	if fi, err := os.Stat(gd); err != nil || !fi.IsDir() {
		if !os.IsNotExist(err) {
			return "", false // a .git file: a linked worktree
		}
		gd = dir
	}
	for _, f := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(gd, f)); err != nil {
			return "", false
		}
	}
	if _, err := os.Stat(filepath.Join(gd, "reftable")); err == nil {
		return "", false
	}
	return gd, true
}

// isHash says s is a full object name.
func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// gitDir is dir's common git directory.
//
// The top of a plain repository is answered from its files (revParse
// says why); anything else asks git.
func gitDir(t testing.TB, dir string) string {
	t.Helper()
	if gd, ok := plainGitDir(dir); ok {
		return gd
	}
	d := strings.TrimSpace(git(t, dir, "rev-parse", "--git-common-dir"))
	if !filepath.IsAbs(d) {
		d = filepath.Join(dir, d)
	}
	return d
}

// trailers is what git itself reads from a commit's message:
// `git interpret-trailers --parse`, one "Key: value" per line.
func trailers(t testing.TB, dir, rev string) []string {
	t.Helper()
	msg := git(t, dir, "log", "-1", "--format=%B", rev, "--")
	r := run(t, dir, msg, nil, "git", "interpret-trailers", "--parse")
	require.Equal(t, 0, r.code, "%s", r)
	return strings.Split(strings.TrimSpace(r.stdout), "\n")
}

// trailerValues filters trailers by key.
func trailerValues(ts []string, key string) []string {
	var out []string
	for _, l := range ts {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			out = append(out, v)
		}
	}
	return out
}

// fixture reads testdata/hooks/name.
func fixture(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, name))
	require.NoError(t, err)
	return string(data)
}

// fixturePath is the absolute path of testdata/hooks/name.
func fixturePath(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(testdata, name))
	require.NoError(t, err)
	return p
}

// findingRe matches a rule's line in hook or verify output.
func ruleLine(rule string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^remote:\s+✗ \[` + regexp.QuoteMeta(rule) + `\] [0-9a-f]{12}`)
}
