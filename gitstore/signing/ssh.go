package signing

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// sshNamespace is the sshsig namespace git signs and verifies commits in.
const sshNamespace = "git"

// sshSigner signs in-process when it holds the private key, and otherwise
// runs `<program> -Y sign -n git -f <keyFile> <buffer>` exactly as git's
// sign_buffer_ssh does.
type sshSigner struct {
	inProcess ssh.Signer // nil: exec

	program string
	keyFile string // path given to -f; empty when literal is set
	literal string // a literal public key: written to a temp file, signed with -U (agent)

	principal atomic.Pointer[string]
	publicKey atomic.Pointer[string] // authorized-keys line of the key, when known
}

func newSSHSigner(key, program string, o options) (*sshSigner, error) {
	s := &sshSigner{program: program}
	var pub ssh.PublicKey

	if lit, ok := literalSSHKey(key); ok {
		p, _, _, _, err := ssh.ParseAuthorizedKey([]byte(lit))
		if err != nil {
			return nil, noKeyError(fmt.Sprintf("signing key %q is not an SSH public key", key))
		}
		s.literal, pub = lit, p
	} else {
		s.keyFile = expandPath(key)
		data, err := os.ReadFile(s.keyFile)
		if err != nil {
			return nil, noKeyError(fmt.Sprintf("cannot read SSH signing key %s: %v", s.keyFile, err))
		}
		signer, p := loadSSHKey(s.keyFile, data)
		if !o.execOnly {
			s.inProcess = signer
		}
		pub = p
	}
	if pub != nil {
		s.setPrincipal(pub)
	}
	return s, nil
}

// loadSSHKey reads what user.signingkey names. It returns an in-process
// signer only when the private key is readable without a passphrase and is a
// plain key (not a certificate: those go through ssh-keygen, which grafts
// the certificate onto the signature). pub is nil when the file says nothing
// about it (legacy encrypted PEM without a .pub beside it); the principal is
// then learned from the first signature.
func loadSSHKey(path string, data []byte) (signer ssh.Signer, pub ssh.PublicKey) {
	raw, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	switch {
	case err == nil:
		if s, err := ssh.NewSignerFromKey(raw); err == nil {
			return s, s.PublicKey()
		}
	case errors.As(err, &missing):
		// Encrypted: ssh-keygen prompts (or asks the agent), as under git.
		pub = missing.PublicKey
	default:
		// A public key file: ssh-keygen signs with the private key beside it
		// (stripping ".pub" / "-cert.pub") or the agent. Only the plain
		// ".pub" case with an unencrypted private key is done in-process.
		if p, _, _, _, err := ssh.ParseAuthorizedKey(data); err == nil {
			if _, isCert := p.(*ssh.Certificate); !isCert {
				if priv, ok := strings.CutSuffix(path, ".pub"); ok {
					if s := unencryptedSigner(priv, p); s != nil {
						return s, p
					}
				}
			}
			return nil, p
		}
	}
	if pub == nil {
		if data, err := os.ReadFile(path + ".pub"); err == nil {
			pub, _, _, _, _ = ssh.ParseAuthorizedKey(data)
		}
	}
	return nil, pub
}

// unencryptedSigner returns a signer for the private key at path if it can
// be read without a passphrase and matches want.
func unencryptedSigner(path string, want ssh.PublicKey) ssh.Signer {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	raw, err := ssh.ParseRawPrivateKey(data)
	if err != nil {
		return nil
	}
	s, err := ssh.NewSignerFromKey(raw)
	if err != nil || !bytes.Equal(s.PublicKey().Marshal(), want.Marshal()) {
		return nil
	}
	return s
}

func (s *sshSigner) Format() string { return FormatSSH }

func (s *sshSigner) Principal() string {
	if p := s.principal.Load(); p != nil {
		return *p
	}
	return ""
}

func (s *sshSigner) setPrincipal(pub ssh.PublicKey) {
	fp := keyFingerprint(pub)
	s.principal.Store(&fp)
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
	s.publicKey.Store(&line)
}

// PublicKeyLine is the signing key in authorized-keys form ("ssh-ed25519
// AAAA…"), what an allowed-signers entry for it holds; "" when unknown.
func (s *sshSigner) PublicKeyLine() string {
	if p := s.publicKey.Load(); p != nil {
		return *p
	}
	return ""
}

func (s *sshSigner) Sign(payload []byte) ([]byte, error) { return s.signIn(sshNamespace, payload) }

// signIn signs in an sshsig namespace: "git" for commits, another for
// what must never pass for a commit signature (approvals).
func (s *sshSigner) signIn(namespace string, payload []byte) ([]byte, error) {
	if s.inProcess != nil {
		// sha512 is what ssh-keygen uses by default; ed25519 signatures are
		// deterministic, so this output is byte-identical to ssh-keygen's.
		sig, err := sshsig.Sign(bytes.NewReader(payload), s.inProcess, sshsig.HashSHA512, namespace)
		if err != nil {
			return nil, signingFailedf(err, "ssh signing")
		}
		return armorSSH(sig.Marshal()), nil
	}
	sig, err := s.execSign(namespace, payload)
	if err != nil {
		return nil, err
	}
	if s.Principal() == "" {
		if parsed, err := sshsig.Unarmor(sig); err == nil {
			s.setPrincipal(parsed.PublicKey)
		}
	}
	return sig, nil
}

// execSign mirrors git's sign_buffer_ssh: the payload goes in a temp file,
// ssh-keygen writes <file>.sig next to it; a literal key is written to a
// temp file and -U tells ssh-keygen the private half is in the agent.
func (s *sshSigner) execSign(namespace string, payload []byte) (sig []byte, err error) {
	keyFile := s.keyFile
	if s.literal != "" {
		if keyFile, err = writeTemp(".git_signing_key_tmp*", []byte(s.literal)); err != nil {
			return nil, err
		}
		defer os.Remove(keyFile)
	}
	buffer, err := writeTemp(".git_signing_buffer_tmp*", payload)
	if err != nil {
		return nil, err
	}
	defer os.Remove(buffer)
	defer os.Remove(buffer + ".sig")

	args := []string{"-Y", "sign", "-n", namespace, "-f", keyFile}
	if s.literal != "" {
		args = append(args, "-U")
	}
	args = append(args, buffer)
	var output bytes.Buffer
	cmd := exec.Command(s.program, args...)
	// Stdin stays /dev/null as under git; ssh-keygen asks for a passphrase
	// on /dev/tty or SSH_ASKPASS. Its stdout is captured too so nothing it
	// prints can corrupt our own (JSON) output.
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return nil, signingFailed(s.program+" -Y sign", err, output.String())
	}
	sig, err = os.ReadFile(buffer + ".sig")
	if err != nil {
		return nil, signingFailedf(err, "%s -Y sign wrote no signature", s.program)
	}
	return removeCR(sig), nil
}

func writeTemp(pattern string, data []byte) (string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", signingFailedf(err, "create temporary file for signing")
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", signingFailedf(werr, "write temporary file for signing")
	}
	return f.Name(), nil
}

func signingFailed(what string, err error, output string) error {
	return &ProgramError{Command: what, Output: strings.TrimSpace(output), Err: err}
}

// removeCR strips carriage returns as git does, for signers on Windows.
func removeCR(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r"), nil) }

// armorSSH formats a signature blob the way ssh-keygen's sshsig_armor does
// (base64 wrapped at 70 columns, trailing newline), so in-process and
// ssh-keygen signatures are byte-identical. sshsig.Armor wraps at 64, which
// verifies just as well but would differ for no reason.
func armorSSH(blob []byte) []byte {
	const width = 70
	enc := base64.StdEncoding.EncodeToString(blob)
	var b bytes.Buffer
	b.WriteString("-----BEGIN SSH SIGNATURE-----\n")
	for len(enc) > width {
		b.WriteString(enc[:width])
		b.WriteByte('\n')
		enc = enc[width:]
	}
	b.WriteString(enc)
	b.WriteString("\n-----END SSH SIGNATURE-----\n")
	return b.Bytes()
}

// keyFingerprint is what ssh-keygen and git print for a key: the SHA256 of the
// plain key, also when the signature carries a certificate.
func keyFingerprint(pub ssh.PublicKey) string {
	if cert, ok := pub.(*ssh.Certificate); ok {
		pub = cert.Key
	}
	return ssh.FingerprintSHA256(pub)
}
