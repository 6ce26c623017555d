package signing

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
)

// GenerateSSHKey writes a new ed25519 key pair: privPath in the OpenSSH
// private key format ssh-keygen writes (mode 0600, no passphrase, so git,
// ssh-keygen and our in-process signer can all use it) and privPath+".pub".
// It returns the public key line ("ssh-ed25519 AAAA... comment"). It never
// overwrites an existing file: losing a signing key orphans every
// allowed_signers entry that names it.
func GenerateSSHKey(privPath, comment string) (pubLine string, err error) {
	// A newline in the comment would split the .pub line in two.
	comment = strings.Join(strings.Fields(comment), " ")
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", fmt.Errorf("generate ed25519 key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return "", fmt.Errorf("encode private key: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("encode public key: %w", err)
	}
	pubLine = strings.TrimSuffix(string(ssh.MarshalAuthorizedKey(sshPub)), "\n")
	if comment != "" {
		pubLine += " " + comment
	}

	if err := os.MkdirAll(filepath.Dir(privPath), 0o700); err != nil {
		return "", fmt.Errorf("create key directory: %w", err)
	}
	if err := writeNew(privPath, pem.EncodeToMemory(block), 0o600); err != nil {
		return "", err
	}
	if err := writeNew(privPath+".pub", []byte(pubLine+"\n"), 0o644); err != nil {
		os.Remove(privPath)
		return "", err
	}
	return pubLine, nil
}

// writeNew creates path exclusively and syncs it: the key must survive a
// crash right after `init` has published its public half.
func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrExist) {
		return &kindError{kind: ErrKeyExists, cause: err, message: path + " already exists; refusing to overwrite a key"}
	}
	if err != nil {
		return fmt.Errorf("write key: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write key %s: %w", path, err)
	}
	return nil
}

// AllowedSignersLine formats one line of git's SSH allowed-signers file:
// `principal namespaces="git,git-records-approval" key`. The namespace
// restriction means the key vouches for commits and approvals
// (ApprovalNamespace) only, not for other sshsig uses. A principal with
// whitespace is quoted; principals cannot contain '"' or ',' (the latter
// separates principals).
func AllowedSignersLine(principal, pubLine string) string {
	if strings.ContainsAny(principal, " \t") {
		principal = `"` + principal + `"`
	}
	return principal + ` namespaces="` + sshNamespace + `,` + ApprovalNamespace + `" ` + strings.TrimSpace(pubLine)
}
