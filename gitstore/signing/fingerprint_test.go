package signing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/git-records/git-records/kernel"
)

// TestKernelReadsKeysAsSSHKeygen: the kernel's Trust maps a key to its
// principal by fingerprint, computed with the stdlib alone; ssh-keygen -l,
// git's %GF and this package's VerifySSH use OpenSSH's. For every key type
// ssh-keygen makes, the three agree, and the kernel accepts exactly the
// keys x/crypto/ssh reads.
func TestKernelReadsKeysAsSSHKeygen(t *testing.T) {
	isolate(t)
	for _, kt := range [][]string{{"ed25519"}, {"rsa", "-b", "2048"}, {"ecdsa", "-b", "256"}, {"ecdsa", "-b", "384"}, {"ecdsa", "-b", "521"}} {
		t.Run(strings.Join(kt, ""), func(t *testing.T) {
			priv := filepath.Join(t.TempDir(), "key")
			mustRun(t, "", nil, "ssh-keygen", append([]string{"-q", "-N", "", "-C", "k", "-f", priv, "-t"}, kt...)...)
			pub, err := os.ReadFile(priv + ".pub")
			require.NoError(t, err)
			want := strings.Fields(mustRun(t, "", nil, "ssh-keygen", "-l", "-E", "sha256", "-f", priv+".pub"))[1]

			line := AllowedSignersLine("alice@example.com", string(pub))
			ks, err := kernel.ParseAllowedSigners([]byte(line))
			require.NoError(t, err)
			require.Len(t, ks, 1)
			assert.Equal(t, want, ks[0].Fingerprint, "kernel fingerprint")
			assert.Equal(t, want, kernel.Fingerprint(ks[0].KeyBlob))

			ours := parseSigners(t, line)
			assert.Equal(t, want, ssh.FingerprintSHA256(ours[0].Key), "x/crypto fingerprint")
			assert.Equal(t, "alice@example.com", kernel.NewTrust([]byte(line), nil).Principal(want))
		})
	}

	t.Run("a malformed key is refused by both readers", func(t *testing.T) {
		for name, key := range map[string]string{
			"truncated ed25519": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPrvPwsNF7j4XIV6uNrH6SWcR//sJDWysRsCIFND",
			"type mismatch":     "ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIPrvPwsNF7j4XIV6uNrH6SWcR//sJDWysRsCIFNDuylo",
			"not base64":        "ssh-ed25519 !!!!",
		} {
			_, kerr := kernel.ParseAllowedSigners([]byte("alice " + key))
			assert.Error(t, kerr, "kernel: %s", name)
			_, _, _, _, serr := ssh.ParseAuthorizedKey([]byte(key))
			assert.Error(t, serr, "x/crypto: %s", name)
		}
	})
}
