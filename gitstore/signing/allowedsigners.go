package signing

import (
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// AllowedSigner is one entry of an SSH allowed-signers file (ssh-keygen(1),
// ALLOWED SIGNERS): `principals [options] key`, as VerifySSH matches a
// signature's key against it. The kernel reads the file (its trust model
// owns the list of signers); the store hands each entry over, its key
// read with ReadKey.
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

	keyBlob []byte // Key.Marshal(), kept by ReadKey
}

// ReadKey sets the entry's Key from its SSH wire form (an error when
// x/crypto cannot read it) and keeps that form to compare keys by.
func (s *AllowedSigner) ReadKey(blob []byte) error {
	key, err := ssh.ParsePublicKey(blob)
	if err != nil {
		return fmt.Errorf("no valid key: %w", err)
	}
	s.Key, s.keyBlob = key, blob
	return nil
}

// blob is the key's wire form. OpenSSH compares keys by it; keeping it
// matters because x/crypto's Marshal is reflection-based and VerifySSH
// compares against every entry for every commit.
func (s *AllowedSigner) blob() []byte {
	if s.keyBlob == nil {
		return s.Key.Marshal()
	}
	return s.keyBlob
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
