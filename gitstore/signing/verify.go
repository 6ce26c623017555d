package signing

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// Causes carried by VerifySSH's errors (errors.Is), so `verify` can report
// what git's %G? would show (N, B, U).
var (
	ErrNoSignature = errors.New("commit is not signed")
	// ErrUnsupportedFormat comes alone, not with ErrNotVerified: an OpenPGP
	// or X.509 signature this package cannot check in-process. Callers
	// decide whether that fails verification or falls back to `git
	// verify-commit`.
	ErrUnsupportedFormat = errors.New("signature format is not ssh")
	ErrBadSignature      = errors.New("bad signature")
	ErrUnknownSigner     = errors.New("no allowed signer for this key")
	// ErrKeyNotValid comes with ErrUnknownSigner when the key is listed but
	// its validity window does not cover an instant it must be valid at.
	ErrKeyNotValid = errors.New("key not valid at that time")
)

// Armor headers by which git tells signature formats apart.
var (
	sshArmor     = []byte("-----BEGIN SSH SIGNATURE-----")
	openpgpArmor = [][]byte{[]byte("-----BEGIN PGP SIGNATURE-----"), []byte("-----BEGIN PGP MESSAGE-----")}
	x509Armor    = []byte("-----BEGIN SIGNED MESSAGE-----")
)

// VerifySSH checks an armored SSH signature over payload in namespace "git"
// against the allowed signers, as `git verify-commit` does with
// gpg.ssh.allowedSignersFile, in-process. at are the instants at which the
// key must be valid (valid-after/valid-before and certificate validity):
// git uses the commit's committer date; kernel.SigningInstants adds the time
// of receipt when a server judges a push. A zero instant means now, and so
// does giving none.
//
// It returns the principal git would report as signer (%GS): the first
// principal of the first allowed-signers entry for the key that the key is
// allowed to sign for in namespace "git" (for a certificate, the first
// certificate principal the CA's entry admits), and the key's
// "SHA256:..." fingerprint (also alongside an error when the signature
// parses). Unlike git, it does not consult gpg.ssh.revocationFile.
//
// OpenPGP and X.509 signatures return ErrUnsupportedFormat; everything
// else that fails returns ErrNotVerified wrapping one of the Err* causes
// above.
func VerifySSH(signers []AllowedSigner, payload, armoredSig []byte, at ...time.Time) (principal string, fingerprint string, err error) {
	return VerifySSHIn(sshNamespace, signers, payload, armoredSig, at...)
}

// VerifySSHIn is VerifySSH for a signature made in another namespace (an
// approval: ApprovalNamespace). Entries whose namespaces= option does not
// list it do not count.
func VerifySSHIn(namespace string, signers []AllowedSigner, payload, armoredSig []byte, at ...time.Time) (principal string, fingerprint string, err error) {
	return checkIn(namespace, payload, armoredSig).Verify(signers, at...)
}

// Checked is an SSH signature in namespace "git" parsed and checked
// against its payload: the cryptography, which does not depend on who is
// allowed to sign. Verify then asks the allowed signers about its key.
// Checking is the costly half, and is safe to run for many signatures at
// once, one goroutine each.
type Checked struct {
	namespace   string
	sig         *sshsig.Signature
	fingerprint string
	err         error
}

// CheckSSH parses and checks an armored signature over payload.
func CheckSSH(payload, armoredSig []byte) *Checked { return checkIn(sshNamespace, payload, armoredSig) }

func checkIn(namespace string, payload, armoredSig []byte) *Checked {
	c := &Checked{namespace: namespace}
	if c.sig, c.err = parseSSHSignature(armoredSig); c.err != nil {
		return c
	}
	c.fingerprint = keyFingerprint(c.sig.PublicKey)
	if err := checkSSHSignature(c.sig, payload, namespace); err != nil {
		c.err = verifyError(ErrBadSignature, "signature by %s does not match: %v", c.fingerprint, err)
	}
	return c
}

// Key is the fingerprint of the key that made the signature, and why the
// signature does not hold (nil when it matches its payload): who signed,
// whoever the allowed signers say may.
func (c *Checked) Key() (fingerprint string, err error) { return c.fingerprint, c.err }

// Verify is VerifySSH for a checked signature.
func (c *Checked) Verify(signers []AllowedSigner, at ...time.Time) (principal string, fingerprint string, err error) {
	if c.err != nil {
		return "", c.fingerprint, c.err
	}
	sig, namespace, fingerprint := c.sig, c.namespace, c.fingerprint
	if len(at) == 0 {
		at = []time.Time{{}}
	}
	instants := make([]time.Time, len(at))
	for i, t := range at {
		if t.IsZero() {
			t = time.Now()
		}
		instants[i] = t
	}
	// Git asks `ssh-keygen -Y find-principals` for candidates (first entry
	// holding the key and valid at the instant, namespaces ignored), then
	// tries `-Y verify -I <principal>` for each; the first that passes is
	// the signer. Here a candidate must pass at every instant.
	key := newSigningKey(sig.PublicKey)
	candidates := findPrincipals(signers, key, instants[0])
	for _, p := range candidates {
		ok := true
		for _, t := range instants {
			ok = ok && allowed(signers, key, p, namespace, t)
		}
		if ok {
			return p, fingerprint, nil
		}
	}
	for _, t := range instants {
		if len(findPrincipals(signers, key, t)) == 0 && listed(signers, key) {
			return "", fingerprint, verifyError(errors.Join(ErrUnknownSigner, ErrKeyNotValid),
				"key %s is in the allowed signers but not valid at %s", fingerprint, t.UTC().Format(time.RFC3339))
		}
	}
	when := instants[0].UTC().Format(time.RFC3339)
	if len(candidates) == 0 {
		return "", fingerprint, verifyError(ErrUnknownSigner,
			"key %s is not in the allowed signers (or not valid at %s)", fingerprint, when)
	}
	return "", fingerprint, verifyError(ErrUnknownSigner,
		"key %s is listed for %s but not allowed to sign in namespace %q at %s",
		fingerprint, strings.Join(candidates, ","), namespace, when)
}

// listed reports whether some entry holds the key or issued its
// certificate, whatever its validity.
func listed(signers []AllowedSigner, key signingKey) bool {
	for i := range signers {
		if key.heldBy(&signers[i]) || key.issuedBy(&signers[i]) {
			return true
		}
	}
	return false
}

func verifyError(cause error, format string, args ...any) error {
	return &kindError{kind: ErrNotVerified, cause: cause, message: fmt.Sprintf(format, args...)}
}

func parseSSHSignature(armored []byte) (*sshsig.Signature, error) {
	armored = bytes.TrimLeft(armored, " \t\r\n")
	switch {
	case len(armored) == 0:
		return nil, verifyError(ErrNoSignature, "no signature")
	case bytes.HasPrefix(armored, openpgpArmor[0]), bytes.HasPrefix(armored, openpgpArmor[1]), bytes.HasPrefix(armored, x509Armor):
		return nil, &kindError{kind: ErrUnsupportedFormat,
			message: "OpenPGP/X.509 signatures are not verified in-process yet; use `git verify-commit`"}
	case !bytes.HasPrefix(armored, sshArmor):
		return nil, verifyError(ErrBadSignature, "signature is in no format git knows")
	}
	block, rest := pem.Decode(armored)
	if block == nil || block.Type != sshsig.PEMType || len(bytes.TrimSpace(rest)) != 0 {
		// Trailing data would be a second signature or garbage that git's
		// ssh-keygen call would not accept either.
		return nil, verifyError(ErrBadSignature, "malformed SSH signature armor")
	}
	sig, err := sshsig.ParseSignature(block.Bytes)
	if err != nil {
		return nil, verifyError(ErrBadSignature, "malformed SSH signature: %v", err)
	}
	return sig, nil
}

// checkSSHSignature verifies the signature with the key it carries; whether
// that key may sign is decided afterwards against the allowed signers.
func checkSSHSignature(sig *sshsig.Signature, payload []byte, namespace string) error {
	// sshsig rejects SHA-1 "ssh-rsa" signatures only for plain RSA keys;
	// ssh-keygen rejects them for RSA certificates too.
	if cert, ok := sig.PublicKey.(*ssh.Certificate); ok && cert.Key.Type() == ssh.KeyAlgoRSA &&
		sig.Signature.Format != ssh.KeyAlgoRSASHA256 && sig.Signature.Format != ssh.KeyAlgoRSASHA512 {
		return errors.New("RSA signature must use rsa-sha2-256 or rsa-sha2-512")
	}
	return sshsig.Verify(bytes.NewReader(payload), sig, sig.PublicKey, sig.HashAlgorithm, namespace)
}

// signingKey is the key a signature carries, in wire form once per
// verification.
type signingKey struct {
	blob   []byte
	cert   *ssh.Certificate // non-nil when the key is a certificate
	caBlob []byte           // cert.SignatureKey's wire form
}

func newSigningKey(key ssh.PublicKey) signingKey {
	k := signingKey{blob: key.Marshal()}
	if cert, ok := key.(*ssh.Certificate); ok {
		k.cert, k.caBlob = cert, cert.SignatureKey.Marshal()
	}
	return k
}

// heldBy: a plain entry listing exactly this key (a certificate matches
// only an entry listing that certificate, as in OpenSSH's sshkey_equal).
func (k signingKey) heldBy(s *AllowedSigner) bool {
	return !s.CertAuthority && bytes.Equal(s.blob(), k.blob)
}

// issuedBy: a cert-authority entry for the CA that issued this certificate.
func (k signingKey) issuedBy(s *AllowedSigner) bool {
	return s.CertAuthority && k.cert != nil && bytes.Equal(s.blob(), k.caBlob)
}

// findPrincipals mirrors ssh-keygen -Y find-principals: the first entry
// whose key matches and whose validity covers at yields the candidates, one
// per listed principal (for a CA entry, the certificate's principals that
// the entry's patterns admit).
func findPrincipals(signers []AllowedSigner, key signingKey, at time.Time) []string {
	for i := range signers {
		s := &signers[i]
		switch {
		case !validAt(s, at):
		case key.heldBy(s):
			return s.Principals
		case key.issuedBy(s):
			var found []string
			for _, pattern := range s.Principals {
				for _, p := range key.cert.ValidPrincipals {
					if matchPattern(p, pattern) && certAuthorizes(key.cert, p, at) {
						found = append(found, p)
					}
				}
			}
			if len(found) > 0 {
				return found
			}
		}
	}
	return nil
}

// allowed mirrors ssh-keygen -Y verify -I principal: some entry lists the
// principal, holds the key (or issued its certificate for that principal),
// permits the namespace and is valid at at.
func allowed(signers []AllowedSigner, key signingKey, principal, namespace string, at time.Time) bool {
	for i := range signers {
		s := &signers[i]
		if !matchList(principal, s.Principals) || !validAt(s, at) {
			continue
		}
		if len(s.Namespaces) > 0 && !matchList(namespace, s.Namespaces) {
			continue
		}
		if key.heldBy(s) || (key.issuedBy(s) && certAuthorizes(key.cert, principal, at)) {
			return true
		}
	}
	return false
}

// validAt applies valid-after/valid-before at one-second resolution, as
// ssh-keygen compares Unix seconds (valid-before itself still valid).
func validAt(s *AllowedSigner, at time.Time) bool {
	t := at.Unix()
	if !s.ValidAfter.IsZero() && t < s.ValidAfter.Unix() {
		return false
	}
	return s.ValidBefore.IsZero() || t <= s.ValidBefore.Unix()
}

// certAuthorizes is OpenSSH's sshkey_cert_check_authority for a user
// certificate: issued by its SignatureKey, valid at at, listing principal
// (a certificate with no principals authorizes nobody here).
func certAuthorizes(cert *ssh.Certificate, principal string, at time.Time) bool {
	if cert.CertType != ssh.UserCert || len(cert.ValidPrincipals) == 0 {
		return false
	}
	checker := &ssh.CertChecker{Clock: func() time.Time { return at }}
	// Critical options (force-command, source-address) restrict logins,
	// not signatures; OpenSSH ignores them here, so accept whatever is set.
	for opt := range cert.CriticalOptions {
		checker.SupportedCriticalOptions = append(checker.SupportedCriticalOptions, opt)
	}
	return checker.CheckCert(principal, cert) == nil
}

// SplitSignature returns what git verifies for a commit: the payload (the
// object's content without its gpgsig header) and the signature (the header
// value, continuation lines unindented, ending in a newline). Other
// signature headers (gpgsig-sha256, for the other hash) are dropped from the
// payload as git drops them. rawCommit is the object's content, as
// `git cat-file commit` prints it. An unsigned commit returns nil sig.
func SplitSignature(rawCommit []byte) (payload, sig []byte) {
	payload = make([]byte, 0, len(rawCommit))
	inSig, otherSig := false, false
	for rest := rawCommit; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		switch {
		case inSig && line[0] == ' ':
			sig = append(sig, line[1:]...)
			continue
		case bytes.HasPrefix(line, []byte("gpgsig ")):
			sig = append(sig, line[len("gpgsig "):]...)
			inSig, otherSig = true, false
			continue
		case bytes.HasPrefix(line, []byte("gpgsig")):
			otherSig = true
		case otherSig && line[0] != ' ':
			otherSig = false
		}
		inSig = false
		if line[0] == '\n' {
			// End of headers: the message is payload verbatim.
			return append(append(payload, line...), rest...), sig
		}
		if !otherSig {
			payload = append(payload, line...)
		}
	}
	return payload, sig
}
