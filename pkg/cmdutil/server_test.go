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
