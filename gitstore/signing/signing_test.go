package signing

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
)

func TestGenerateSSHKey(t *testing.T) {
	isolate(t)
	priv := filepath.Join(t.TempDir(), "keys", "records_ed25519")
	pubLine, err := GenerateSSHKey(priv, "alice@example.com")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(pubLine, "ssh-ed25519 AAAA"), pubLine)
	assert.True(t, strings.HasSuffix(pubLine, " alice@example.com"), pubLine)

	st, err := os.Stat(priv)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	pubFile, err := os.ReadFile(priv + ".pub")
	require.NoError(t, err)
	assert.Equal(t, pubLine+"\n", string(pubFile))

	// ssh-keygen reads the private key and derives the same public key.
	derived := strings.Fields(mustRun(t, "", nil, "ssh-keygen", "-y", "-f", priv))
	assert.Equal(t, strings.Fields(pubLine)[:2], derived[:2])

	// Never overwrite a key.
	_, err = GenerateSSHKey(priv, "again")
	assert.ErrorIs(t, err, ErrKeyExists)
	again, _ := os.ReadFile(priv + ".pub")
	assert.Equal(t, pubFile, again)
}

func TestAllowedSignersLine(t *testing.T) {
	assert.Equal(t, `alice@example.com namespaces="git,git-records-approval" ssh-ed25519 AAAA c`,
		AllowedSignersLine("alice@example.com", "ssh-ed25519 AAAA c\n"))
	assert.Equal(t, `"Alice Smith" namespaces="git,git-records-approval" ssh-ed25519 AAAA`,
		AllowedSignersLine("Alice Smith", "ssh-ed25519 AAAA"))
}

// The main path: a commit built with go-git, signed in-process, is accepted
// by git and by VerifySSH, and both agree on the signer.
func TestInProcessSignatureVerifiesWithGit(t *testing.T) {
	isolate(t)
	repo := newRepo(t)
	priv, pub := newKey(t, "alice")
	signer, err := FromConfig(mapConfig{"records.signingkey": priv, "records.signingformat": "ssh"}, "", "")
	require.NoError(t, err)
	require.IsType(t, &sshSigner{}, signer)
	assert.NotNil(t, signer.(*sshSigner).inProcess, "unencrypted key must sign in-process")
	assert.Equal(t, "ssh", signer.Format())
	pubKey, _, _, _, err := ssh.ParseAuthorizedKey([]byte(pub))
	require.NoError(t, err)
	assert.Equal(t, ssh.FingerprintSHA256(pubKey), signer.Principal())

	hash, payload, sig := signedCommit(t, repo, signer, "create(concept): hello\n")
	allowedLine := AllowedSignersLine("alice@example.com", pub)
	allowedFile := writeFile(t, allowedLine+"\n")

	v := gitVerify(t, repo, allowedFile, hash)
	assert.True(t, v.ok, v.output)
	assert.Equal(t, "G", v.status)
	assert.Equal(t, "alice@example.com", v.signer)

	// What git verifies is exactly what we signed.
	gotPayload, gotSig := SplitSignature(catCommit(t, repo, hash))
	assert.Equal(t, string(payload), string(gotPayload))
	assert.Equal(t, string(sig), string(gotSig))

	principal, fp, err := VerifySSH(parseSigners(t, allowedLine), gotPayload, gotSig, commitTime)
	require.NoError(t, err)
	assert.Equal(t, "alice@example.com", principal)
	assert.Equal(t, signer.Principal(), fp)
}

func TestTamperedCommitFails(t *testing.T) {
	isolate(t)
	repo := newRepo(t)
	priv, pub := newKey(t, "alice")
	signer, err := FromConfig(mapConfig{"records.signingkey": priv}, "", "")
	require.NoError(t, err)
	hash, _, _ := signedCommit(t, repo, signer, "apply(concept): the real title\n")
	allowed := AllowedSignersLine("alice@example.com", pub)
	allowedFile := writeFile(t, allowed+"\n")

	raw := catCommit(t, repo, hash)
	forged := bytes.Replace(raw, []byte("the real title"), []byte("a forged title"), 1)
	require.NotEqual(t, raw, forged)
	forgedHash := strings.TrimSpace(mustRun(t, repo, forged, "git", "hash-object", "-t", "commit", "-w", "--stdin"))

	v := gitVerify(t, repo, allowedFile, forgedHash)
	assert.False(t, v.ok)
	assert.Equal(t, "B", v.status, v.output)

	payload, sig := SplitSignature(forged)
	_, fp, err := VerifySSH(parseSigners(t, allowed), payload, sig, commitTime)
	assert.ErrorIs(t, err, ErrNotVerified)
	assert.ErrorIs(t, err, ErrBadSignature)
	assert.Equal(t, signer.Principal(), fp)
}

func TestUnknownKeyFails(t *testing.T) {
	isolate(t)
	repo := newRepo(t)
	_, alicePub := newKey(t, "alice")
	mallory, _ := newKey(t, "mallory")
	signer, err := FromConfig(mapConfig{"gpg.format": "ssh", "user.signingkey": mallory}, "", "")
	require.NoError(t, err)
	hash, payload, sig := signedCommit(t, repo, signer, "create(concept): sneaky\n")
	allowed := AllowedSignersLine("alice@example.com", alicePub)

	v := gitVerify(t, repo, writeFile(t, allowed+"\n"), hash)
	assert.False(t, v.ok)
	// Git checks the signature without a trust anchor and reports a good
	// signature by an unknown key: U, and verify-commit fails.
	assert.Equal(t, "U", v.status, v.output)
	assert.Equal(t, "", v.signer)

	_, fp, err := VerifySSH(parseSigners(t, allowed), payload, sig, commitTime)
	assert.ErrorIs(t, err, ErrUnknownSigner)
	assert.ErrorIs(t, err, ErrNotVerified)
	assert.Equal(t, signer.Principal(), fp)
}

// ExecOnly forces git's own path (ssh-keygen -Y sign); ed25519 signatures
// are deterministic and we armor like ssh-keygen, so both paths must give
// the same bytes, and git must accept the exec'd one.
func TestKeygenFallbackMatchesInProcess(t *testing.T) {
	isolate(t)
	repo := newRepo(t)
	priv, pub := newKey(t, "alice")
	cfg := mapConfig{"gpg.format": "ssh", "user.signingkey": priv}
	inProc, err := FromConfig(cfg, "", "")
	require.NoError(t, err)
	execd, err := FromConfig(cfg, "", "", ExecOnly())
	require.NoError(t, err)
	require.Nil(t, execd.(*sshSigner).inProcess)
	assert.Equal(t, inProc.Principal(), execd.Principal())

	payload := []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nmsg\n")
	a, err := inProc.Sign(payload)
	require.NoError(t, err)
	b, err := execd.Sign(payload)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(a))

	hash, _, _ := signedCommit(t, repo, execd, "create(concept): via ssh-keygen\n")
	v := gitVerify(t, repo, writeFile(t, AllowedSignersLine("alice@example.com", pub)+"\n"), hash)
	assert.True(t, v.ok, v.output)
	assert.Equal(t, "G", v.status)
}

// A passphrase-protected key cannot be used in-process; ssh-keygen asks for
// the passphrase (here through SSH_ASKPASS, as a desktop would) and signs.
func TestEncryptedKeyUsesKeygen(t *testing.T) {
	home := isolate(t)
	repo := newRepo(t)
	priv := filepath.Join(t.TempDir(), "enc")
	mustRun(t, "", nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "s3cret", "-C", "enc", "-f", priv)
	askpass := filepath.Join(home, "askpass.sh")
	require.NoError(t, os.WriteFile(askpass, []byte("#!/bin/sh\necho s3cret\n"), 0o700))
	t.Setenv("SSH_ASKPASS", askpass)
	t.Setenv("SSH_ASKPASS_REQUIRE", "force")
	t.Setenv("DISPLAY", ":0")

	signer, err := FromConfig(mapConfig{"gpg.format": "ssh", "user.signingkey": priv}, "", "")
	require.NoError(t, err)
	require.Nil(t, signer.(*sshSigner).inProcess)
	pubData, err := os.ReadFile(priv + ".pub")
	require.NoError(t, err)
	pub, _, _, _, err := ssh.ParseAuthorizedKey(pubData)
	require.NoError(t, err)
	// The OpenSSH format keeps the public key in clear, so the principal is
	// known before signing.
	assert.Equal(t, ssh.FingerprintSHA256(pub), signer.Principal())

	hash, _, _ := signedCommit(t, repo, signer, "create(concept): encrypted\n")
	v := gitVerify(t, repo, writeFile(t, AllowedSignersLine("enc@example.com", string(pubData))+"\n"), hash)
	assert.True(t, v.ok, v.output)
}

// Literal keys ("key::..." / "ssh-...") and .pub paths without a private key
// beside them sign through ssh-agent, as under git.
func TestAgentSigning(t *testing.T) {
	isolate(t)
	if _, err := exec.LookPath("ssh-agent"); err != nil {
		t.Skip("ssh-agent not installed")
	}
	repo := newRepo(t)
	priv, pub := newKey(t, "agent")
	sockDir, err := os.MkdirTemp("", "agent") // unix socket paths are short
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "s")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	require.NoError(t, agent.Start())
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Setenv("SSH_AUTH_SOCK", sock)
	mustRun(t, "", nil, "ssh-add", "-q", priv)

	lonePub := filepath.Join(t.TempDir(), "only.pub")
	require.NoError(t, os.WriteFile(lonePub, []byte(pub+"\n"), 0o644))
	allowedFile := writeFile(t, AllowedSignersLine("agent@example.com", pub)+"\n")
	for _, key := range []string{"key::" + pub, pub, lonePub} {
		signer, err := FromConfig(mapConfig{"gpg.format": "ssh", "user.signingkey": key}, "", "")
		require.NoError(t, err, key)
		require.Nil(t, signer.(*sshSigner).inProcess, key)
		hash, _, _ := signedCommit(t, repo, signer, "create(concept): agent "+key+"\n")
		v := gitVerify(t, repo, allowedFile, hash)
		assert.True(t, v.ok, "%s: %s", key, v.output)
	}

	// gpg.ssh.defaultKeyCommand supplies the key when user.signingkey is unset.
	signer, err := FromConfig(mapConfig{"gpg.format": "ssh", "gpg.ssh.defaultkeycommand": "ssh-add -L"}, "", "")
	require.NoError(t, err)
	_, err = signer.Sign([]byte("payload\n"))
	require.NoError(t, err)
}

// A .pub path with its unencrypted private key beside it signs in-process
// (ssh-keygen would use that same private key).
func TestPubPathUsesPrivateKeyBeside(t *testing.T) {
	isolate(t)
	priv, _ := newKey(t, "alice")
	signer, err := FromConfig(mapConfig{"gpg.format": "ssh", "user.signingkey": priv + ".pub"}, "", "")
	require.NoError(t, err)
	assert.NotNil(t, signer.(*sshSigner).inProcess)
}

// The round trip against git itself: a commit made by `git commit -S` splits
// into what go-git would sign, and VerifySSH accepts it.
func TestSplitSignatureOfGitSignedCommit(t *testing.T) {
	isolate(t)
	repo := newRepo(t)
	priv, pub := newKey(t, "alice")
	t.Setenv("GIT_COMMITTER_DATE", "@1700000000 +0100")
	mustRun(t, repo, nil, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+priv,
		"commit", "-q", "--allow-empty", "-S", "-m", "signed by git", "-m", "Record-Op: create")
	raw := catCommit(t, repo, "HEAD")
	payload, sig := SplitSignature(raw)
	require.NotNil(t, sig)
	assert.True(t, bytes.HasPrefix(sig, []byte("-----BEGIN SSH SIGNATURE-----\n")))
	assert.True(t, bytes.HasSuffix(sig, []byte("-----END SSH SIGNATURE-----\n")))
	assert.NotContains(t, string(payload), "gpgsig")
	assert.Contains(t, string(raw), "\ngpgsig -----BEGIN SSH SIGNATURE-----\n ")

	principal, _, err := VerifySSH(parseSigners(t, AllowedSignersLine("alice@example.com", pub)), payload, sig, commitTime)
	require.NoError(t, err)
	assert.Equal(t, "alice@example.com", principal)

	// go-git, which the store reads commits with, agrees on both halves.
	r, err := git.PlainOpen(repo)
	require.NoError(t, err)
	head, err := r.Head()
	require.NoError(t, err)
	c, err := r.CommitObject(head.Hash())
	require.NoError(t, err)
	assert.Equal(t, string(payload), string(encodedBytes(t, c.EncodeWithoutSignature)))
	assert.Equal(t, string(sig), c.PGPSignature)

	// Our signer reproduces git's signature byte for byte.
	signer, err := FromConfig(mapConfig{"records.signingkey": priv}, "", "")
	require.NoError(t, err)
	ours, err := signer.Sign(payload)
	require.NoError(t, err)
	assert.Equal(t, string(sig), string(ours))

	unsignedRaw := []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nmsg\n")
	p, s := SplitSignature(unsignedRaw)
	assert.Nil(t, s)
	assert.Equal(t, unsignedRaw, p)
}

func TestOpenPGPSigning(t *testing.T) {
	isolate(t)
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Skip("gpg not installed")
	}
	gnupgHome, err := os.MkdirTemp("", "gpg") // gpg-agent's socket path must be short
	require.NoError(t, err)
	t.Setenv("GNUPGHOME", gnupgHome)
	t.Cleanup(func() {
		exec.Command("gpgconf", "--kill", "gpg-agent").Run()
		os.RemoveAll(gnupgHome)
	})
	require.NoError(t, os.Chmod(gnupgHome, 0o700))

	// No secret key for the committer: a clear "no key", not a gpg failure.
	_, err = FromConfig(mapConfig{}, "Records Test", "records@example.com")
	assert.ErrorIs(t, err, ErrNoSigningKey)

	mustRun(t, "", nil, "gpg", "--batch", "--passphrase", "", "--quick-gen-key",
		"Records Test <records@example.com>", "ed25519", "sign", "never")
	repo := newRepo(t)
	for _, cfg := range []mapConfig{
		{}, // git's default: openpgp, committer ident
		{"gpg.format": "openpgp", "user.signingkey": "records@example.com"},
	} {
		signer, err := FromConfig(cfg, "Records Test", "records@example.com")
		require.NoError(t, err)
		assert.Equal(t, "openpgp", signer.Format())
		hash, payload, sig := signedCommit(t, repo, signer, "create(concept): pgp\n")
		assert.True(t, bytes.HasPrefix(sig, []byte("-----BEGIN PGP SIGNATURE-----")))
		out, err := run(repo, nil, "git", "verify-commit", hash)
		assert.NoError(t, err, out)
		assert.Equal(t, "G\n", mustRun(t, repo, nil, "git", "log", "-1", "--format=%G?", hash))

		_, _, err = VerifySSH(nil, payload, sig, commitTime)
		assert.ErrorIs(t, err, ErrUnsupportedFormat)
		assert.NotErrorIs(t, err, ErrNotVerified)
	}

	signer, err := FromConfig(mapConfig{"user.signingkey": "nobody@example.com"}, "", "")
	require.NoError(t, err)
	_, err = signer.Sign([]byte("payload\n"))
	assert.ErrorIs(t, err, ErrSigningFailed)
	assert.Contains(t, err.Error(), "nobody@example.com")
}

func TestNoSigningKey(t *testing.T) {
	isolate(t)
	for name, cfg := range map[string]mapConfig{
		"ssh without key":         {"gpg.format": "ssh"},
		"empty signingkey":        {"gpg.format": "ssh", "user.signingkey": ""},
		"missing key file":        {"gpg.format": "ssh", "user.signingkey": "/nonexistent/key"},
		"bad literal":             {"gpg.format": "ssh", "user.signingkey": "key::ssh-ed25519 notbase64"},
		"openpgp without program": {"gpg.format": "openpgp", "gpg.program": "/nonexistent/gpg"},
		"unknown format":          {"gpg.format": "pgp2"},
		"failing default command": {"gpg.format": "ssh", "gpg.ssh.defaultkeycommand": "false"},
	} {
		_, err := FromConfig(cfg, "Records Test", "records@example.com")
		assert.ErrorIs(t, err, ErrNoSigningKey, name)
	}
	_, err := FromConfig(mapConfig{"gpg.format": "ssh"}, "", "")
	assert.Contains(t, err.Error(), "git records init --generate-key")
}

func TestSigningFailureCarriesStderr(t *testing.T) {
	home := isolate(t)
	priv, _ := newKey(t, "alice")
	broken := filepath.Join(home, "broken-keygen")
	require.NoError(t, os.WriteFile(broken, []byte("#!/bin/sh\necho 'agent refused operation' >&2\nexit 1\n"), 0o700))
	signer, err := FromConfig(mapConfig{"gpg.format": "ssh", "user.signingkey": priv, "gpg.ssh.program": broken}, "", "", ExecOnly())
	require.NoError(t, err)
	_, err = signer.Sign([]byte("payload\n"))
	require.ErrorIs(t, err, ErrSigningFailed)
	assert.Contains(t, err.Error(), "agent refused operation")
	var program *ProgramError
	require.True(t, errors.As(err, &program))
	assert.Equal(t, "agent refused operation", program.Output)
}

func TestConfigPrecedence(t *testing.T) {
	isolate(t)
	ours, _ := newKey(t, "ours")
	users, _ := newKey(t, "users")
	fp := func(cfg mapConfig) string {
		s, err := FromConfig(cfg, "", "")
		require.NoError(t, err)
		return s.Principal()
	}
	oursFP := fp(mapConfig{"gpg.format": "ssh", "user.signingkey": ours})
	usersFP := fp(mapConfig{"gpg.format": "ssh", "user.signingkey": users})
	require.NotEqual(t, oursFP, usersFP)
	// records.* wins over the user's own setup, whatever gpg.format says.
	assert.Equal(t, oursFP, fp(mapConfig{"records.signingkey": ours, "gpg.format": "openpgp", "user.signingkey": users}))
	// "~/" is expanded as git expands it.
	home, _ := os.UserHomeDir()
	require.NoError(t, os.Rename(ours, filepath.Join(home, "k")))
	assert.Equal(t, oursFP, fp(mapConfig{"records.signingkey": "~/k"}))
}

// Signers are shared by concurrent writers; the exec path must not mix up
// temp files and the in-process path must stay stateless.
func TestSignConcurrently(t *testing.T) {
	isolate(t)
	priv, pub := newKey(t, "alice")
	signers := parseSigners(t, AllowedSignersLine("alice@example.com", pub))
	for _, opts := range [][]Option{nil, {ExecOnly()}} {
		signer, err := FromConfig(mapConfig{"records.signingkey": priv}, "", "", opts...)
		require.NoError(t, err)
		errs := make(chan error, 8)
		for i := range 8 {
			go func() {
				payload := []byte(fmt.Sprintf("payload %d\n", i))
				sig, err := signer.Sign(payload)
				if err == nil {
					_, _, err = VerifySSH(signers, payload, sig, time.Time{})
				}
				errs <- err
			}()
		}
		for range 8 {
			assert.NoError(t, <-errs)
		}
	}
}
