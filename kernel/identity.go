package kernel

import (
	"crypto/rand"
	"encoding/base32"
	"sort"
	"strings"
)

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns 26 lowercase base32 characters of randomness: random from the
// first character, so an 8-character prefix tells records apart the way a
// short git hash does (DESIGN, Identity).
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("kernel: no randomness: " + err.Error())
	}
	return idEncoding.EncodeToString(b[:])
}

// IDSet is what handle resolution needs to know about the records at a tip.
type IDSet interface {
	HasID(id string) bool
	AliasTarget(alias string) (id string, ok bool)
	// IDsWithPrefix returns up to limit ids starting with prefix.
	IDsWithPrefix(prefix string, limit int) []string
}

// ResolveHandle applies Addendum H.2 in order: exact id, alias, then a
// unique prefix of at least MinIDPrefix characters. "" means no match.
func ResolveHandle(s IDSet, handle string) (string, error) {
	if handle == "" {
		return "", nil
	}
	if s.HasID(handle) {
		return handle, nil
	}
	if id, ok := s.AliasTarget(handle); ok && s.HasID(id) {
		return id, nil
	}
	if len(handle) < MinIDPrefix {
		return "", nil
	}
	matches := s.IDsWithPrefix(handle, 10)
	switch len(matches) {
	case 0:
		return "", nil
	case 1:
		return matches[0], nil
	}
	sort.Strings(matches)
	return "", Errorf(CodeAmbiguousID, "%q matches %d records (%s): use more characters", handle, len(matches), strings.Join(matches, ", ")).
		WithExtra("matches", matches)
}
