package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Retention (Agent Kit extension contract): records stay thin, raw
// payloads are stored once by content hash, at payloads/<sha256 hex> on
// the branch, and a record points at its payload with source.payload:
// "sha256:<hex>". The name is the content's hash, so the raw data stays
// auditable and two records of the same payload share one file.
const (
	PayloadDir  = "payloads/"
	RulePayload = "payload" // a payload's name is its content's hash; a record's payload exists
	// MaxPayloadBytes bounds one payload (checking one is hashing it).
	MaxPayloadBytes = 32 << 20
)

// PayloadRef is the source.payload value of data: "sha256:<hex>".
func PayloadRef(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// PayloadPath is where the payload ref names lives on the branch; "" when
// ref is not "sha256:" and 64 lowercase hex digits.
func PayloadPath(ref string) string {
	h, ok := strings.CutPrefix(ref, "sha256:")
	if !ok || !isSHA256Hex(h) {
		return ""
	}
	return PayloadDir + h
}

// IsPayloadPath reports whether path is under payloads/.
func IsPayloadPath(path string) bool { return strings.HasPrefix(path, PayloadDir) }

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// AttachPayload stores data as a payload within the mutation m (a file of
// the commit m becomes) and returns its ref for source.payload. Storing
// the same bytes again is free: the path is their hash.
func AttachPayload(m *Mutation, data []byte) (string, error) {
	if len(data) > MaxPayloadBytes {
		return "", Errorf(CodeInvalidRecord, "the payload is %d bytes, over the %d-byte limit: store a pointer to it (source.externalUrl) instead", len(data), MaxPayloadBytes)
	}
	ref := PayloadRef(data)
	if m.Files == nil {
		m.Files = map[string][]byte{}
	}
	m.Files[PayloadPath(ref)] = data
	return ref, nil
}

// PayloadFile is one payload file a commit adds, changes or (Data nil,
// Deleted) deletes.
type PayloadFile struct {
	Path    string
	Data    []byte
	Deleted bool
}

// CheckPayloads is the retention rule on payloads, for the write path and
// for verify alike: every payload file a commit writes is named by the
// sha256 of its content and within the size bound, none is deleted, each
// is referenced by a record the commit writes (no orphan raw data rides
// along), and every record whose source.payload the commit sets points at
// a payload the commit writes or its tree holds (has answers for that tree).
func CheckPayloads(files []PayloadFile, changes []RecordChange, has func(path string) (bool, error)) ([]Violation, error) {
	sorted := append([]PayloadFile(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	c := newPayloadCheck(has)
	for _, f := range sorted {
		c.addFile(f)
	}
	for _, ch := range changes {
		if err := c.addRecord(ch); err != nil {
			return nil, err
		}
	}
	return c.finish(), nil
}

// payloadCheck is CheckPayloads one file at a time, in path order (where
// payloads/ comes before records/): a payload's content is judged as it
// is read, and only its path and verdict are kept, for the references
// the records make.
type payloadCheck struct {
	has        func(path string) (bool, error)
	written    map[string]bool
	referenced map[string]bool
	files      []payloadVerdict
	vs         violations // about the records' references
}

// payloadVerdict is a payload file and what its content breaks (nil: nothing).
type payloadVerdict struct {
	path string
	v    *Violation
}

func newPayloadCheck(has func(path string) (bool, error)) *payloadCheck {
	return &payloadCheck{has: has, written: map[string]bool{}, referenced: map[string]bool{}}
}

func (c *payloadCheck) addFile(f PayloadFile) {
	c.written[f.Path] = !f.Deleted
	var vs violations
	name := strings.TrimPrefix(f.Path, PayloadDir)
	switch {
	case f.Deleted:
		vs.add(RuleNoDelete, "", "payloads are kept: restore it", "payload %s is deleted", f.Path)
	case !isSHA256Hex(name):
		vs.add(RulePayload, "", "payloads live at payloads/<sha256 of the content, 64 lowercase hex digits>", "%s is not a payload path", f.Path)
	case len(f.Data) > MaxPayloadBytes:
		vs.add(RulePayload, "", "store a pointer to a payload this large (source.externalUrl)", "payload %s is %d bytes, over the %d-byte limit", f.Path, len(f.Data), MaxPayloadBytes)
	case PayloadPath(PayloadRef(f.Data)) != f.Path:
		vs.add(RulePayload, "", "a payload's name is the sha256 of its content: store it under "+PayloadPath(PayloadRef(f.Data)), "payload %s holds content whose sha256 is %s", f.Path, strings.TrimPrefix(PayloadRef(f.Data), "sha256:"))
	}
	pv := payloadVerdict{path: f.Path}
	if len(vs) > 0 {
		pv.v = &vs[0]
	}
	c.files = append(c.files, pv)
}

func (c *payloadCheck) addRecord(ch RecordChange) error {
	if ch.New == nil || ch.New.Source == nil || ch.New.Source.Payload == "" {
		return nil
	}
	ref := ch.New.Source.Payload
	c.referenced[PayloadPath(ref)] = true
	if ch.Old != nil && ch.Old.Source != nil && ch.Old.Source.Payload == ref {
		return nil // judged when it was set
	}
	path := PayloadPath(ref)
	if path == "" {
		c.vs.add(RulePayload, ch.New.ID, `source.payload is "sha256:" and the 64 hex digits of the payload's sha256`, "source.payload %q is not a sha256 reference", ref)
		return nil
	}
	ok := c.written[path]
	if !ok {
		var err error
		if ok, err = c.has(path); err != nil {
			return err
		}
	}
	if !ok {
		c.vs.add(RulePayload, ch.New.ID, "store the payload in the same commit (payloads/<sha256>) or drop source.payload", "source.payload %s names no payload on the branch (%s is missing)", ref, path)
	}
	return nil
}

// finish returns the violations: the records' references first, then each
// payload file's, in path order.
func (c *payloadCheck) finish() []Violation {
	vs := c.vs
	for _, f := range c.files {
		switch {
		case f.v != nil:
			vs = append(vs, *f.v)
		case !c.referenced[f.path]:
			vs.add(RulePayload, "", "add a payload in the commit that writes the record referencing it (source.payload)", "payload %s is referenced by no record this commit writes", f.path)
		}
	}
	return vs
}
