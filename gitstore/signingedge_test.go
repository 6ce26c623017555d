package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

const (
	signersTestKey  = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPrvPwsNF7j4XIV6uNrH6SWcR//sJDWysRsCIFNDuylo"
	signersTestKey2 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJPYoSorxMINXmWC9Fho6QyhhNUi5GyYmq3YTTx0g2W/"
)

// TestParseAllowedSigners: the kernel's reading of allowed_signers handed
// to signing, each key read; a file either reader refuses is INVALID_RECORD
// naming the line.
func TestParseAllowedSigners(t *testing.T) {
	utc := func(s string) time.Time { tm, _ := time.Parse("20060102150405", s); return tm }
	local := func(s string) time.Time { tm, _ := time.ParseInLocation("20060102", s, time.Local); return tm }
	tests := []struct {
		name string
		in   string
		want []signing.AllowedSigner // Key compared by type only
		err  string
	}{
		{name: "empty and comments", in: "\n# a comment\n   \n\t# indented comment\n"},
		{name: "one principal", in: "alice@example.com " + signersTestKey,
			want: []signing.AllowedSigner{{Principals: []string{"alice@example.com"}}}},
		{name: "several principals, comment, CRLF", in: "alice@example.com,bob@example.com " + signersTestKey + " laptop key\r\n",
			want: []signing.AllowedSigner{{Principals: []string{"alice@example.com", "bob@example.com"}}}},
		{name: "quoted principal", in: `"Alice Smith" ` + signersTestKey,
			want: []signing.AllowedSigner{{Principals: []string{"Alice Smith"}}}},
		{name: "patterns", in: "*@example.com,!mallory@example.com " + signersTestKey,
			want: []signing.AllowedSigner{{Principals: []string{"*@example.com", "!mallory@example.com"}}}},
		{name: "namespaces", in: `alice namespaces="git,file" ` + signersTestKey,
			want: []signing.AllowedSigner{{Principals: []string{"alice"}, Namespaces: []string{"git", "file"}}}},
		{name: "all options", in: `alice cert-authority,namespaces="git",valid-after="20240101Z",valid-before="202501021504Z" ` + signersTestKey,
			want: []signing.AllowedSigner{{Principals: []string{"alice"}, Namespaces: []string{"git"}, CertAuthority: true,
				ValidAfter: utc("20240101000000"), ValidBefore: utc("20250102150400")}}},
		{name: "local time, seconds, UTC suffix", in: `alice valid-after="20240101",valid-before="20250101000001UTC" ` + signersTestKey,
			want: []signing.AllowedSigner{{Principals: []string{"alice"}, ValidAfter: local("20240101"), ValidBefore: utc("20250101000001")}}},
		{name: "option names are case-insensitive", in: `alice Cert-Authority ` + signersTestKey,
			want: []signing.AllowedSigner{{Principals: []string{"alice"}, CertAuthority: true}}},
		{name: "two lines", in: "alice " + signersTestKey + "\nbob " + signersTestKey2 + "\n",
			want: []signing.AllowedSigner{{Principals: []string{"alice"}}, {Principals: []string{"bob"}}}},
		{name: "no key", in: "alice\n", err: "line 1"},
		{name: "principal only with options", in: `alice namespaces="git"`, err: "no valid key"},
		{name: "bad key", in: "alice ssh-ed25519 AAAAnotakey", err: "no valid key"},
		{name: "unknown option", in: `alice restrict ` + signersTestKey, err: "unknown option"},
		{name: "unquoted value", in: `alice namespaces=git ` + signersTestKey, err: "double-quoted"},
		{name: "bad time", in: `alice valid-after="2024" ` + signersTestKey, err: "YYYYMMDD"},
		{name: "impossible date", in: `alice valid-after="20241301" ` + signersTestKey, err: "valid-after"},
		{name: "before not after", in: `alice valid-after="20250101Z",valid-before="20240101Z" ` + signersTestKey, err: "valid-before"},
		{name: "duplicate option", in: `alice namespaces="git",namespaces="file" ` + signersTestKey, err: "twice"},
		{name: "unterminated quote", in: `"alice ` + signersTestKey, err: "quote"},
		{name: "error names the line", in: "# ok\nalice " + signersTestKey + "\nbob nonsense\n", err: "line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAllowedSigners([]byte(tt.in))
			if tt.err != "" {
				require.Error(t, err)
				assert.True(t, kernel.IsCode(err, kernel.CodeInvalidRecord), "%v", err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, len(tt.want))
			for i, want := range tt.want {
				require.NotNil(t, got[i].Key)
				assert.Equal(t, "ssh-ed25519", got[i].Key.Type())
				assert.Equal(t, want.Principals, got[i].Principals)
				assert.Equal(t, want.Namespaces, got[i].Namespaces)
				assert.Equal(t, want.CertAuthority, got[i].CertAuthority)
				assert.True(t, want.ValidAfter.Equal(got[i].ValidAfter), "valid-after %v", got[i].ValidAfter)
				assert.True(t, want.ValidBefore.Equal(got[i].ValidBefore), "valid-before %v", got[i].ValidBefore)
			}
		})
	}
}

// A key x/crypto cannot read (a disagreement with the kernel, which read
// it) is INVALID_RECORD naming its line, as a key the kernel refuses is.
func TestAllowedSignersKeyXCryptoRefuses(t *testing.T) {
	_, err := AllowedSigners([]kernel.Signer{{Principals: []string{"alice"}, KeyBlob: []byte("not a key"), Line: 4}})
	require.True(t, kernel.IsCode(err, kernel.CodeInvalidRecord), "%v", err)
	assert.Contains(t, kernel.MessageOf(err), "allowed signers line 4: no valid key: ")
}

type signingConfig map[string]string

func (c signingConfig) Get(key string) (string, bool) { v, ok := c[key]; return v, ok }

// TestFromSigning: each kind of error signing returns reaches callers
// with the code they act on and signing's message, its cause still there.
func TestFromSigning(t *testing.T) {
	coded := func(t *testing.T, err error, code kernel.Code) *kernel.Error {
		t.Helper()
		require.Error(t, err)
		got := FromSigning(err)
		var e *kernel.Error
		require.True(t, errors.As(got, &e), "%v", got)
		assert.Equal(t, code, e.Code)
		assert.Equal(t, err.Error(), e.Message)
		assert.ErrorIs(t, got, err)
		return e
	}
	t.Run("no key", func(t *testing.T) {
		_, err := signing.FromConfig(signingConfig{"gpg.format": "pgp2"}, "", "")
		coded(t, err, kernel.CodeNoSigningKey)
	})
	t.Run("a key file in the way", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "key")
		_, err := signing.GenerateSSHKey(path, "alice")
		require.NoError(t, err)
		_, err = signing.GenerateSSHKey(path, "alice")
		e := coded(t, err, kernel.CodeUsage)
		assert.Equal(t, path+" already exists; refusing to overwrite a key", e.Message)
	})
	t.Run("a signature that does not verify", func(t *testing.T) {
		_, _, err := signing.VerifySSH(nil, []byte("x"), []byte("hello"), time.Time{})
		coded(t, err, kernel.CodeVerifyFailed)
		assert.ErrorIs(t, FromSigning(err), signing.ErrBadSignature)
	})
	t.Run("a signature only git checks", func(t *testing.T) {
		_, _, err := signing.VerifySSH(nil, []byte("x"), []byte("-----BEGIN SIGNED MESSAGE-----\n"), time.Time{})
		coded(t, err, kernel.CodeUnsupportedSignature)
	})
	t.Run("a signing program that fails", func(t *testing.T) {
		dir := t.TempDir()
		key := filepath.Join(dir, "key")
		_, err := signing.GenerateSSHKey(key, "alice")
		require.NoError(t, err)
		broken := filepath.Join(dir, "broken-keygen")
		require.NoError(t, os.WriteFile(broken, []byte("#!/bin/sh\necho 'agent refused operation' >&2\nexit 1\n"), 0o700))
		signer, err := signing.FromConfig(signingConfig{"gpg.format": "ssh", "user.signingkey": key, "gpg.ssh.program": broken}, "", "", signing.ExecOnly())
		require.NoError(t, err)
		_, err = signer.Sign([]byte("payload\n"))
		e := coded(t, err, kernel.CodeSigningFailed)
		assert.Equal(t, "agent refused operation", e.Extra["stderr"])
	})
	t.Run("anything else as it is", func(t *testing.T) {
		assert.NoError(t, FromSigning(nil))
		plain := errors.New("disk on fire")
		assert.Same(t, plain, FromSigning(plain))
		already := FromSigning(func() error { _, err := signing.FromConfig(signingConfig{"gpg.format": "pgp2"}, "", ""); return err }())
		assert.Same(t, already, FromSigning(already), "a coded error is not coded twice")
	})
}
