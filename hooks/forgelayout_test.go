package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// hookDirRunner is a server hook as Gitea and Forgejo document theirs: it
// runs every executable file in hooks/<its name>.d/ with git's input and
// arguments, and fails when any of them fails. Written here from that
// behaviour, so the layout tests need no forge (the forge tests run Gitea).
const hookDirRunner = `#!/bin/sh
input=$(cat)
status=0
for hook in "$(dirname "$0")/$(basename "$0").d"/*; do
  [ -f "$hook" ] && [ -x "$hook" ] || continue
  printf '%s\n' "$input" | "$hook" "$@" || status=1
done
exit $status
`

// forgeOwnHook stands for the forge's own check in <hook>.d: it notes
// that it ran, so a test sees the forge's hooks still run.
func forgeOwnHook(ranFile string) string {
	return "#!/bin/sh\ncat >/dev/null\necho ran >> '" + ranFile + "'\n"
}

// makeForgeLike gives a bare repository Gitea's hook layout: pre-receive
// and update run their .d directories, which hold the forge's own hook.
// It returns the file that hook appends to each time it runs.
func makeForgeLike(t *testing.T, server string) string {
	t.Helper()
	ran := filepath.Join(t.TempDir(), "forge-hook-ran")
	for _, name := range []string{"pre-receive", "update"} {
		require.NoError(t, os.MkdirAll(filepath.Join(server, "hooks", name+".d"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(server, "hooks", name), []byte(hookDirRunner), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(server, "hooks", name+".d", "forge"), []byte(forgeOwnHook(ran)), 0o755))
	}
	return ran
}

// TestInstallIntoForgeHookDirs: in a repository with Gitea's layout,
// `hooks install --server` finds it, installs into hooks/<hook>.d/ and
// says so, and leaves the forge's own hooks byte for byte; the forge's
// hook then runs git-records, which refuses a forged push with its rule in
// the push output (once: update stays quiet next to pre-receive), accepts a
// good one, and the forge's own hook still runs. Uninstall takes only ours.
func TestInstallIntoForgeHookDirs(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	mustRec(t, w.server, "hooks", "uninstall")
	ran := makeForgeLike(t, w.server)

	installed := mustJSON[[]obj](t, w.server, "hooks", "install", "--server")
	require.Len(t, installed, 2)
	for i, name := range []string{"pre-receive", "update"} {
		want := filepath.Join(w.server, "hooks", name+".d", "git-records")
		assert.Equal(t, name, installed[i]["hook"])
		assert.Equal(t, want, installed[i]["path"], "--json says where it installed")
		assert.Equal(t, "gitea", installed[i]["forge"])
		assert.FileExists(t, want)
		data, err := os.ReadFile(filepath.Join(w.server, "hooks", name))
		require.NoError(t, err)
		assert.Equal(t, hookDirRunner, string(data), "the forge's %s is left alone", name)
	}
	assert.NoFileExists(t, filepath.Join(w.server, "hooks", "pre-receive.pre-records"))
	out := mustRec(t, w.server, "hooks", "install", "--server")
	assert.Contains(t, out, "installed "+filepath.Join(w.server, "hooks", "pre-receive.d", "git-records")+
		" (Gitea and Forgejo run it from "+filepath.Join(w.server, "hooks", "pre-receive")+")")

	before := w.serverTip(t)
	dir := w.clone(t)
	w.editBody(t, dir)
	commit(t, dir, "", w.updateMsg())
	r := push(t, dir, "records")
	requireRejected(t, r, "signature", "commit is not signed")
	assert.Equal(t, before, w.serverTip(t), "a refused push leaves the server's branch alone")
	assert.Equal(t, 1, strings.Count(r.stderr, "push rejected"), "pre-receive refuses; update stays quiet beside it:\n%s", r)

	dir = w.clone(t)
	w.editBody(t, dir)
	head := commit(t, dir, w.key, w.updateMsg())
	r = push(t, dir, "records")
	require.Equal(t, 0, r.code, "%s", r)
	assert.Equal(t, head, w.serverTip(t))
	assert.Equal(t, 1, strings.Count(r.stderr, "git-records: 1 commit verified"), "one summary a push:\n%s", r)
	data, err := os.ReadFile(ran)
	require.NoError(t, err, "the forge's own hooks ran")
	assert.Equal(t, 3, strings.Count(string(data), "ran"), "pre-receive for both pushes, update for the accepted one")

	removed := mustJSON[obj](t, w.server, "hooks", "uninstall")
	assert.ElementsMatch(t, []any{"pre-receive", "update"}, removed["removed"])
	for _, name := range []string{"pre-receive", "update"} {
		assert.NoFileExists(t, filepath.Join(w.server, "hooks", name+".d", "git-records"))
		assert.FileExists(t, filepath.Join(w.server, "hooks", name+".d", "forge"), "the forge's own hook stays")
		data, err := os.ReadFile(filepath.Join(w.server, "hooks", name))
		require.NoError(t, err)
		assert.Equal(t, hookDirRunner, string(data))
	}
}

// TestInstallRestoresForgeHook: a plain install in a forge's repository
// renamed the forge's hook to pre-receive.pre-records, where it looks for
// pre-receive.pre-records.d/ and so checks nothing. Installing again puts
// the forge's hook back in place and ours in its directory, and says so.
func TestInstallRestoresForgeHook(t *testing.T) {
	t.Parallel()
	server := filepath.Join(t.TempDir(), "server.git")
	git(t, "", "init", "-q", "--bare", server)
	makeForgeLike(t, server)
	out := mustRec(t, server, "hooks", "install", "--server", "--forge", "none")
	assert.Contains(t, out, "(runs "+filepath.Join(server, "hooks", "pre-receive.pre-records")+" first)")

	out = mustRec(t, server, "hooks", "install", "--server")
	for _, name := range []string{"pre-receive", "update"} {
		data, err := os.ReadFile(filepath.Join(server, "hooks", name))
		require.NoError(t, err)
		assert.Equal(t, hookDirRunner, string(data), "the forge's %s is back", name)
		assert.NoFileExists(t, filepath.Join(server, "hooks", name+".pre-records"))
		assert.FileExists(t, filepath.Join(server, "hooks", name+".d", "git-records"))
		assert.Contains(t, out, "restored "+filepath.Join(server, "hooks", name)+", the forge's own hook")
	}
}

// TestInstallForGitLab: --forge gitlab installs into the repository's
// custom_hooks/<hook>.d/, the layout GitLab runs (and gitaly hooks set
// takes as a tarball), and touches nothing in hooks/. A later install
// finds the layout by itself; uninstall removes what it made.
func TestInstallForGitLab(t *testing.T) {
	t.Parallel()
	server := filepath.Join(t.TempDir(), "server.git")
	git(t, "", "init", "-q", "--bare", server)
	entries, err := os.ReadDir(filepath.Join(server, "hooks"))
	require.NoError(t, err)

	out := mustRec(t, server, "hooks", "install", "--server", "--forge", "gitlab")
	for _, name := range []string{"pre-receive", "update"} {
		path := filepath.Join(server, "custom_hooks", name+".d", "git-records")
		st, err := os.Stat(path)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&0o100, "%s is executable", path)
		assert.Contains(t, out, "installed "+path+" (GitLab runs it")
		assert.NoFileExists(t, filepath.Join(server, "hooks", name))
	}
	after, err := os.ReadDir(filepath.Join(server, "hooks"))
	require.NoError(t, err)
	assert.Len(t, after, len(entries), "hooks/ is untouched")

	installed := mustJSON[[]obj](t, server, "hooks", "install", "--server")
	require.Len(t, installed, 2)
	assert.Equal(t, "gitlab", installed[0]["forge"], "custom_hooks/ is found")

	mustRec(t, server, "hooks", "uninstall")
	assert.NoDirExists(t, filepath.Join(server, "custom_hooks"), "what install made is gone")
}

// TestInstallForgeRefusals: --forge gitea where no hook would run the
// directory is refused before anything is written (a hook nobody runs
// judges nothing); --forge needs --server and a known name; a plain bare
// repository still gets plain hooks.
func TestInstallForgeRefusals(t *testing.T) {
	t.Parallel()
	server := filepath.Join(t.TempDir(), "server.git")
	git(t, "", "init", "-q", "--bare", server)

	r := rec(t, server, "--json", "hooks", "install", "--server", "--forge", "gitea")
	require.NotEqual(t, 0, r.code, "%s", r)
	assert.Contains(t, r.stdout+r.stderr, string(kernel.CodeUsage))
	assert.Contains(t, r.stdout+r.stderr, "--forge")
	assert.NoDirExists(t, filepath.Join(server, "hooks", "pre-receive.d"), "nothing half-written")

	for _, args := range [][]string{{"--forge", "gitea"}, {"--server", "--forge", "bitbucket"}} {
		r := rec(t, server, append([]string{"--json", "hooks", "install"}, args...)...)
		require.NotEqual(t, 0, r.code, "%q: %s", args, r)
		assert.Contains(t, r.stdout+r.stderr, string(kernel.CodeUsage), "%q", args)
		assert.Contains(t, r.stdout+r.stderr, "--forge", "%q", args)
	}

	mustRec(t, server, "hooks", "install", "--server")
	assert.FileExists(t, filepath.Join(server, "hooks", "pre-receive"))
	assert.NoDirExists(t, filepath.Join(server, "hooks", "pre-receive.d"))
	assert.NoDirExists(t, filepath.Join(server, "custom_hooks"))
}
