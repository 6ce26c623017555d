package hooks_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/kernel"
)

// world is a records store as a team runs it: the maintainer's repository
// (origin) with a concept, a review finding proposing a change to it, carol
// allowed to sign as a contributor under testdata/hooks/policy.yaml, and a
// bare server with the server hooks installed that origin has pushed to.
type world struct {
	origin  string // the maintainer's repository
	key     string // the maintainer's signing key (init --generate-key)
	server  string // bare repository with pre-receive and update installed
	concept string // concept record, eng.auth
	finding string // review.finding record proposing a change to concept
}

// initStore makes a repository with a records store and its own signing key.
func initStore(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "origin")
	git(t, "", "init", "-q", dir)
	mustRec(t, dir, "init", "--generate-key")
	return dir
}

// newWorld is a world of the test's own: a copy of one world built once per
// package (buildWorld), made by copying its two repositories, which costs no
// process where building one costs a dozen (git-records init, the record
// ops, the hooks install and a push through the server hooks). Every world
// is then the same store with the same ids and keys, as if built afresh.
func newWorld(t testing.TB) *world {
	t.Helper()
	tmpl := worldTemplate(t)
	root := t.TempDir()
	require.NoError(t, testenv.CopyTree(tmpl.root, root))
	w := tmpl.w
	w.origin = filepath.Join(root, "origin")
	w.server = filepath.Join(root, "server.git")
	w.key = filepath.Join(w.origin, ".git", "records", "signing_key")
	return &w
}

type template struct {
	root  string // holds origin/ and server.git/
	w     world
	state string // refState of its server
}

var (
	templateOnce  sync.Once
	templateWorld *template
)

// worldTemplate builds the world every test copies, once; the first test
// to ask builds it and reports its failure, the others fail naming it.
func worldTemplate(t testing.TB) *template {
	t.Helper()
	templateOnce.Do(func() {
		root := filepath.Join(tmpRoot, "world")
		w := buildWorld(t, root)
		templateWorld = &template{root: root, w: *w, state: refState(t, w.server)}
	})
	if templateWorld == nil {
		t.Fatal("the world template could not be built: see the first test that failed")
	}
	return templateWorld
}

// buildWorld makes a world under root: root/origin and root/server.git.
func buildWorld(t testing.TB, root string) *world {
	t.Helper()
	w := &world{origin: filepath.Join(root, "origin")}
	git(t, "", "init", "-q", w.origin)
	mustRec(t, w.origin, "init", "--generate-key")
	w.key = filepath.Join(gitDir(t, w.origin), "records", "signing_key")
	w.concept = create(t, w.origin, "--type", "concept", "--title", "Token refresh", "--category", "eng.auth",
		"--agent", "alice", "--body", "Refresh tokens rotate on use.")
	w.finding = create(t, w.origin, "--type", "review.finding", "--title", "Refresh without rotation", "--category", "eng.auth",
		"--agent", "reviewer-bot", "--body", "PR 42 refreshes without rotating. See [["+w.concept+"]].")
	mustRec(t, w.origin, "propose", w.concept, "--proposer", w.finding, "--proposal", "rotate on every refresh", "--agent", "reviewer-bot")
	mustRec(t, w.origin, "signers", "add", carol, carolKey+".pub", "--rationale", "carol reviews auth", "--agent", userEmail)
	mustRec(t, w.origin, "policy", "set", fixturePath(t, "policy.yaml"), "--rationale", "carol contributes, the test user maintains", "--agent", userEmail)

	w.server = filepath.Join(root, "server.git")
	git(t, "", "init", "-q", "--bare", w.server)
	mustRec(t, w.server, "hooks", "install", "--server")
	r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "the valid records branch must push:\n%s", r)
	return w
}

// clone checks the server's records branch out in a new working tree, for
// hand edits.
func (w *world) clone(t testing.TB) string {
	t.Helper()
	return w.cloneWith(t, "records.signingKey="+w.key)
}

// cloneWith is clone with config set by git clone itself (-c). A clone of
// a server whose refs are as they were at an earlier clone with the same
// config is a copy of that clone as git clone left it (cloneCache): the
// same files, without a git clone, git-upload-pack through sh and git
// maintenance (four processes). Refs a push moved make a real git clone.
func (w *world) cloneWith(t testing.TB, config ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	root := filepath.Dir(w.server) + string(filepath.Separator)
	tmpl := worldTemplate(t)
	state := refState(t, w.server)
	key, from := w.server+"\x00"+state, root
	if state == tmpl.state {
		// Every world starts as a copy of the template: its clones are
		// the template's, in the template's paths.
		key, from = "template\x00", tmpl.root+string(filepath.Separator)
	}
	cfg := make([]string, len(config))
	for i, c := range config {
		cfg[i] = strings.ReplaceAll(c, root, from)
	}
	key += strings.Join(cfg, "\x00")

	clonesMu.Lock()
	src, ok := clones[key]
	clonesMu.Unlock()
	if !ok {
		gitClone(t, w.server, dir, config)
		src = filepath.Join(tmpRoot, "clones", fmt.Sprint(cloneSeq.Add(1)))
		require.NoError(t, testenv.CopyTree(dir, src))
		if from != root {
			rewriteConfig(t, src, root, from)
		}
		clonesMu.Lock()
		clones[key] = src
		clonesMu.Unlock()
		return dir
	}
	require.NoError(t, testenv.CopyTree(src, dir))
	if from != root {
		rewriteConfig(t, dir, from, root)
	}
	return dir
}

// rewriteConfig rewrites the paths under world root from in a clone's
// config (remote.origin.url, records.signingKey) to paths under to.
func rewriteConfig(t testing.TB, dir, from, to string) {
	t.Helper()
	cfg := filepath.Join(dir, ".git", "config")
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, []byte(strings.ReplaceAll(string(data), from, to)), 0o644))
}

// gitClone clones server's records branch into dir, config set by git
// clone itself (-c), one process.
func gitClone(t testing.TB, server, dir string, config []string) {
	t.Helper()
	args := []string{"clone", "-q", "-b", "records"}
	for _, c := range config {
		args = append(args, "-c", c)
	}
	git(t, "", append(args, server, dir)...)
}

var (
	clonesMu sync.Mutex
	clones   = map[string]string{} // server, its refs and the config → a clone as git clone made it
	cloneSeq atomic.Int64
)

// refState is what a clone takes from a repository's refs: HEAD, the
// packed refs and every loose ref, name and value.
func refState(t testing.TB, gitDir string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range []string{"HEAD", "packed-refs"} {
		data, err := os.ReadFile(filepath.Join(gitDir, f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s\x00%s\x00", f, data)
	}
	refs := filepath.Join(gitDir, "refs")
	require.NoError(t, filepath.WalkDir(refs, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(refs, path)
		fmt.Fprintf(&b, "%s\x00%s\x00", rel, data)
		return err
	}))
	return b.String()
}

// cliClone is a clone for git-records commands: the CLI refuses to move a
// branch that is checked out, so HEAD is detached.
func (w *world) cliClone(t testing.TB) string {
	t.Helper()
	dir := w.clone(t)
	git(t, dir, "checkout", "-q", "--detach")
	return dir
}

// carolClone is a clone whose git-records signs with carol's key (HEAD
// detached, as for cliClone).
func (w *world) carolClone(t testing.TB) string {
	t.Helper()
	dir := w.cloneWith(t, "user.email="+carol, "user.name=Carol", "records.signingKey="+carolKey)
	git(t, dir, "checkout", "-q", "--detach")
	return dir
}

// recordFile is the path of a record's file in a working tree.
func recordFile(t testing.TB, dir, id string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "records", "*", "*", id+".md"))
	require.NoError(t, err)
	require.Len(t, m, 1, "file of record %s in %s", id, dir)
	return m[0]
}

// edit rewrites a file through f, which must change it.
func edit(t testing.TB, path string, f func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	out := f(string(data))
	require.NotEqual(t, string(data), out, "edit of %s changed nothing", path)
	require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
}

// appendLog adds a mutation_log entry (YAML lines, indented as the codec
// writes them) at the end of a record file's frontmatter.
func appendLog(t testing.TB, file, entry string) string {
	t.Helper()
	end := strings.Index(file[4:], "\n---\n")
	require.Positive(t, end, "no closing delimiter in\n%s", file)
	end += 4
	return file[:end] + "\n" + strings.TrimRight(entry, "\n") + file[end:]
}

// replace is strings.Replace that insists on a match.
func replace(t testing.TB, s, old, new string) string {
	t.Helper()
	require.Contains(t, s, old)
	return strings.Replace(s, old, new, 1)
}

// updateEntry is the log entry a hand edit of the body appends.
const updateEntry = `  - op: update
    at: "2030-01-02T03:04:05.000Z"
    agent: hand-editor
    evidence:
      fields: [body]`

// editBody makes the hand edit every push case starts from: the concept's
// body changes and its log gets an update entry.
func (w *world) editBody(t testing.TB, dir string) {
	t.Helper()
	edit(t, recordFile(t, dir, w.concept), func(s string) string {
		return appendLog(t, s, updateEntry) + "\n\nEdited by hand."
	})
}

// handMsg is a record commit message: subject, then the trailer block.
func handMsg(subject string, trailers ...string) string {
	return subject + "\n\n" + strings.Join(trailers, "\n") + "\n"
}

// updateMsg is the message git-records would write for editBody.
func (w *world) updateMsg(extra ...string) string {
	return handMsg("update(concept): Token refresh", append([]string{
		"Record-Op: update", "Record-Id: " + w.concept, "Record-Agent: hand-editor", "Record-Format: 1",
		"Evidence-Fields: body"}, extra...)...)
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
	return revParse(t, dir, "HEAD")
}

// push pushes from a clone to the server (origin); the server's hooks judge it.
func push(t testing.TB, dir string, args ...string) result {
	t.Helper()
	return run(t, dir, "", nil, "git", append([]string{"push", "origin"}, args...)...)
}

// requireRejected checks that the server refused a push and that its
// `remote:` output names the rule and says what broke it.
func requireRejected(t testing.TB, r result, rule, says string) {
	t.Helper()
	require.NotEqual(t, 0, r.code, "push must be rejected by [%s]:\n%s", rule, r)
	assert.Regexp(t, `\[remote rejected\] .* \((pre-receive )?hook declined\)`, r.stderr, "%s", r)
	assert.Regexp(t, ruleLine(rule), r.stderr, "the remote output names rule %s:\n%s", rule, r)
	assert.Contains(t, r.stderr, says, "%s", r)
	assert.Regexp(t, `(?m)^remote:\s+fix: \S`, r.stderr, "a rejection says how to fix it:\n%s", r)
}

// serverTip is the server's records branch ("" when it has none), read
// from the ref's file: tests ask after every push.
func (w *world) serverTip(t testing.TB) string {
	t.Helper()
	return testenv.RefValue(w.server, "refs/heads/records")
}

// mutateAs runs an op through the store's write loop in dir, without the
// policy gate: what a client that skips the gate (an old or modified
// binary) writes. The commit is signed with the key dir's git config names.
func mutateAs(t testing.TB, dir string, decide gitstore.Decision) string {
	t.Helper()
	s, err := gitstore.Open(dir, gitstore.Options{Ungated: true})
	require.NoError(t, err)
	defer s.Close()
	wr, err := s.Mutate(decide)
	require.NoError(t, err)
	require.False(t, wr.Commit.IsZero(), "the op wrote nothing")
	return wr.Commit.String()
}

// apply is the apply op on the world's concept and finding.
func (w *world) apply(agent string) gitstore.Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Apply(v, w.concept, w.finding, kernel.Evidence{Agent: agent, Rationale: "the finding is right",
			NewBody: "Refresh tokens rotate on every refresh."}, env)
	}
}
