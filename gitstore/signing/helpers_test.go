package signing

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// mapConfig is a ConfigGetter over a map; keys are compared in lower case
// as git compares section and variable names.
type mapConfig map[string]string

func (m mapConfig) Get(key string) (string, bool) {
	v, ok := m[strings.ToLower(key)]
	return v, ok
}

// commitTime is the committer date of test commits; VerifySSH and git both
// judge key validity at this instant.
var commitTime = time.Unix(1700000000, 0).In(time.FixedZone("", 3600))

// isolate keeps the machine's git, ssh and gpg configuration out of a test.
func isolate(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"git", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	t.Setenv("SSH_AUTH_SOCK", "")
	t.Setenv("GNUPGHOME", filepath.Join(home, ".gnupg-unused"))
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(v, "Records Test")
	}
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(v, "records@example.com")
	}
	return home
}

// run runs a command in dir and returns its stdout; stderr is kept in err.
func run(dir string, stdin []byte, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = &cmdError{err: err, stderr: stderr.String()}
	}
	return stdout.String(), err
}

type cmdError struct {
	err    error
	stderr string
}

func (e *cmdError) Error() string { return e.err.Error() + ": " + e.stderr }

func mustRun(t testing.TB, dir string, stdin []byte, name string, args ...string) string {
	t.Helper()
	out, err := run(dir, stdin, name, args...)
	require.NoError(t, err, "%s %v", name, args)
	return out
}

func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	mustRun(t, dir, nil, "git", "init", "-q")
	return dir
}

func newKey(t testing.TB, name string) (priv, pubLine string) {
	t.Helper()
	priv = filepath.Join(t.TempDir(), name)
	pubLine, err := GenerateSSHKey(priv, name+"@example.com")
	require.NoError(t, err)
	return priv, pubLine
}

func writeFile(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// signedCommit builds a commit the way the store will: go-git object,
// EncodeWithoutSignature, Sign, PGPSignature, Encode, stored with go-git's
// filesystem storer, and points refs/heads/records at it.
func signedCommit(t testing.TB, repoDir string, signer Signer, msg string) (hash string, payload, sig []byte) {
	t.Helper()
	repo, err := git.PlainOpen(repoDir)
	require.NoError(t, err)
	st := repo.Storer

	treeObj := st.NewEncodedObject()
	require.NoError(t, (&object.Tree{}).Encode(treeObj))
	treeHash, err := st.SetEncodedObject(treeObj)
	require.NoError(t, err)

	who := object.Signature{Name: "Records Test", Email: "records@example.com", When: commitTime}
	c := &object.Commit{TreeHash: treeHash, Author: who, Committer: who, Message: msg}
	payload = encodedBytes(t, c.EncodeWithoutSignature)
	sig, err = signer.Sign(payload)
	require.NoError(t, err)
	c.PGPSignature = string(sig)

	obj := st.NewEncodedObject()
	require.NoError(t, c.Encode(obj))
	h, err := st.SetEncodedObject(obj)
	require.NoError(t, err)
	mustRun(t, repoDir, nil, "git", "update-ref", "refs/heads/records", h.String())
	return h.String(), payload, sig
}

func encodedBytes(t testing.TB, encode func(plumbing.EncodedObject) error) []byte {
	t.Helper()
	obj := &plumbing.MemoryObject{}
	require.NoError(t, encode(obj))
	r, err := obj.Reader()
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return b
}

// gitVerdict is what git says about a commit's signature: whether
// verify-commit passes, and %G? / %GS from git log.
type gitVerdict struct {
	ok     bool
	status string
	signer string
	output string
}

func gitVerify(t testing.TB, repoDir, allowedSigners, hash string) gitVerdict {
	t.Helper()
	cfg := "gpg.ssh.allowedSignersFile=" + allowedSigners
	out, err := run(repoDir, nil, "git", "-c", cfg, "verify-commit", hash)
	v := gitVerdict{ok: err == nil, output: out}
	if err != nil {
		v.output += err.Error()
	}
	log := mustRun(t, repoDir, nil, "git", "-c", cfg, "log", "-1", "--format=%G?%x00%GS", hash)
	v.status, v.signer, _ = strings.Cut(strings.TrimSuffix(log, "\n"), "\x00")
	return v
}

func catCommit(t testing.TB, repoDir, rev string) []byte {
	t.Helper()
	return []byte(mustRun(t, repoDir, nil, "git", "cat-file", "commit", rev))
}

// parseSigners reads an allowed-signers file as the store hands it to
// this package (gitstore.AllowedSigners): the kernel's reading, each key
// read with ReadKey.
func parseSigners(t testing.TB, data string) []AllowedSigner {
	t.Helper()
	parsed, err := kernel.ParseAllowedSigners([]byte(data))
	require.NoError(t, err)
	out := make([]AllowedSigner, len(parsed))
	for i, k := range parsed {
		out[i] = AllowedSigner{Principals: k.Principals, Namespaces: k.Namespaces,
			ValidAfter: k.ValidAfter, ValidBefore: k.ValidBefore, CertAuthority: k.CertAuthority}
		require.NoError(t, out[i].ReadKey(k.KeyBlob))
	}
	return out
}
