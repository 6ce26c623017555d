package cmdutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestFindServer: the server next to the running binary wins, found
// through a symbolic link to it; a file there that is not executable, or
// none, falls back to PATH; with neither, NOT_INSTALLED names the install
// command.
func TestFindServer(t *testing.T) {
	install, elsewhere := t.TempDir(), t.TempDir()
	exe := filepath.Join(install, "git-records")
	require.NoError(t, os.WriteFile(exe, nil, 0o755))
	link := filepath.Join(elsewhere, "git-records")
	require.NoError(t, os.Symlink(exe, link))
	onPath := func(string) (string, error) { return "/on/path/" + ServerProgram, nil }
	nowhere := func(string) (string, error) { return "", errors.New("not found") }

	got, err := FindServer(link, onPath)
	require.NoError(t, err)
	assert.Equal(t, "/on/path/"+ServerProgram, got, "no server next to the binary")

	server := filepath.Join(install, ServerProgram)
	require.NoError(t, os.WriteFile(server, nil, 0o644))
	got, err = FindServer(link, onPath)
	require.NoError(t, err)
	assert.Equal(t, "/on/path/"+ServerProgram, got, "not executable")

	require.NoError(t, os.Chmod(server, 0o755))
	for _, from := range []string{exe, link} {
		got, err = FindServer(from, nowhere)
		require.NoError(t, err)
		assert.Equal(t, server, got, from)
	}

	_, err = FindServer(filepath.Join(elsewhere, "copy"), nowhere)
	assert.Equal(t, kernel.CodeNotInstalled, kernel.CodeOf(err))
	assert.Contains(t, err.Error(), "go install github.com/git-records/git-records/cmd/...@latest")
}

// TestFindServerRefusesAPlantedSibling: a git-records-server that someone
// who cannot replace git-records could have put beside it (writable by
// others where git-records is not; another owner, in a directory with the
// sticky bit such as /tmp) is refused with NOT_INSTALLED, never run and
// never passed over for the one on PATH.
func TestFindServerRefusesAPlantedSibling(t *testing.T) {
	install := t.TempDir()
	exe := filepath.Join(install, "git-records")
	require.NoError(t, os.WriteFile(exe, nil, 0o755))
	require.NoError(t, os.Chmod(exe, 0o755))
	server := filepath.Join(install, ServerProgram)
	require.NoError(t, os.WriteFile(server, nil, 0o755))
	onPath := func(string) (string, error) { return "/on/path/" + ServerProgram, nil }

	require.NoError(t, os.Chmod(server, 0o777))
	_, err := FindServer(exe, onPath)
	require.Error(t, err, "a world-writable server beside a git-records that is not")
	assert.Equal(t, kernel.CodeNotInstalled, kernel.CodeOf(err))
	assert.Contains(t, err.Error(), "writable by others")

	require.NoError(t, os.Chmod(server, 0o775))
	require.NoError(t, os.Chmod(exe, 0o775))
	got, err := FindServer(exe, onPath)
	require.NoError(t, err, "group-writable both: the same people can replace either")
	assert.Equal(t, server, got)

	if os.Geteuid() != 0 {
		t.Log("not root: the owner case needs chown")
		return
	}
	require.NoError(t, os.Chmod(server, 0o755))
	require.NoError(t, os.Chown(server, 4242, 4242))
	_, err = FindServer(exe, onPath)
	require.Error(t, err, "a server of another owner")
	assert.Equal(t, kernel.CodeNotInstalled, kernel.CodeOf(err))
	assert.Contains(t, err.Error(), "uid 4242")
}

// TestCheckClientBuild: the server refuses a git-records of another build
// that exec'd it, serves the one of its own build, and serves when run on
// its own; git-records passes its build, once, to what it execs.
func TestCheckClientBuild(t *testing.T) {
	env := serverEnv([]string{"A=1", clientBuildEnv + "=stale"})
	assert.Equal(t, []string{"A=1", clientBuildEnv + "=" + Build()}, env)

	t.Setenv(clientBuildEnv, "v0.9.0 vcs.revision=0123 vcs.modified=false")
	err := CheckClientBuild()
	require.Error(t, err)
	assert.Equal(t, kernel.CodeNotInstalled, kernel.CodeOf(err))
	assert.Contains(t, err.Error(), "not from the build of the git-records that ran it")
	_, set := os.LookupEnv(clientBuildEnv)
	assert.False(t, set, "the server's own children do not inherit it")

	t.Setenv(clientBuildEnv, Build())
	require.NoError(t, CheckClientBuild())
	os.Unsetenv(clientBuildEnv)
	require.NoError(t, CheckClientBuild(), "run on its own")
}
