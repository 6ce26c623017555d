//go:build forge

package forge

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
)

// The test user's identity ($HOME/.gitconfig): `git records init
// --generate-key` makes this email the principal of the maintainer's key,
// which testdata/hooks/policy.yaml makes a maintainer; carol contributes.
const (
	userName  = "Test User"
	userEmail = "test@example.com"
	carol     = "carol@example.com"
)

var (
	binPath    string // the built git-records, first on PATH
	forge      *gitea // the Gitea every test pushes to
	admin      user   // its administrator, who owns the records repositories
	carolKey   string // private key of carol, a contributor under the policy
	malloryKey string // private key listed in no allowed_signers
	policy     = filepath.Join("..", "..", "testdata", "hooks", "policy.yaml")
	checkPR    = filepath.Join("..", "..", "examples", "ci", "records-check.sh")
)

// TestMain builds Gitea (once per machine) and git-records, isolates the
// environment as every end-to-end package does, makes the keys, starts
// Gitea with its administrator, runs the tests and stops Gitea.
func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	giteaBin, staticRoot, err := giteaBuild()
	if err != nil {
		fmt.Fprintln(os.Stderr, "building Gitea:", err)
		return 2
	}
	tmp, err := os.MkdirTemp("", "git-records-forge-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(tmp)
	if err := setup(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "setting up the forge tests:", err)
		return 2
	}
	start := time.Now()
	if forge, err = startGitea(tmp, giteaBin, staticRoot); err != nil {
		fmt.Fprintln(os.Stderr, "starting Gitea:", err)
		return 2
	}
	defer forge.stop()
	tok, err := forge.adminCreate("maintainer", userEmail, "pw-"+randomHex(12))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	admin = user{name: "maintainer", email: userEmail, token: tok}
	fmt.Fprintf(os.Stderr, "gitea %s up with its administrator in %.1fs\n", forge.base, time.Since(start).Seconds())
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "the end of Gitea's log:\n%s\n", forge.logTail())
	}
	return code
}

func setup(tmp string) error {
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
	for _, p := range []*string{&policy, &checkPR} {
		if *p, err = filepath.Abs(*p); err != nil {
			return err
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

func run(t testing.TB, dir, stdin string, env []string, name string, args ...string) result {
	t.Helper()
	r, err := testenv.Run(dir, stdin, env, name, args...)
	require.NoError(t, err)
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// git runs git in dir and fails the test unless it exits 0.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := run(t, dir, "", nil, "git", args...)
	require.Equal(t, 0, r.code, "git %q:\n%s", args, r)
	return r.stdout
}

// rec runs git-records in dir and fails the test unless it exits 0.
func rec(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := run(t, dir, "", nil, binPath, args...)
	require.Equal(t, 0, r.code, "git-records %q:\n%s", args, r)
	return r.stdout
}

// create creates a record with git-records in dir and returns its id.
func create(t testing.TB, dir string, args ...string) string {
	t.Helper()
	var out struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(rec(t, dir, append([]string{"--json", "create"}, args...)...)), &out))
	require.NotEmpty(t, out.ID, "create printed no id")
	return out.ID
}

// store is the maintainer's records store, as the tests push it: a
// concept, carol allowed to sign as a contributor under the policy.
type store struct {
	dir     string // the maintainer's repository
	key     string // the maintainer's signing key (init --generate-key)
	concept string // a concept record, eng.auth
}

func newStore(t testing.TB) *store {
	t.Helper()
	s := &store{dir: filepath.Join(t.TempDir(), "origin")}
	git(t, "", "init", "-q", s.dir)
	rec(t, s.dir, "init", "--generate-key")
	s.key = filepath.Join(s.dir, ".git", "records", "signing_key")
	s.concept = create(t, s.dir, "--type", "concept", "--title", "Token refresh",
		"--category", "eng.auth", "--agent", "alice", "--body", "Refresh tokens rotate on use.")
	rec(t, s.dir, "signers", "add", carol, carolKey+".pub", "--rationale", "carol reviews auth", "--agent", userEmail)
	rec(t, s.dir, "policy", "set", policy, "--rationale", "carol contributes, the test user maintains", "--agent", userEmail)
	return s
}

// publish makes a Gitea repository for the store, installs the server
// hooks in it the way an administrator does (`git records hooks install
// --server` in its directory on Gitea's disk), and pushes the records
// branch to it over HTTP. It returns the repository's directory.
func (s *store) publish(t testing.TB, name string) string {
	t.Helper()
	dir := forge.newRepo(t, admin, name)
	out := rec(t, dir, "hooks", "install", "--server")
	for _, hook := range []string{"pre-receive", "update"} {
		assert.Contains(t, out, "installed "+filepath.Join(dir, "hooks", hook+".d", "git-records")+" (Gitea and Forgejo run it",
			"install finds Gitea's layout and says where it went")
	}
	r := run(t, s.dir, "", nil, "git", "push", forge.cloneURL(admin, admin.name, name), "records")
	require.Equal(t, 0, r.code, "the valid records branch must push:\n%s", r)
	assert.Regexp(t, `(?m)^remote: git-records: \d+ commits verified`, r.stderr, "Gitea's hook ran git-records and relayed its summary:\n%s", r)
	return dir
}

// clone clones a forge repository's records branch over HTTP as u, with
// extra git config (git clone -c).
func clone(t testing.TB, u user, name string, config ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	args := []string{"clone", "-q", "-b", "records"}
	for _, c := range config {
		args = append(args, "-c", c)
	}
	git(t, "", append(args, forge.cloneURL(u, admin.name, name), dir)...)
	return dir
}

// remoteTip is a ref on the forge, read over HTTP ("" when it has none).
func remoteTip(t testing.TB, name, ref string) string {
	t.Helper()
	out := git(t, "", "ls-remote", forge.cloneURL(admin, admin.name, name), ref)
	f := strings.Fields(out)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// recordFile is the path of a record's file in a working tree.
func recordFile(t testing.TB, dir, id string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "records", "*", "*", id+".md"))
	require.NoError(t, err)
	require.Len(t, m, 1, "file of record %s in %s", id, dir)
	return m[0]
}

// editBody is a hand edit of a record: its body changes and its mutation
// log gains the update entry that says so.
func editBody(t testing.TB, dir, id string) {
	t.Helper()
	path := recordFile(t, dir, id)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	file := string(data)
	end := strings.Index(file[4:], "\n---\n")
	require.Positive(t, end, "no closing delimiter in\n%s", file)
	end += 4
	entry := "  - op: update\n    at: \"2030-01-02T03:04:05.000Z\"\n    agent: hand-editor\n    evidence:\n      fields: [body]"
	file = file[:end] + "\n" + entry + file[end:] + "\n\nEdited by hand."
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
}

// updateMsg is the message git-records writes for editBody.
func updateMsg(id string) string {
	return "update(concept): Token refresh\n\nRecord-Op: update\nRecord-Id: " + id +
		"\nRecord-Agent: hand-editor\nRecord-Format: 1\nEvidence-Fields: body\n"
}

// commit stages everything and commits msg, signed with key ("" for an
// unsigned commit), without running any client hook.
func commit(t testing.TB, dir, key, msg string) string {
	t.Helper()
	git(t, dir, "add", "-A")
	args := []string{"commit", "-q", "--no-verify", "-F", "-"}
	if key != "" {
		args = append([]string{"-c", "gpg.format=ssh", "-c", "user.signingkey=" + key}, append(args, "-S")...)
	}
	r := run(t, dir, msg, nil, "git", args...)
	require.Equal(t, 0, r.code, "git commit:\n%s", r)
	return strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
}

// requireRefused checks that the forge refused a push and that the
// `remote:` lines it relayed name the rule, say what broke it and how to
// fix it.
func requireRefused(t testing.TB, r result, rule, says string) {
	t.Helper()
	require.NotEqual(t, 0, r.code, "push must be refused by [%s]:\n%s", rule, r)
	assert.Regexp(t, `\[remote rejected\] .* \((pre-receive )?hook declined\)`, r.stderr, "%s", r)
	assert.Regexp(t, `(?m)^remote:\s+✗ \[`+regexp.QuoteMeta(rule)+`\] `, r.stderr, "the push output names rule %s:\n%s", rule, r)
	assert.Contains(t, r.stderr, says, "%s", r)
	assert.Regexp(t, `(?m)^remote:\s+fix: \S`, r.stderr, "a refusal says how to fix it:\n%s", r)
}
