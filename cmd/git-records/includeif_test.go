package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInitFindsIdentityUnderIncludeIf pins break 15: git finds user.email
// and user.signingkey under includeIf "gitdir:…", where many people keep
// their work identity, and git records init said there was none. Here the
// only identity and key are under a conditional include of ~/.gitconfig.
func TestInitFindsIdentityUnderIncludeIf(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	key := filepath.Join(home, "keys", "work")
	require.NoError(t, os.MkdirAll(filepath.Dir(key), 0o700))
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	r := execEnv(t, home, "", env, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "work@example.com", "-f", key)
	require.Equal(t, 0, r.code, "%s", r)
	pub, err := os.ReadFile(key + ".pub")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, "work.gitconfig"),
		[]byte("[user]\n\tname = Work\n\temail = work@example.com\n\tsigningkey = ~/keys/work\n[gpg]\n\tformat = ssh\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[init]\n\tdefaultBranch = main\n[includeIf \"gitdir:~/src/\"]\n\tpath = work.gitconfig\n"), 0o644))
	repo := filepath.Join(home, "src", "repo")
	r = execEnv(t, "", "", env, "git", "init", "-q", repo)
	require.Equal(t, 0, r.code, "%s", r)

	r = execEnv(t, repo, "", env, "git-records", "init")
	require.Equal(t, 0, r.code, "git records init must find the identity git finds:\n%s", r)

	r = execEnv(t, repo, "", env, "git", "log", "-1", "--format=%ae", "records")
	require.Equal(t, "work@example.com", strings.TrimSpace(r.stdout), "%s", r)
	r = execEnv(t, repo, "", env, "git", "show", "records:.records/allowed_signers")
	require.Equal(t, 0, r.code, "%s", r)
	fields := strings.Fields(string(pub))
	require.Contains(t, r.stdout, fields[0]+" "+fields[1], "the key under includeIf is the store's first signer")
	r = execEnv(t, repo, "", env, "git", "cat-file", "commit", "records")
	require.Contains(t, r.stdout, "-----BEGIN SSH SIGNATURE-----", "the init commit is signed with it")
}
