package signing

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApprovalSignature: an approval is an sshsig in its own namespace,
// made in-process or by ssh-keygen, that ssh-keygen itself verifies; it
// never passes for a commit signature nor a commit signature for it.
func TestApprovalSignature(t *testing.T) {
	home := isolate(t)
	priv := filepath.Join(home, "carol")
	pub, err := GenerateSSHKey(priv, "carol")
	require.NoError(t, err)
	signers := parseSigners(t, AllowedSignersLine("carol@example.com", pub))
	statement := []byte("git-records approval 1\nop \"apply\"\n")

	for name, opts := range map[string][]Option{"in-process": nil, "ssh-keygen": {ExecOnly()}} {
		t.Run(name, func(t *testing.T) {
			signer, err := FromConfig(mapConfig{"records.signingkey": priv}, "", "", opts...)
			require.NoError(t, err)
			sig, err := SignApproval(signer, statement)
			require.NoError(t, err)
			assert.NotContains(t, sig, "\n", "one trailer line")
			assert.NotContains(t, sig, "-----")
			assert.Less(t, len(sig), 2048, "under the trailer value cap")

			principal, _, err := VerifyApproval(signers, statement, sig, commitTime)
			require.NoError(t, err)
			assert.Equal(t, "carol@example.com", principal)

			_, _, err = VerifyApproval(signers, append(statement, 'x'), sig, commitTime)
			assert.ErrorIs(t, err, ErrBadSignature, "another statement")

			// ssh-keygen agrees, in the approval namespace.
			dir := t.TempDir()
			blob, err := base64.StdEncoding.DecodeString(sig)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "sig"), armorSSH(blob), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "allowed"), []byte(AllowedSignersLine("carol@example.com", pub)+"\n"), 0o644))
			out, err := run(dir, statement, "ssh-keygen", "-Y", "verify", "-f", "allowed", "-I", "carol@example.com", "-n", ApprovalNamespace, "-s", "sig")
			require.NoError(t, err, "%s", out)

			// A commit signature over the same bytes is no approval, and
			// an approval is no commit signature.
			commitSig, err := signer.Sign(statement)
			require.NoError(t, err)
			_, _, err = VerifyApproval(signers, statement, oneLine(commitSig), commitTime)
			assert.ErrorIs(t, err, ErrBadSignature, "a commit signature used as an approval")
			_, _, err = VerifySSH(signers, statement, armorSSH(blob), commitTime)
			assert.ErrorIs(t, err, ErrBadSignature, "an approval used as a commit signature")
		})
	}

	t.Run("an entry limited to commits cannot approve", func(t *testing.T) {
		signer, err := FromConfig(mapConfig{"records.signingkey": priv}, "", "")
		require.NoError(t, err)
		sig, err := SignApproval(signer, statement)
		require.NoError(t, err)
		_, _, err = VerifyApproval(parseSigners(t, `carol@example.com namespaces="git" `+pub), statement, sig, commitTime)
		assert.ErrorIs(t, err, ErrUnknownSigner)
		assert.ErrorContains(t, err, `not allowed to sign in namespace "git-records-approval"`)
	})

	t.Run("garbage", func(t *testing.T) {
		for _, bad := range []string{"", "not base64!", base64.StdEncoding.EncodeToString([]byte("SSHSIG junk"))} {
			_, _, err := VerifyApproval(signers, statement, bad, commitTime)
			assert.ErrorIs(t, err, ErrBadSignature, "%q", bad)
		}
	})
}
