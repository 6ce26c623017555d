package signing

import (
	"fmt"
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

// ParseAllowedSigners parses the allowed-signers format: blank lines and
// '#' comments, comma-separated principals (optionally double-quoted),
// options cert-authority, namespaces="...", valid-after="...",
// valid-before="..." (YYYYMMDD[HHMM[SS]] with optional Z/UTC), then the key
// and an optional comment.
//
// ssh-keygen skips a malformed line with a log message; we reject the file
// instead, naming the line, because the file is policy reviewed on the
// branch and a typo there should be loud, not silently distrust a signer.
func ParseAllowedSigners(data []byte) ([]AllowedSigner, error) {
	var out []AllowedSigner
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimLeft(strings.TrimRight(line, "\r"), " \t")
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := parseAllowedSigner(line)
		if err != nil {
			return nil, kernel.Errorf(kernel.CodeInvalidRecord, "allowed signers line %d: %v", n+1, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func parseAllowedSigner(line string) (AllowedSigner, error) {
	var s AllowedSigner
	principals, rest, err := firstField(line)
	if err != nil {
		return s, err
	}
	if principals == "" || rest == "" {
		return s, fmt.Errorf("want principals and a key")
	}
	s.Principals = strings.Split(principals, ",")

	// ParseAuthorizedKey understands the same "[options] keytype base64
	// [comment]" shape, including quoted commas in options.
	key, _, opts, _, err := ssh.ParseAuthorizedKey([]byte(rest))
	if err != nil {
		return s, fmt.Errorf("no valid key: %v", err)
	}
	s.Key, s.keyBlob = key, key.Marshal()
	seen := map[string]bool{}
	for _, opt := range opts {
		name, value, hasValue := strings.Cut(opt, "=")
		name = strings.ToLower(name)
		if seen[name] {
			return s, fmt.Errorf("option %s given twice", name)
		}
		seen[name] = true
		switch {
		case name == "cert-authority" && !hasValue:
			s.CertAuthority = true
			continue
		case !hasValue || (name != "namespaces" && name != "valid-after" && name != "valid-before"):
			return s, fmt.Errorf("unknown option %q", opt)
		}
		value, err := dequote(value)
		if err == nil {
			switch name {
			case "namespaces":
				s.Namespaces = strings.Split(value, ",")
			case "valid-after":
				s.ValidAfter, err = parseSSHTime(value)
			case "valid-before":
				s.ValidBefore, err = parseSSHTime(value)
			}
		}
		if err != nil {
			return s, fmt.Errorf("option %s: %v", name, err)
		}
	}
	if !s.ValidAfter.IsZero() && !s.ValidBefore.IsZero() && !s.ValidBefore.After(s.ValidAfter) {
		return s, fmt.Errorf("valid-before is not after valid-after")
	}
	return s, nil
}

// firstField splits off the principals the way OpenSSH's strdelimw does: up
// to whitespace, where a double quote starts a quoted run that ends the field.
func firstField(line string) (field, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ', '\t':
			return b.String(), strings.TrimLeft(line[i:], " \t"), nil
		case '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 {
				return "", "", fmt.Errorf("unterminated quote in principals")
			}
			b.WriteString(line[i+1 : i+1+end])
			return b.String(), strings.TrimLeft(line[i+2+end:], " \t"), nil
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), "", nil
}

// dequote reads an option value, which OpenSSH requires in double quotes
// (with \" for a literal quote).
func dequote(v string) (string, error) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", fmt.Errorf("value must be double-quoted")
	}
	return strings.ReplaceAll(v[1:len(v)-1], `\"`, `"`), nil
}

// parseSSHTime is OpenSSH's parse_absolute_time: YYYYMMDD, YYYYMMDDHHMM or
// YYYYMMDDHHMMSS, in UTC with a "Z" or "UTC" suffix, else local time.
func parseSSHTime(v string) (time.Time, error) {
	loc := time.Local
	upper := strings.ToUpper(v)
	if s, ok := strings.CutSuffix(upper, "Z"); ok && len(v) > 1 {
		v, loc = s, time.UTC
	} else if s, ok := strings.CutSuffix(upper, "UTC"); ok && len(v) > 3 {
		v, loc = s, time.UTC
	}
	layouts := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}
	layout, ok := layouts[len(v)]
	if !ok {
		return time.Time{}, fmt.Errorf("time %q: want YYYYMMDD[HHMM[SS]][Z]", v)
	}
	t, err := time.ParseInLocation(layout, v, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: %v", v, err)
	}
	return t, nil
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
