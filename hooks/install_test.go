package hooks_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInstallSaysWhatItCommits: hooks install commits .gitattributes to
// the records branch, and says so (it used to do so silently).
func TestInstallSaysWhatItCommits(t *testing.T) {
	t.Parallel()
	dir := initStore(t)
	before := revParse(t, dir, "records")
	out := mustRec(t, dir, "hooks", "install")
	after := revParse(t, dir, "records")
	require.NotEqual(t, before, after, "install commits the merge-driver entry")
	assert.Contains(t, out, "committed .gitattributes to refs/heads/records ("+after[:12]+")")
	out = mustRec(t, dir, "hooks", "install")
	assert.NotContains(t, out, "committed", "a second install commits nothing")
	assert.Equal(t, after, revParse(t, dir, "records"))
}

// TestInstallSignsHandEdits: in a worktree with the records branch checked
// out, hooks install makes a plain `git commit` sign with the key
// git-records signs with, so a hand edit pushes. A user's own signing
// setting is never overwritten: install says what to run instead.
func TestInstallSignsHandEdits(t *testing.T) {
	t.Parallel()
	w := newWorld(t)

	t.Run("a plain git commit signs with the store's key", func(t *testing.T) {
		dir := w.clone(t)
		out := mustRec(t, dir, "hooks", "install")
		assert.Contains(t, out, "git commit here signs with "+w.key)
		w.editBody(t, dir)
		git(t, dir, "add", "-A")
		r := run(t, dir, "", nil, "git", "commit", "-q", "-m", "Edit by hand")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Contains(t, git(t, dir, "cat-file", "commit", "HEAD"), "gpgsig -----BEGIN SSH SIGNATURE-----", "the hand commit is signed")
		r = push(t, dir, "records")
		require.Equal(t, 0, r.code, "the signed hand edit is accepted:\n%s", r)
	})

	t.Run("a user's own signing key is kept", func(t *testing.T) {
		dir := w.clone(t)
		git(t, dir, "config", "user.signingkey", carolKey)
		out := mustRec(t, dir, "hooks", "install")
		assert.Equal(t, carolKey, strings.TrimSpace(git(t, dir, "config", "user.signingkey")), "never overwritten")
		assert.Contains(t, out, "user.signingkey is set to "+carolKey)
		assert.Contains(t, out, "git -c gpg.format=ssh -c user.signingkey="+w.key+" commit -S")
	})

	t.Run("a linked worktree on the records branch is set up alone", func(t *testing.T) {
		dir := w.cliClone(t) // HEAD detached: the main worktree commits code
		wt := filepath.Join(t.TempDir(), "records-wt")
		git(t, dir, "worktree", "add", "-q", wt, "records")
		out := mustRec(t, wt, "hooks", "install")
		assert.Contains(t, out, "git commit here signs with "+w.key)
		assert.Equal(t, w.key, strings.TrimSpace(git(t, wt, "config", "user.signingkey")))
		r := run(t, dir, "", nil, "git", "config", "user.signingkey")
		assert.Equal(t, 1, r.code, "the main worktree keeps no signing key of the store's:\n%s", r)
	})
}
