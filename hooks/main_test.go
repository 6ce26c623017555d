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
func revParse(t testing.TB, dir, rev string) string {
	t.Helper()
	r := run(t, dir, "", nil, "git", "rev-parse", "-q", "--verify", rev+"^{commit}")
	return strings.TrimSpace(r.stdout)
}

// gitDir is dir's common git directory.
func gitDir(t testing.TB, dir string) string {
	t.Helper()
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
