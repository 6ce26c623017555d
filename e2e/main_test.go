package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/pkg/cmd/root"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// binPath is the git-records binary TestMain builds; its directory is first
// on PATH, so `git records …` runs it too.
var binPath string

// tmpRoot is the package's temporary directory (testenv.Main's).
var tmpRoot string

// TestMain builds the binary once and gives every process the same clean
// environment: HOME in a temporary directory whose .gitconfig holds a
// default identity (each clone sets its own), no system config, none of the
// variables that point git elsewhere.
func TestMain(m *testing.M) { testenv.Main(m, "e2e", setup) }

func setup(tmp string) error {
	tmpRoot = tmp
	var err error
	binPath, err = testenv.Setup(tmp, "E2E Default", "default@example.com")
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

// runIn runs a program in dir (env "K=V" added) and reports what it did;
// it never fails a test, so goroutines may call it. A process that runs for
// two minutes is a hang: it is killed and reported as an error.
func runIn(dir string, env []string, name string, args ...string) (result, error) {
	r, err := testenv.Run(dir, "", env, name, args...)
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}, err
}

// must runs a program and fails the test unless it exits 0.
func must(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	r, err := runIn(dir, nil, name, args...)
	require.NoError(t, err)
	require.Equal(t, 0, r.code, "%s %q in %s:\n%s", name, args, dir, r)
	return r.stdout
}

// gitc runs git and returns its trimmed stdout.
func gitc(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(must(t, dir, "git", args...))
}

// rec runs git-records and returns what it did, whatever the exit code.
func rec(t testing.TB, dir string, args ...string) result {
	t.Helper()
	r, err := runIn(dir, nil, "git-records", args...)
	require.NoError(t, err)
	return r
}

// mustRec runs git-records and fails the test unless it exits 0.
func mustRec(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return must(t, dir, "git-records", args...)
}

func jsonOf[T any](t testing.TB, data string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(data), &v), "output: %s", data)
	return v
}

// record is what show --json prints, as far as these tests read it.
type record struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Category string   `json:"category"`
	Status   string   `json:"status"`
	Tags     []string `json:"tags"`
	Body     string   `json:"body"`
	Links    []struct {
		TargetID string `json:"target_id"`
		Kind     string `json:"kind"`
	} `json:"links"`
	MutationLog []struct {
		Op       string         `json:"op"`
		At       string         `json:"at"`
		Agent    string         `json:"agent"`
		Evidence map[string]any `json:"evidence"`
	} `json:"mutation_log"`
}

func show(t testing.TB, dir, id string) record {
	t.Helper()
	r := readIn(t, dir, "show", id, "--json")
	require.Equal(t, 0, r.code, "git-records show %s --json in %s:\n%s", id, dir, r)
	return jsonOf[record](t, r.stdout)
}

// readIn runs a read (show, verify) in this process, as main runs it
// (root.Run over NewCmdRootFor), in the environment every child gets. What
// these tests are about is what processes writing and syncing at once leave
// behind; a read of the result after they are done needs no process of its
// own (one costs about 30 ms of CPU and 600-700 page faults). Writes, syncs and
// anything run while others run stay processes.
func readIn(t testing.TB, dir string, args ...string) result {
	t.Helper()
	r := cmdtest.InProcess(root.Main, dir, "", args...)
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}

// clone is one user's repository. It remembers every records tip it
// published (its tip after each sync that succeeded), so a test can prove
// none of them was lost. A tip a write left before its sync is not one:
// the sync replays it on the remote's tip.
type clone struct {
	name, dir, email string

	mu   sync.Mutex
	tips []string
}

// tip is the clone's records branch ("" when it has none), read from the
// ref's file: tests ask after every command.
func (c *clone) tip() string {
	return testenv.RefValue(filepath.Join(c.dir, ".git"), "refs/heads/records")
}

// note records the clone's current tip as one it published.
func (c *clone) note() {
	if tip := c.tip(); tip != "" {
		c.mu.Lock()
		c.tips = append(c.tips, tip)
		c.mu.Unlock()
	}
}

// try runs git-records in the clone, notes the tip after a sync that
// succeeded, and returns an error unless it exits 0. Safe from goroutines.
func (c *clone) try(args ...string) (string, error) {
	r, err := runIn(c.dir, nil, "git-records", args...)
	if err != nil {
		return "", err
	}
	if r.code != 0 {
		return "", fmt.Errorf("%s: git-records %q:\n%s", c.name, args, r)
	}
	if len(args) > 0 && args[0] == "sync" {
		c.note()
	}
	return r.stdout, nil
}

func (c *clone) rec(t testing.TB, args ...string) string {
	t.Helper()
	out, err := c.try(args...)
	require.NoError(t, err)
	return out
}

// create makes a concept record and returns its id.
func (c *clone) create(t testing.TB, title, body string, extra ...string) string {
	t.Helper()
	args := append([]string{"create", "--type", "concept", "--title", title, "--category", "eng", "--agent", c.name, "--body", body}, extra...)
	return strings.TrimSpace(c.rec(t, args...))
}

func (c *clone) sync(t testing.TB) string {
	t.Helper()
	return c.rec(t, "sync")
}

// pubKey is the public half of the key init --generate-key made.
func (c *clone) pubKey(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.dir, ".git", "records", "signing_key.pub"))
	require.NoError(t, err)
	return strings.TrimSpace(string(data))
}

// world is a bare remote and clones of it, set up the way a team would:
// the first clone inits the store (with a key) and pushes; the others clone,
// sync, make keys, and the first adds their keys as signers.
type world struct {
	root, remote string
	clones       []*clone
}

func newWorld(t testing.TB, remote string, names ...string) *world {
	t.Helper()
	if remote != "" {
		return buildWorld(t, t.TempDir(), remote, names...)
	}
	return copyWorld(t, worldTemplate(t, names...))
}

// templates are the worlds with their own bare remote, built once per set
// of clone names and copied for each test (copyWorld): a copy costs no
// process, building one costs a few dozen (init, key generation, syncs).
var templates = struct {
	sync.Mutex
	byNames map[string]*template
}{byNames: map[string]*template{}}

type template struct {
	once  sync.Once
	world *world // nil when building it failed
}

// worldTemplate is the template for names, built by the first test that
// asks (which reports a failure; the others fail naming it).
func worldTemplate(t testing.TB, names ...string) *world {
	t.Helper()
	key := strings.Join(names, ",")
	templates.Lock()
	tmpl := templates.byNames[key]
	if tmpl == nil {
		tmpl = &template{}
		templates.byNames[key] = tmpl
	}
	templates.Unlock()
	tmpl.once.Do(func() {
		root, err := os.MkdirTemp(tmpRoot, "world-")
		require.NoError(t, err)
		tmpl.world = buildWorld(t, root, "", names...)
	})
	if tmpl.world == nil {
		t.Fatalf("the world template of %s could not be built: see the first test that failed", key)
	}
	return tmpl.world
}

// copyWorld is a copy of w in a directory of the test's own: the same
// remote, clones, keys, records and tips.
func copyWorld(t testing.TB, w *world) *world {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, testenv.CopyTree(w.root, root))
	c := &world{root: root, remote: filepath.Join(root, "remote.git")}
	for _, from := range w.clones {
		from.mu.Lock()
		tips := slices.Clone(from.tips)
		from.mu.Unlock()
		c.clones = append(c.clones, &clone{name: from.name, dir: filepath.Join(root, from.name), email: from.email, tips: tips})
	}
	return c
}

// buildWorld sets a world up under root, as a team would.
func buildWorld(t testing.TB, root, remote string, names ...string) *world {
	t.Helper()
	w := &world{root: root, remote: remote}
	if w.remote == "" {
		w.remote = filepath.Join(w.root, "remote.git")
		gitc(t, w.root, "init", "-q", "--bare", w.remote)
	}
	first := w.add(t, names[0], "")
	first.rec(t, "init", "--generate-key")
	gitc(t, first.dir, "remote", "add", "origin", w.remote)
	first.sync(t)
	for _, name := range names[1:] {
		c := w.add(t, name, w.remote)
		c.sync(t)
		out := c.rec(t, "init", "--generate-key")
		require.Contains(t, out, "already set up", "a clone joins the branch it fetched")
		first.rec(t, "signers", "add", c.email, c.pubKey(t), "--rationale", c.name+" joins", "--agent", first.name)
	}
	first.sync(t)
	for _, c := range w.clones[1:] {
		c.sync(t)
	}
	return w
}

// add makes a clone of url (a fresh repository when url is "") with its own
// identity.
func (w *world) add(t testing.TB, name, url string) *clone {
	t.Helper()
	c := &clone{name: name, dir: filepath.Join(w.root, name), email: strings.ToLower(name) + "@example.com"}
	if url == "" {
		gitc(t, w.root, "init", "-q", c.dir)
	} else {
		gitc(t, w.root, "clone", "-q", url, c.dir)
	}
	gitc(t, c.dir, "config", "user.name", name)
	gitc(t, c.dir, "config", "user.email", c.email)
	w.clones = append(w.clones, c)
	return c
}

func (w *world) clone(name string) *clone {
	for _, c := range w.clones {
		if c.name == name {
			return c
		}
	}
	return nil
}

// remoteTip is the remote's records branch.
func (w *world) remoteTip(t testing.TB) string {
	t.Helper()
	r, err := runIn(w.root, nil, "git", "ls-remote", w.remote, "refs/heads/records")
	require.NoError(t, err)
	require.Equal(t, 0, r.code, "%s", r)
	if f := strings.Fields(r.stdout); len(f) > 0 {
		return f[0]
	}
	return ""
}

// requireValid checks a repository the way its owner would: git fsck, git
// records verify, and every commit's signature with git itself against the
// allowed signers the store exported (a bare remote has no export: the
// branch's own file is used). git checks a signature with one ssh-keygen
// process per commit, and converged clones hold the same history, so a
// history (its tip) already found good under the same allowed signers is
// not checked again: git's answer depends on nothing else.
func requireValid(t testing.TB, dir string) {
	t.Helper()
	out, err := runIn(dir, nil, "git", "fsck", "--strict", "--no-dangling", "--no-progress")
	require.NoError(t, err)
	require.Equal(t, 0, out.code, "git fsck in %s:\n%s", dir, out)
	v := readIn(t, dir, "verify")
	require.Equal(t, 0, v.code, "git records verify in %s:\n%s", dir, v)
	signers := filepath.Join(dir, ".git", "records", "allowed_signers")
	if _, err := os.Stat(signers); err != nil {
		signers = filepath.Join(t.TempDir(), "allowed_signers")
		require.NoError(t, os.WriteFile(signers, []byte(must(t, dir, "git", "show", "refs/heads/records:.records/allowed_signers")), 0o644))
	}
	data, err := os.ReadFile(signers)
	require.NoError(t, err)
	tip := gitc(t, dir, "rev-parse", "--verify", "refs/heads/records")
	key := tip + "\x00" + string(data)
	if _, done := goodSignatures.Load(key); done {
		return
	}
	marks := gitc(t, dir, "-c", "gpg.ssh.allowedSignersFile="+signers, "log", "--format=%G? %h %s", "refs/heads/records")
	for _, line := range strings.Split(marks, "\n") {
		require.True(t, strings.HasPrefix(line, "G "), "git does not find a good signature in %s: %s", dir, line)
	}
	goodSignatures.Store(key, true)
}

// goodSignatures holds the histories (tip and allowed signers) in which git
// found every signature good.
var goodSignatures sync.Map
