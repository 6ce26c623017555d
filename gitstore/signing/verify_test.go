package signing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatchPattern(t *testing.T) {
	for _, tt := range []struct {
		s, p string
		want bool
	}{
		{"alice@example.com", "alice@example.com", true},
		{"alice@example.com", "*@example.com", true},
		{"alice@example.com", "*", true},
		{"alice@example.com", "alic?@example.com", true},
		{"alice@example.com", "a*e*", true},
		{"alice@example.com", "bob@example.com", false},
		{"alice@example.com", "*@example.org", false},
		{"alice", "alice?", false},
		{"[a]", "[a]", true}, // no character classes, unlike path.Match
		{"", "*", true},
		{"", "", true},
	} {
		assert.Equal(t, tt.want, matchPattern(tt.s, tt.p), "%q ~ %q", tt.s, tt.p)
	}
	assert.True(t, matchList("bob", []string{"alice", "bob"}))
	assert.False(t, matchList("mallory", []string{"*", "!mallory"}))
	assert.False(t, matchList("carol", []string{"alice", "bob"}))
}

func TestSplitSignatureHeaders(t *testing.T) {
	raw := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
		"author A <a@b> 1 +0000\n" +
		"committer A <a@b> 1 +0000\n" +
		"mergetag object abc\n type commit\n" +
		"gpgsig -----BEGIN SSH SIGNATURE-----\n line1\n \n -----END SSH SIGNATURE-----\n" +
		"gpgsig-sha256 -----BEGIN SSH SIGNATURE-----\n other\n -----END SSH SIGNATURE-----\n" +
		"x-extra value\n" +
		"\n" +
		"message\ngpgsig in the body is just text\n"
	payload, sig := SplitSignature([]byte(raw))
	assert.Equal(t, "-----BEGIN SSH SIGNATURE-----\nline1\n\n-----END SSH SIGNATURE-----\n", string(sig))
	assert.Equal(t, "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"+
		"author A <a@b> 1 +0000\n"+
		"committer A <a@b> 1 +0000\n"+
		"mergetag object abc\n type commit\n"+
		"x-extra value\n"+
		"\n"+
		"message\ngpgsig in the body is just text\n", string(payload))
}

// Parity: for each allowed-signers file, VerifySSH must reach git's verdict
// (verify-commit pass/fail and the %GS signer) on the same commit.
func TestVerifySSHAgreesWithGit(t *testing.T) {
	isolate(t)
	repo := newRepo(t)
	priv, pub := newKey(t, "alice")
	_, other := newKey(t, "bob")
	signer, err := FromConfig(mapConfig{"records.signingkey": priv}, "", "")
	require.NoError(t, err)
	hash, payload, sig := signedCommit(t, repo, signer, "create(concept): parity\n")

	// commitTime is 2023-11-14. want is git's %G? and %GS, pinned so the
	// parity check cannot pass vacuously.
	for name, tc := range map[string]struct{ file, want string }{
		"plain":                   {"alice@example.com " + pub, "G alice@example.com"},
		"our line":                {AllowedSignersLine("alice@example.com", pub), "G alice@example.com"},
		"several principals":      {"alice@example.com,carol@example.com " + pub, "G alice@example.com"},
		"pattern":                 {"*@example.com " + pub, "G *@example.com"},
		"negated then pattern":    {"!alice@example.com,*@example.com " + pub, "G !alice@example.com"},
		"other key first":         {"bob@example.com " + other + "\nalice@example.com " + pub, "G alice@example.com"},
		"other key only":          {"bob@example.com " + other, "U "},
		"wrong namespace":         {`alice@example.com namespaces="file" ` + pub, "B "},
		"namespace pattern":       {`alice@example.com namespaces="fi*,g?t" ` + pub, "G alice@example.com"},
		"first line wrong ns":     {`alice@example.com namespaces="file" ` + pub + "\ncarol@example.com " + pub, "B "},
		"expired":                 {`alice@example.com valid-before="20200101Z" ` + pub, "U "},
		"not yet valid":           {`alice@example.com valid-after="20300101" ` + pub, "U "},
		"within validity":         {`alice@example.com valid-after="20200101Z",valid-before="20300101Z" ` + pub, "G alice@example.com"},
		"expired line then valid": {`alice@example.com valid-before="20200101Z" ` + pub + "\ncarol@example.com " + pub, "G carol@example.com"},
		"key as CA is not a key":  {"alice@example.com cert-authority " + pub, "U "},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, assertParity(t, repo, hash, tc.file, payload, sig))
		})
	}
}

// assertParity checks VerifySSH against git and returns git's "%G? %GS".
func assertParity(t *testing.T, repo, hash, file string, payload, sig []byte) string {
	t.Helper()
	v := gitVerify(t, repo, writeFile(t, file+"\n"), hash)
	principal, _, err := VerifySSH(parseSigners(t, file), payload, sig, commitTime)
	assert.Equal(t, v.ok, err == nil, "git ok=%v (%s %q: %s), VerifySSH err=%v", v.ok, v.status, v.signer, v.output, err)
	if v.ok {
		assert.Equal(t, v.signer, principal)
	}
	return v.status + " " + v.signer
}

// Certificates: a CA line admits keys it certified, for the certificate's
// principals, within the certificate's validity.
func TestCertificateSignerAgreesWithGit(t *testing.T) {
	isolate(t)
	repo := newRepo(t)
	ca, caPub := newKey(t, "ca")
	for name, tc := range map[string]struct {
		principals, validity string
		file                 string
		want                 string // signer, or "" for a failure
	}{
		"admitted":               {"alice@example.com", "20200101:20300101", "*@example.com cert-authority " + caPub, "alice@example.com"},
		"second cert principal":  {"ops,alice@example.com", "20200101:20300101", "alice@example.com cert-authority " + caPub, "alice@example.com"},
		"principal not admitted": {"alice@example.com", "20200101:20300101", "bob@example.com cert-authority " + caPub, ""},
		"cert expired":           {"alice@example.com", "20200101:20210101", "*@example.com cert-authority " + caPub, ""},
		"CA line not marked":     {"alice@example.com", "20200101:20300101", "alice@example.com " + caPub, ""},
	} {
		t.Run(name, func(t *testing.T) {
			priv, _ := newKey(t, "user")
			mustRun(t, "", nil, "ssh-keygen", "-q", "-s", ca, "-I", "test", "-n", tc.principals, "-V", tc.validity, priv+".pub")
			signer, err := FromConfig(mapConfig{"gpg.format": "ssh", "user.signingkey": priv + "-cert.pub"}, "", "")
			require.NoError(t, err)
			hash, payload, sig := signedCommit(t, repo, signer, "create(concept): cert "+name+"\n")
			assertParity(t, repo, hash, tc.file, payload, sig)
			principal, _, err := VerifySSH(parseSigners(t, tc.file), payload, sig, commitTime)
			if tc.want == "" {
				assert.ErrorIs(t, err, ErrUnknownSigner)
			} else {
				assert.NoError(t, err)
				assert.Equal(t, tc.want, principal)
			}
		})
	}
}

func TestVerifySSHRejectsMalformed(t *testing.T) {
	_, _, err := VerifySSH(nil, []byte("x"), nil, time.Time{})
	assert.ErrorIs(t, err, ErrNoSignature)
	_, _, err = VerifySSH(nil, []byte("x"), []byte("-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n"), time.Time{})
	assert.ErrorIs(t, err, ErrBadSignature)
	_, _, err = VerifySSH(nil, []byte("x"), []byte("hello"), time.Time{})
	assert.ErrorIs(t, err, ErrBadSignature)
	_, _, err = VerifySSH(nil, []byte("x"), []byte("-----BEGIN SIGNED MESSAGE-----\n"), time.Time{})
	assert.ErrorIs(t, err, ErrUnsupportedFormat)
}

// A signature made for another sshsig namespace (ssh-keygen -n file) must
// not pass as a commit signature.
func TestVerifySSHRejectsOtherNamespace(t *testing.T) {
	isolate(t)
	priv, pub := newKey(t, "alice")
	dir := t.TempDir()
	data := filepath.Join(dir, "payload")
	require.NoError(t, os.WriteFile(data, []byte("payload\n"), 0o644))
	mustRun(t, "", nil, "ssh-keygen", "-q", "-Y", "sign", "-n", "file", "-f", priv, data)
	sig, err := os.ReadFile(data + ".sig")
	require.NoError(t, err)
	_, _, err = VerifySSH(parseSigners(t, "alice "+pub), []byte("payload\n"), sig, time.Time{})
	assert.ErrorIs(t, err, ErrBadSignature)
	assert.True(t, strings.Contains(err.Error(), "namespace"), err.Error())
}

// TestSplitSignatureHostileShapesAgreeWithGit: for hand-made commits
// (git hash-object --literally) whose signature headers sit where a
// contributor could put them, the payload SplitSignature extracts must be
// the one git verifies: the commit is signed over our payload, and git
// verify-commit must reach the same verdict as VerifySSH over it.
func TestSplitSignatureHostileShapesAgreeWithGit(t *testing.T) {
	isolate(t)
	repo := newRepo(t)
	priv, pub := newKey(t, "alice")
	signer, err := FromConfig(mapConfig{"records.signingkey": priv}, "", "")
	require.NoError(t, err)
	signers := parseSigners(t, "alice@example.com "+pub)
	allowed := writeFile(t, "alice@example.com "+pub+"\n")
	tree := strings.TrimSpace(mustRun(t, repo, []byte{}, "git", "mktree"))

	const who = "A <a@example.com> 1700000000 +0100"
	head := "tree " + tree + "\nauthor " + who + "\ncommitter " + who + "\n"
	// @SIG@ stands for the gpgsig header (with its continuation lines).
	for name, tc := range map[string]struct {
		shape string
		good  bool // git's verdict, pinned so agreement is not vacuous
		ours  bool // ours, where it differs from git's: only ever stricter
	}{
		"plain":                 {head + "@SIG@\nmessage\n", true, true},
		"before author":         {"tree " + tree + "\n@SIG@" + "author " + who + "\ncommitter " + who + "\n\nm\n", true, true},
		"unknown header after":  {head + "@SIG@" + "x-extra one\n two\n\nm\n", true, true},
		"mergetag and encoding": {head + "mergetag object abc\n type commit\n \n body\nencoding ISO-8859-1\n@SIG@\nm\n", true, true},
		"gpgsig-sha256 too":     {head + "gpgsig-sha256 other\n cont\n@SIG@\nm\n", true, true},
		"bare gpgsig line":      {head + "gpgsig\n cont\n@SIG@\nm\n", true, true},
		"second empty gpgsig":   {head + "@SIG@" + "gpgsig \n\nm\n", true, true},
		// ssh-keygen reads the armor up to its first END line and ignores
		// what follows (the second header's text); we reject the armor.
		"second gpgsig":       {head + "@SIG@" + "gpgsig more\n\nm\n", true, false},
		"only in the body":    {head + "\n@SIG@\n", false, false},
		"no blank line":       {head + "@SIG@", true, true},
		"no trailing newline": {head + "@SIG@\nmessage", true, true},
		// git reads the tree line only when it ends in a bare LF.
		"CRLF headers":              {"tree " + tree + "\n" + strings.ReplaceAll(head[len("tree ")+len(tree)+1:], "\n", "\r\n") + "@SIG@\r\nm\r\n", true, true},
		"NUL in message":            {head + "@SIG@\nm\x00gpgsig x\n", true, true},
		"signature then blank cont": {head + "@SIG@ \n\nm\n", true, true},
	} {
		t.Run(name, func(t *testing.T) {
			build := func(sig []byte) []byte {
				h := "gpgsig " + strings.ReplaceAll(strings.TrimSuffix(string(sig), "\n"), "\n", "\n ") + "\n"
				return []byte(strings.Replace(tc.shape, "@SIG@", h, 1))
			}
			payload, _ := SplitSignature(build([]byte("-----BEGIN SSH SIGNATURE-----\nplaceholder\n-----END SSH SIGNATURE-----\n")))
			sig, err := signer.Sign(payload)
			require.NoError(t, err)
			raw := build(sig)
			hash := strings.TrimSpace(mustRun(t, repo, raw, "git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin"))
			require.Equal(t, string(raw), mustRun(t, repo, nil, "git", "cat-file", "commit", hash))

			ourPayload, ourSig := SplitSignature(raw)
			_, _, ourErr := VerifySSH(signers, ourPayload, ourSig, commitTime)
			v := gitVerify(t, repo, allowed, hash)
			assert.Equal(t, tc.good, v.ok, "git verify-commit: %s", v.output)
			assert.Equal(t, tc.ours, ourErr == nil, "git %s %q, VerifySSH err=%v", v.status, v.output, ourErr)
			assert.Equal(t, v.status == "N", ourSig == nil, "unsigned for git (%%G? %s) iff no signature for us", v.status)
		})
	}
}
