package signing

import (
	"bytes"
	"fmt"
	"os/exec"
)

// gpgSigner runs `<program> --status-fd=2 -bsau <key>` with the payload on
// stdin, as git's sign_buffer_gpg does for openpgp (gpg) and x509 (gpgsm).
type gpgSigner struct {
	format, program, key string
}

func newGPGSigner(format, program, key, committerName, committerEmail string) (*gpgSigner, error) {
	if key != "" {
		return &gpgSigner{format, program, key}, nil
	}
	// Git falls back to the committer ident. We only do so when the program
	// actually holds a secret key for it: a user who configured nothing
	// should hear how to get a key, not a cryptic gpg failure at commit time.
	if committerName == "" || committerEmail == "" {
		return nil, noKeyError("no signing key configured and no committer identity to look one up by")
	}
	ident := fmt.Sprintf("%s <%s>", committerName, committerEmail)
	if _, err := exec.LookPath(program); err != nil {
		return nil, noKeyError(fmt.Sprintf("no signing key configured (%s, needed for gpg.format=%s, is not installed)", program, format))
	}
	if err := exec.Command(program, "--batch", "--list-secret-keys", ident).Run(); err != nil {
		return nil, noKeyError(fmt.Sprintf("no signing key configured and %s has no secret key for %q", program, ident))
	}
	return &gpgSigner{format, program, ident}, nil
}

func (g *gpgSigner) Format() string    { return g.format }
func (g *gpgSigner) Principal() string { return g.key }

func (g *gpgSigner) Sign(payload []byte) ([]byte, error) {
	var sig, status bytes.Buffer
	cmd := exec.Command(g.program, "--status-fd=2", "-bsau", g.key)
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = &sig, &status
	err := cmd.Run()
	// Like git, trust only the status line: gpg can exit 0 without signing.
	if err == nil && !sigCreated(status.Bytes()) {
		err = fmt.Errorf("no SIG_CREATED status")
	}
	if err != nil {
		return nil, signingFailed(g.program+" -bsau "+g.key, err, status.String())
	}
	return removeCR(sig.Bytes()), nil
}

// sigCreated reports whether a status stream has a line starting with
// "[GNUPG:] SIG_CREATED ".
func sigCreated(status []byte) bool {
	const marker = "[GNUPG:] SIG_CREATED "
	for line := range bytes.Lines(status) {
		if bytes.HasPrefix(line, []byte(marker)) {
			return true
		}
	}
	return false
}

var (
	_ Signer = (*gpgSigner)(nil)
	_ Signer = (*sshSigner)(nil)
)
