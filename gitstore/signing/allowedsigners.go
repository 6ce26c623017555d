package signing

import (
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/git-records/git-records/kernel"
)

// AllowedSigner is one line of an SSH allowed-signers file (ssh-keygen(1),
// ALLOWED SIGNERS): `principals [options] key`.
type AllowedSigner struct {
	// Principals are patterns ('*', '?', and '!' to negate), as listed.
	Principals []string
	// Namespaces restricts the key to these namespace patterns; empty means any.
	Namespaces []string
	Key        ssh.PublicKey
	// ValidAfter / ValidBefore bound when the key may have signed; zero means
	// unbounded. ssh-keygen reads times without "Z" as local time; so do we.
	ValidAfter, ValidBefore time.Time
	// CertAuthority: Key is a CA, and signatures must carry a user
	// certificate it issued.
	CertAuthority bool

	keyBlob []byte // Key.Marshal(), cached by ParseAllowedSigners
}

// blob is the key's wire form. OpenSSH compares keys by it; caching it
// matters because x/crypto's Marshal is reflection-based and VerifySSH
// compares against every entry for every commit.
func (s *AllowedSigner) blob() []byte {
	if s.keyBlob == nil {
		return s.Key.Marshal()
	}
	return s.keyBlob
}

// ParseAllowedSigners parses the allowed-signers format with the kernel's
// parser (kernel.ParseAllowedSigners: the one reading of the file, which
// verify, the gate and the hooks share) and reads each key for the
// signature check.
func ParseAllowedSigners(data []byte) ([]AllowedSigner, error) {
	parsed, err := kernel.ParseAllowedSigners(data)
	if err != nil {
		return nil, err
	}
	return FromKernel(parsed)
}

// FromKernel reads the keys of signers the kernel parsed (a kernel.Trust's),
// for VerifySSH.
func FromKernel(signers []kernel.Signer) ([]AllowedSigner, error) {
	out := make([]AllowedSigner, 0, len(signers))
	for _, k := range signers {
		key, err := ssh.ParsePublicKey(k.KeyBlob)
		if err != nil {
			// The kernel checked the blob's shape; a key x/crypto still
			// refuses would be a disagreement between the two readers.
			return nil, kernel.Errorf(kernel.CodeInvalidRecord, "allowed signers line %d: no valid key: %v", k.Line, err)
		}
		out = append(out, AllowedSigner{Principals: k.Principals, Namespaces: k.Namespaces, Key: key,
			ValidAfter: k.ValidAfter, ValidBefore: k.ValidBefore, CertAuthority: k.CertAuthority, keyBlob: k.KeyBlob})
	}
	return out, nil
}

// matchList is OpenSSH's match_pattern_list: true when s matches some
// pattern and no negated ("!") pattern.
func matchList(s string, patterns []string) bool {
	positive := false
	for _, p := range patterns {
		if neg, ok := strings.CutPrefix(p, "!"); ok {
			if matchPattern(s, neg) {
				return false
			}
		} else if matchPattern(s, p) {
			positive = true
		}
	}
	return positive
}

// matchPattern is OpenSSH's match_pattern: '*' any run, '?' one character,
// nothing else special (unlike path.Match there are no classes or escapes).
func matchPattern(s, p string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for p = p[1:]; len(p) > 0 && p[0] == '*'; p = p[1:] {
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if matchPattern(s[i:], p) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
		}
		s, p = s[1:], p[1:]
	}
	return s == ""
}
