package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chainedHook is a pre-commit hook that was there before git-records: it
// logs that it ran and exits with $CHAINED_EXIT.
const chainedHook = `#!/bin/sh
# the team's own pre-commit hook
echo "chained pre-commit ran" >> "$(git rev-parse --git-dir)/chained.log"
exit ${CHAINED_EXIT:-0}
`

// handEditClone is a clone with the records branch checked out, a
// pre-existing pre-commit hook, and the client hooks installed on top.
func (w *world) handEditClone(t *testing.T) string {
	t.Helper()
	dir := w.clone(t)
	hook := filepath.Join(gitDir(t, dir), "hooks", "pre-commit")
	require.NoError(t, os.WriteFile(hook, []byte(chainedHook), 0o755))
	out := mustRec(t, dir, "hooks", "install")
	assert.Contains(t, out, "pre-commit.pre-records first", "install says it chains the existing hook")
	return dir
}

// hookCommit commits what is staged plus every change, signed with key,
// running the installed hooks as a person's `git commit -a` does.
func hookCommit(t testing.TB, dir, key, msg string, env ...string) result {
	t.Helper()
	git(t, dir, "add", "-A")
	return run(t, dir, "", env, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "commit", "-q", "-S", "-m", msg)
}

// handEntry is a hand editor's log entry: op, at, agent, and nothing else.
const handEntry = `  - op: update
    at: "2030-01-02T03:04:05.000Z"
    agent: hand-editor`

// TestHandEdits commits on a checked-out records branch with the client
// hooks installed: commit-msg turns a valid edit into a record commit with
// its trailers, pre-commit stops an invalid one and says why, the team's
// own hook still runs (and can still stop a commit), and uninstall puts it
// back byte for byte.
func TestHandEdits(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.handEditClone(t)
	chainedLog := filepath.Join(gitDir(t, dir), "chained.log")

	t.Run("valid edit gets its trailers from commit-msg", func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\n\nRotation happens on every refresh."
		})
		r := hookCommit(t, dir, w.key, "Say when rotation happens")
		require.Equal(t, 0, r.code, "%s", r)
		ts := trailers(t, dir, "HEAD")
		assert.Equal(t, []string{
			"Record-Op: update",
			"Record-Id: " + w.concept,
			"Record-Agent: hand-editor",
			"Record-Format: 1",
			"Evidence-Fields: body",
		}, ts, "git interpret-trailers --parse reads the trailers commit-msg added")
		assert.Equal(t, "Say when rotation happens", strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s")))
		log, err := os.ReadFile(chainedLog)
		require.NoError(t, err, "the chained pre-commit hook ran")
		assert.Equal(t, "chained pre-commit ran\n", string(log))

		mustRec(t, dir, "verify", "HEAD~1..HEAD")
		r = push(t, dir, "records")
		require.Equal(t, 0, r.code, "the hand edit passes pre-push and the server:\n%s", r)
		assert.Equal(t, revParse(t, dir, "HEAD"), w.serverTip(t))
	})

	t.Run("valid edit with its evidence in the log entry", func(t *testing.T) {
		edit(t, recordFile(t, dir, w.finding), func(s string) string {
			s = replace(t, s, "title: Refresh without rotation", "title: Refresh never rotates")
			return appendLog(t, s, "  - op: update\n    at: \"2030-01-02T03:04:05.000Z\"\n    agent: hand-editor\n    note: clearer title\n    evidence:\n      fields: [title]")
		})
		r := hookCommit(t, dir, w.key, "Retitle the finding")
		require.Equal(t, 0, r.code, "%s", r)
		ts := trailers(t, dir, "HEAD")
		assert.Contains(t, ts, "Record-Op: update")
		assert.Contains(t, ts, "Record-Id: "+w.finding)
		assert.Contains(t, ts, "Evidence-Fields: title")
		mustRec(t, dir, "verify", "HEAD~1..HEAD")
	})

	t.Run("an editor's final newline is not a body change", func(t *testing.T) {
		file := recordFile(t, dir, w.concept)
		edit(t, file, func(s string) string {
			require.False(t, strings.HasSuffix(s, "\n"), "the body has no final newline yet")
			s = replace(t, s, "title: Token refresh", "title: Token refresh and rotation")
			return appendLog(t, s, handEntry) + "\n" // as vi saves it
		})
		r := hookCommit(t, dir, w.key, "Retitle in an editor")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Equal(t, []string{"title"}, trailerValues(trailers(t, dir, "HEAD"), "Evidence-Fields"))
		mustRec(t, dir, "verify", "HEAD~1..HEAD")
		// And an editor that strips it again, with a tag added by hand.
		edit(t, file, func(s string) string {
			s = replace(t, s, "mutation_log:", "tags: [rotation]\nmutation_log:")
			return strings.TrimSuffix(appendLog(t, s, handEntry), "\n")
		})
		r = hookCommit(t, dir, w.key, "Tag it")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Equal(t, []string{"tags"}, trailerValues(trailers(t, dir, "HEAD"), "Evidence-Fields"))
		mustRec(t, dir, "verify", "HEAD~1..HEAD")
	})

	t.Run("a message line that starts with # is kept", func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\nIssue 42."
		})
		r := hookCommit(t, dir, w.key, "#42: say what rotation means\n\n# is how the tracker links issues.")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Equal(t, "#42: say what rotation means", strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s")))
		assert.Contains(t, git(t, dir, "log", "-1", "--format=%b"), "# is how the tracker links issues.\n")
		assert.Contains(t, trailers(t, dir, "HEAD"), "Record-Op: update")
		mustRec(t, dir, "verify", "HEAD~1..HEAD")
	})

	t.Run("an edited message: comments and the scissors line go, trailers stay", func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\nFrom the editor."
		})
		git(t, dir, "add", "-A")
		editor := filepath.Join(t.TempDir(), "editor.sh")
		require.NoError(t, os.WriteFile(editor, []byte("#!/bin/sh\n{ echo 'Written in the editor'; echo; cat \"$1\"; } > \"$1.new\" && mv \"$1.new\" \"$1\"\n"), 0o755))
		r := run(t, dir, "", []string{"GIT_EDITOR=" + editor}, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+w.key, "commit", "-q", "-S", "-v")
		require.Equal(t, 0, r.code, "%s", r)
		msg := git(t, dir, "log", "-1", "--format=%B")
		assert.True(t, strings.HasPrefix(msg, "Written in the editor\n\nRecord-Op: update\n"), "%q", msg)
		assert.NotContains(t, msg, "#")
		assert.NotContains(t, msg, "diff --git")
		mustRec(t, dir, "verify", "HEAD~1..HEAD")
	})

	t.Run("message that already has trailers is left alone", func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\nMore."
		})
		msg := w.updateMsg()
		r := hookCommit(t, dir, w.key, msg)
		require.Equal(t, 0, r.code, "%s", r)
		assert.Equal(t, msg, strings.TrimRight(git(t, dir, "log", "-1", "--format=%B"), "\n")+"\n")
		mustRec(t, dir, "verify", "HEAD~1..HEAD")
	})

	invalid := []struct {
		name  string
		edit  func(t *testing.T)
		rule  string
		says  string
		extra string
	}{
		{"broken YAML", func(t *testing.T) {
			edit(t, recordFile(t, dir, w.concept), func(s string) string {
				return appendLog(t, replace(t, s, "title: Token refresh", "title: [Token refresh"), handEntry)
			})
		}, "record", "frontmatter: yaml: line", "fix the file so it parses"},
		{"changed created_at", func(t *testing.T) {
			edit(t, recordFile(t, dir, w.concept), func(s string) string {
				i := strings.Index(s, "created_at: ")
				return appendLog(t, s[:i]+`created_at: "2001-01-01T00:00:00.000Z"`+s[i+strings.Index(s[i:], "\n"):], handEntry)
			})
		}, "immutable", "created_at of record " + w.concept + " changed", ""},
		{"deleted record", func(t *testing.T) {
			require.NoError(t, os.Remove(recordFile(t, dir, w.finding)))
		}, "no-delete", "record " + w.finding + " is deleted", "retire or supersede it instead"},
		{"change without a log entry", func(t *testing.T) {
			edit(t, recordFile(t, dir, w.concept), func(s string) string { return s + "\nUnlogged." })
		}, "mutation-log", "record " + w.concept + " changes without a new mutation log entry", "appends a mutation log entry"},
		{"rewritten log entry", func(t *testing.T) {
			edit(t, recordFile(t, dir, w.concept), func(s string) string {
				return appendLog(t, replace(t, s, "agent: reviewer-bot", "agent: someone-else"), handEntry)
			})
		}, "mutation-log", "mutation log of " + w.concept + " was rewritten", ""},
		{"record at the wrong path", func(t *testing.T) {
			from := recordFile(t, dir, w.finding)
			shard := "00"
			if filepath.Base(filepath.Dir(from)) == shard {
				shard = "01"
			}
			to := filepath.Join(dir, "records", "review.finding", shard, filepath.Base(from))
			require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
			require.NoError(t, os.Rename(from, to))
		}, "layout", "is not a record path", ""},
	}
	for _, c := range invalid {
		t.Run("pre-commit stops "+c.name, func(t *testing.T) {
			head := revParse(t, dir, "HEAD")
			c.edit(t)
			r := hookCommit(t, dir, w.key, "hand edit: "+c.name)
			require.NotEqual(t, 0, r.code, "the commit must be stopped:\n%s", r)
			assert.Regexp(t, `(?m)^git-records: commit rejected: \d+ violations`, r.stderr)
			assert.Contains(t, r.stderr, "✗ ["+c.rule+"] staged", "names the rule:\n%s", r)
			assert.Contains(t, r.stderr, c.says, "%s", r)
			assert.Contains(t, r.stderr, c.extra, "%s", r)
			assert.Contains(t, r.stderr, "fix: ", "says how to fix it:\n%s", r)
			assert.Equal(t, head, revParse(t, dir, "HEAD"), "nothing was committed")
			git(t, dir, "reset", "-q", "--hard")
			git(t, dir, "clean", "-qfd")
		})
	}

	t.Run("the chained hook's failure stops a valid commit", func(t *testing.T) {
		head := revParse(t, dir, "HEAD")
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\nStill valid."
		})
		r := hookCommit(t, dir, w.key, "valid, but the team hook says no", "CHAINED_EXIT=1")
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Equal(t, head, revParse(t, dir, "HEAD"))
		git(t, dir, "reset", "-q", "--hard")
	})

	t.Run("pre-push stops an unsigned commit before it leaves", func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\nUnsigned."
		})
		git(t, dir, "add", "-A")
		r := run(t, dir, "", nil, "git", "commit", "-q", "--no-gpg-sign", "-m", "unsigned hand edit")
		require.Equal(t, 0, r.code, "pre-commit and commit-msg pass; the signature is judged on push:\n%s", r)
		serverBefore := w.serverTip(t)
		r = push(t, dir, "records")
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stderr, "error: failed to push some refs")
		assert.Regexp(t, `(?m)^  ✗ \[signature\] [0-9a-f]{12}: commit is not signed`, r.stderr, "pre-push judged it locally:\n%s", r)
		assert.NotContains(t, r.stderr, "remote:", "the server never saw it:\n%s", r)
		assert.Equal(t, serverBefore, w.serverTip(t))
		git(t, dir, "reset", "-q", "--hard", "HEAD~1")
	})

	t.Run("pre-push judges the remote ref, whatever the local name", func(t *testing.T) {
		serverBefore := w.serverTip(t)
		git(t, dir, "checkout", "-q", "-b", "scratch")
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\nUnsigned, from a scratch branch."
		})
		git(t, dir, "add", "-A")
		require.Equal(t, 0, run(t, dir, "", nil, "git", "commit", "-q", "--no-gpg-sign", "-m", "unsigned").code)
		sha := revParse(t, dir, "HEAD")
		for _, src := range []string{sha, "HEAD", "scratch"} {
			r := push(t, dir, src+":refs/heads/records")
			require.NotEqual(t, 0, r.code, "%s", r)
			assert.Regexp(t, `(?m)^  ✗ \[signature\] [0-9a-f]{12}: commit is not signed`, r.stderr, "pushing %s:records\n%s", src, r)
			assert.NotContains(t, r.stderr, "remote:", "%s", r)
		}
		r := push(t, dir, ":records")
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stderr, "✗ [history]", "deleting the remote records branch is stopped before it leaves:\n%s", r)
		assert.NotContains(t, r.stderr, "remote:", "%s", r)
		assert.Equal(t, serverBefore, w.serverTip(t))
		git(t, dir, "checkout", "-q", "records")
	})

	t.Run("uninstall restores the chained hook byte for byte", func(t *testing.T) {
		hooksDir := filepath.Join(gitDir(t, dir), "hooks")
		out := mustRec(t, dir, "hooks", "uninstall")
		assert.Contains(t, out, "pre-commit")
		data, err := os.ReadFile(filepath.Join(hooksDir, "pre-commit"))
		require.NoError(t, err)
		assert.Equal(t, chainedHook, string(data))
		st, err := os.Stat(filepath.Join(hooksDir, "pre-commit"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o755), st.Mode().Perm())
		for _, name := range []string{"commit-msg", "pre-push", "pre-commit.pre-records"} {
			assert.NoFileExists(t, filepath.Join(hooksDir, name))
		}
		// Without our hooks a broken record commits: git-records no longer judges it.
		edit(t, recordFile(t, dir, w.concept), func(s string) string { return s + "\nUnlogged." })
		r := hookCommit(t, dir, w.key, "unlogged edit")
		require.Equal(t, 0, r.code, "%s", r)
	})
}

// TestHooksInstall covers install's bookkeeping: installing twice keeps one
// chained hook, a clash with a leftover .pre-records is refused, and
// core.hooksPath is honoured.
func TestHooksInstall(t *testing.T) {
	t.Parallel()
	dir := initStore(t)
	hooks := filepath.Join(gitDir(t, dir), "hooks")
	require.NoError(t, os.MkdirAll(hooks, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(hooks, "pre-push"), []byte(chainedHook), 0o755))
	mustRec(t, dir, "hooks", "install")
	mustRec(t, dir, "hooks", "install")
	data, err := os.ReadFile(filepath.Join(hooks, "pre-push.pre-records"))
	require.NoError(t, err, "the existing hook is kept once")
	assert.Equal(t, chainedHook, string(data))
	script, err := os.ReadFile(filepath.Join(hooks, "pre-push"))
	require.NoError(t, err)
	assert.Contains(t, string(script), "# installed by git-records")
	assert.Contains(t, string(script), binPath, "the script names the binary that installed it")
	mustRec(t, dir, "hooks", "uninstall")
	data, err = os.ReadFile(filepath.Join(hooks, "pre-push"))
	require.NoError(t, err)
	assert.Equal(t, chainedHook, string(data))

	// A leftover <hook>.pre-records next to a foreign hook: refuse rather
	// than lose either.
	require.NoError(t, os.WriteFile(filepath.Join(hooks, "pre-push.pre-records"), []byte("#!/bin/sh\n"), 0o755))
	r := rec(t, dir, "hooks", "install")
	assert.Equal(t, 2, r.code, "%s", r)
	assert.Contains(t, r.stderr, "move one away")
	require.NoError(t, os.Remove(filepath.Join(hooks, "pre-push.pre-records")))

	// core.hooksPath, relative to the work tree, as git reads it.
	git(t, dir, "config", "core.hooksPath", ".githooks")
	out := mustRec(t, dir, "hooks", "install")
	assert.Contains(t, out, filepath.Join(dir, ".githooks", "pre-commit"))
	assert.FileExists(t, filepath.Join(dir, ".githooks", "commit-msg"))
}
