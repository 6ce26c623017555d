package kernel

import (
	"bytes"
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// Trust is who may sign a records branch and what each signer may do, as
// one commit's .records/allowed_signers and .records/policy.yaml say. It is
// the one place trust is read: the write gate, verify, the merge-in check
// and capabilities all ask it. A Trust whose files do not parse allows
// nothing and says why (Err): a broken policy never silently means "the
// default" or "everyone".
type Trust struct {
	signersData, policyData []byte
	hasSigners, hasPolicy   bool

	signers  []Signer
	policies []*Policy // every one must allow (a merge whose sides both changed the policy)
	byFP     map[string]string
	err      error

	// lastGood is the nearest earlier trust that parsed, set by whoever
	// loads a broken one: a policy commit that repairs the store is judged
	// under it, since the broken trust allows nothing (see For).
	lastGood *Trust
}

// Signer is one line of an SSH allowed-signers file (ssh-keygen(1), ALLOWED
// SIGNERS): `principals [options] keytype base64-key [comment]`.
type Signer struct {
	Principals []string // patterns ('*', '?', '!' negates), as listed
	Namespaces []string // empty: any namespace
	// ValidAfter / ValidBefore bound when the key may have signed; zero is
	// unbounded. ssh-keygen reads times without "Z" as local time; so do we.
	ValidAfter, ValidBefore time.Time
	CertAuthority           bool   // the key is a CA: signatures carry a certificate it issued
	KeyType                 string // "ssh-ed25519", …
	KeyBlob                 []byte // the key in SSH wire form
	Fingerprint             string // "SHA256:…", as ssh-keygen -l prints it
	Line                    int    // 1-based line in the file
}

// Fingerprint is the SHA256 fingerprint of an SSH key in wire form, as
// ssh-keygen -l and git print it.
func Fingerprint(keyBlob []byte) string {
	sum := sha256.Sum256(keyBlob)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// NewTrust reads trust from the bytes of .records/allowed_signers and
// .records/policy.yaml (nil: the file is absent). Without allowed_signers
// no key is listed; without a policy, DefaultPolicy applies (every listed
// signer maintains).
func NewTrust(allowedSigners, policy []byte) *Trust {
	t := &Trust{signersData: allowedSigners, policyData: policy, hasSigners: allowedSigners != nil, hasPolicy: policy != nil,
		byFP: map[string]string{}}
	var errs []string
	if allowedSigners != nil {
		signers, err := ParseAllowedSigners(allowedSigners)
		if err != nil {
			errs = append(errs, "allowed_signers: "+messageOf(err))
		}
		t.signers = signers
		for _, s := range signers {
			if _, seen := t.byFP[s.Fingerprint]; !seen && !s.CertAuthority && len(s.Principals) > 0 {
				t.byFP[s.Fingerprint] = s.Principals[0]
			}
		}
	}
	p := DefaultPolicy
	if policy != nil {
		var err error
		if p, err = ParsePolicy(policy); err != nil {
			errs = append(errs, messageOf(err))
		}
	}
	if len(errs) > 0 {
		t.err = Errorf(CodeInvalidRecord, "the store's trust is broken, so nothing is allowed: %s", strings.Join(errs, "; ")).
			WithExtra("rule", "trust")
		t.signers, t.byFP, p = nil, map[string]string{}, &Policy{Version: 1}
	}
	t.policies = []*Policy{p}
	return t
}

// Err says why the trust is broken (nil when both files parse).
func (t *Trust) Err() error { return t.err }

// Refusal is the error a write under a broken trust gets: what is broken
// and how to repair it (nil when the trust parses).
func (t *Trust) Refusal() *Error {
	if t.err == nil {
		return nil
	}
	return Errorf(CodePermissionDenied, "%s: %s", messageOf(t.err), RepairHint).WithExtra("rule", "trust")
}

// CheckTrustChange is the rule for a commit that writes allowed_signers or
// policy.yaml: the trust it leaves must parse. A broken trust allows
// nothing, so a commit that broke it would refuse every later one.
func CheckTrustChange(after *Trust) error {
	if after.err == nil {
		return nil
	}
	return Errorf(CodeInvalidRecord, "%s: a commit may not leave the store's trust broken (nothing would be allowed after it); fix the file and commit again",
		strings.TrimPrefix(messageOf(after.err), "the store's trust is broken, so nothing is allowed: "))
}

// messageOf is a coded error's message without its code.
func messageOf(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Message
	}
	return err.Error()
}

// Signers are the parsed allowed signers (none when broken).
func (t *Trust) Signers() []Signer { return t.signers }

// ListsSigners reports whether the store has an allowed_signers file: a
// store without one has not set up signing trust yet.
func (t *Trust) ListsSigners() bool { return t.hasSigners }

// Policy is the policy in force (the first, when a merge holds to several);
// under a broken trust an empty one that allows nothing.
func (t *Trust) Policy() *Policy { return t.policies[0] }

// PolicyData is the policy file's bytes (nil: the file is absent).
func (t *Trust) PolicyData() []byte { return t.policyData }

// SignersData is the allowed_signers file's bytes (nil: absent).
func (t *Trust) SignersData() []byte { return t.signersData }

// Principal is the principal allowed_signers names first for a plain key
// with this fingerprint ("" when the key is not listed).
func (t *Trust) Principal(fingerprint string) string { return t.byFP[fingerprint] }

// Decide applies the policy (every policy, for a merge of two) to
// (principal, op, type, category). A broken trust allows nothing.
func (t *Trust) Decide(principal string, op Op, typ, category string) Decision {
	if t.err != nil {
		return Decision{Risk: opSpecs[op].Risk, Rule: "trust", Reason: messageOf(t.err) + ": " + RepairHint}
	}
	var d Decision
	for i, p := range t.policies {
		d = p.Decide(principal, op, typ, category)
		if !d.Allowed {
			if i > 0 {
				d.Reason += " (under the policy the other side of the merge set)"
			}
			return d
		}
	}
	return d
}

// RepairHint says how a broken store is repaired.
const RepairHint = "a maintainer of the last policy that parsed repairs it with a policy commit (git records policy set <fixed policy.yaml> or git records signers add), judged under that policy"

// Equal reports whether two trusts come from the same files.
func (t *Trust) Equal(o *Trust) bool {
	if t == o {
		return true
	}
	if len(t.policies) != 1 || len(o.policies) != 1 {
		return false
	}
	return t.hasSigners == o.hasSigners && t.hasPolicy == o.hasPolicy &&
		bytes.Equal(t.signersData, o.signersData) && bytes.Equal(t.policyData, o.policyData)
}

// WithLastGood returns t remembering the nearest earlier trust that parsed,
// under which a repairing policy commit is judged. A trust that parses is
// returned as it is.
func (t *Trust) WithLastGood(good *Trust) *Trust {
	if t.err == nil || good == nil || good.err != nil {
		return t
	}
	c := *t
	c.lastGood = good
	return &c
}

// For is the trust a commit doing op is judged under: t itself, except that
// under a broken trust a policy commit (the repair) is judged under the last
// trust that parsed. The repair must itself leave files that parse
// (CheckTrustChange), so a broken trust cannot be replaced by another.
func (t *Trust) For(op Op) *Trust {
	if t.err != nil && op == OpPolicy && t.lastGood != nil {
		return t.lastGood
	}
	return t
}

// MergeTrust is the trust a merge and everything it brings in are judged
// under: the newest either side carries. The signers are the line merge of
// both sides from their base (a key either side removed stays removed, a
// key either side added is kept), and the policy is the side's that changed
// it; when both changed it, both must allow. So a side branched from
// before a revocation or a demotion cannot bring in, or sign a merge with,
// what the other side no longer allows, whichever parent comes first.
func MergeTrust(base, ours, theirs *Trust) *Trust {
	if ours.Equal(theirs) {
		return ours
	}
	if ours.Equal(base) {
		return theirs
	}
	if theirs.Equal(base) {
		return ours
	}
	signers := ours.signersData
	if !bytes.Equal(ours.signersData, theirs.signersData) {
		signers = MergeSigners(base.signersData, ours.signersData, theirs.signersData)
		if signers == nil && (ours.hasSigners || theirs.hasSigners) {
			signers = []byte{}
		}
	}
	t := NewTrust(signers, ours.policyData)
	for _, side := range []*Trust{ours, theirs} {
		if side.err != nil {
			t.err = side.err
		}
	}
	if t.err != nil {
		t.signers, t.byFP, t.policies = nil, map[string]string{}, []*Policy{{Version: 1}}
		return t
	}
	switch {
	case bytes.Equal(ours.policyData, theirs.policyData) && ours.hasPolicy == theirs.hasPolicy:
	case bytes.Equal(ours.policyData, base.policyData) && ours.hasPolicy == base.hasPolicy:
		t.policyData, t.hasPolicy, t.policies = theirs.policyData, theirs.hasPolicy, theirs.policies
	case bytes.Equal(theirs.policyData, base.policyData) && theirs.hasPolicy == base.hasPolicy:
	default:
		t.policies = append(append([]*Policy(nil), ours.policies...), theirs.policies...)
	}
	return t
}

// MergeSigners merges two edits of an allowed-signers file from their
// base: a line either side added is kept, a line either side removed stays
// removed (a revocation is never undone by a merge), in ours' order and
// then theirs' additions.
func MergeSigners(base, ours, theirs []byte) []byte {
	lines := func(b []byte) []string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(l) != "" {
				out = append(out, l)
			}
		}
		return out
	}
	inBase, inTheirs := map[string]bool{}, map[string]bool{}
	for _, l := range lines(base) {
		inBase[l] = true
	}
	for _, l := range lines(theirs) {
		inTheirs[l] = true
	}
	var b strings.Builder
	seen := map[string]bool{}
	keep := func(l string) {
		if !seen[l] {
			seen[l] = true
			b.WriteString(l + "\n")
		}
	}
	for _, l := range lines(ours) {
		if !inBase[l] || inTheirs[l] {
			keep(l)
		}
	}
	for _, l := range lines(theirs) {
		if !inBase[l] {
			keep(l)
		}
	}
	return []byte(b.String())
}

// ParseAllowedSigners parses the allowed-signers format: blank lines and '#'
// comments, comma-separated principals (optionally double-quoted), options
// cert-authority, namespaces="…", valid-after="…", valid-before="…"
// (YYYYMMDD[HHMM[SS]] with optional Z/UTC), then the key type, the base64
// key and an optional comment.
//
// ssh-keygen skips a malformed line with a log message; we reject the file
// instead, naming the line, because the file is policy reviewed on the
// branch and a typo there should be loud, not silently distrust a signer.
func ParseAllowedSigners(data []byte) ([]Signer, error) {
	var out []Signer
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimLeft(strings.TrimRight(line, "\r"), " \t")
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := parseSignerLine(line)
		if err != nil {
			return nil, Errorf(CodeInvalidRecord, "allowed signers line %d: %v", n+1, err)
		}
		s.Line = n + 1
		out = append(out, s)
	}
	return out, nil
}

func parseSignerLine(line string) (Signer, error) {
	var s Signer
	principals, rest, err := firstField(line)
	if err != nil {
		return s, err
	}
	if principals == "" || rest == "" {
		return s, fmt.Errorf("want principals and a key")
	}
	s.Principals = strings.Split(principals, ",")
	var opts []string
	if typ, _, _ := strings.Cut(strings.ReplaceAll(rest, "\t", " "), " "); !knownKeyType(typ) {
		opts, rest = splitOptions(rest)
	}
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		return s, fmt.Errorf("no valid key: want a key type and a base64 key")
	}
	s.KeyType = fields[0]
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return s, fmt.Errorf("no valid key: %v", err)
	}
	if err := checkKeyBlob(s.KeyType, blob); err != nil {
		return s, fmt.Errorf("no valid key: %v", err)
	}
	s.KeyBlob, s.Fingerprint = blob, Fingerprint(blob)
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

// splitOptions splits "opt,opt=\"a b,c\" rest" at the first unquoted blank,
// the way OpenSSH reads an options field.
func splitOptions(in string) (opts []string, rest string) {
	inQuote, start, i := false, 0, 0
	for ; i < len(in); i++ {
		b := in[i]
		end := !inQuote && (b == ' ' || b == '\t')
		if (b == ',' && !inQuote) || end {
			if i > start {
				opts = append(opts, in[start:i])
			}
			start = i + 1
		}
		if end {
			break
		}
		if b == '"' && (i == 0 || in[i-1] != '\\') {
			inQuote = !inQuote
		}
	}
	if i == len(in) && start < len(in) {
		opts = append(opts, in[start:])
	}
	return opts, strings.TrimLeft(in[min(i, len(in)):], " \t")
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

// keyLayouts are the SSH public key types an allowed signer may hold, and
// the wire fields after the type name: s a string, m an mpint, c a curve
// name and point, k a 32-byte ed25519 key.
var keyLayouts = map[string]string{
	"ssh-ed25519":                        "k",
	"ssh-rsa":                            "mm",
	"ssh-dss":                            "mmmm",
	"ecdsa-sha2-nistp256":                "c",
	"ecdsa-sha2-nistp384":                "c",
	"ecdsa-sha2-nistp521":                "c",
	"sk-ssh-ed25519@openssh.com":         "ks",
	"sk-ecdsa-sha2-nistp256@openssh.com": "cs",
}

func knownKeyType(t string) bool { _, ok := keyLayouts[t]; return ok }

// checkKeyBlob checks that blob is a well-formed key of type typ, as
// ssh-keygen and x/crypto/ssh read it: the embedded type name matches, each
// field is there, an EC point lies on its curve, nothing trails.
func checkKeyBlob(typ string, blob []byte) error {
	layout, ok := keyLayouts[typ]
	if !ok {
		return fmt.Errorf("unknown key type %q", typ)
	}
	next := func() ([]byte, bool) {
		if len(blob) < 4 {
			return nil, false
		}
		n := binary.BigEndian.Uint32(blob)
		if uint64(len(blob)-4) < uint64(n) {
			return nil, false
		}
		f := blob[4 : 4+n]
		blob = blob[4+n:]
		return f, true
	}
	name, ok := next()
	if !ok || string(name) != typ {
		return fmt.Errorf("key is not a %s key", typ)
	}
	for i, f := range layout {
		field, ok := next()
		if !ok {
			return fmt.Errorf("%s key is truncated", typ)
		}
		switch f {
		case 'k':
			if len(field) != 32 {
				return fmt.Errorf("%s key has %d bytes, want 32", typ, len(field))
			}
		case 'm':
			if len(field) == 0 || field[0]&0x80 != 0 {
				return fmt.Errorf("%s key has a bad integer", typ)
			}
			if typ == "ssh-rsa" && i == 0 {
				// x/crypto/ssh: at most 24 bits, odd, at least 3.
				e := 0
				for _, b := range field {
					e = e<<8 | int(b)
				}
				if len(field) > 4 || e >= 1<<24 || e < 3 || e&1 == 0 {
					return fmt.Errorf("ssh-rsa key has a bad exponent")
				}
			}
		case 'c':
			curve := map[string]ecdh.Curve{"nistp256": ecdh.P256(), "nistp384": ecdh.P384(), "nistp521": ecdh.P521()}[string(field)]
			if curve == nil || !strings.HasSuffix(strings.TrimSuffix(typ, "@openssh.com"), string(field)) {
				return fmt.Errorf("%s key names curve %q", typ, field)
			}
			point, ok := next()
			if !ok {
				return fmt.Errorf("%s key is truncated", typ)
			}
			if _, err := curve.NewPublicKey(point); err != nil {
				return fmt.Errorf("%s key is not a point on its curve", typ)
			}
		}
	}
	if len(blob) != 0 {
		return fmt.Errorf("%s key has %d trailing bytes", typ, len(blob))
	}
	return nil
}
