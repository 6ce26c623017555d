package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// An approval is a signature, not a name. The approver signs (sshsig, in its
// own namespace, so neither a commit signature nor an approval can stand for
// the other) the Statement of an ApprovalRequest, which binds what is approved: the op, the
// records, the digest of the commit's evidence trailers and the tip the op
// is decided on. A commit carries it as Approved-By (the approver's
// principal) and Approval-Signature; verify rebuilds the statement from the
// commit (its op, Record-Id trailers, evidence and first parent), so an
// approval cannot be replayed on another op, record set, evidence or tip.
// A committer whose own profile allows the op approves with its own commit
// signature: Approved-By names the commit's signer and no Approval-Signature
// is needed.

// EvidenceDigest is "sha256:<hex>" over the Evidence-* trailers in their
// order (key and quoted value, one per line): what the approver approves
// the op on.
func EvidenceDigest(trailers []Trailer) string {
	h := sha256.New()
	for _, t := range trailers {
		if strings.HasPrefix(t.Key, "Evidence-") {
			h.Write([]byte(t.Key + " " + strconv.Quote(t.Value) + "\n"))
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// RecordIDs are the values of the Record-Id trailers, in order.
func RecordIDs(trailers []Trailer) []string {
	var ids []string
	for _, t := range trailers {
		if t.Key == TrailerID {
			ids = append(ids, t.Value)
		}
	}
	return ids
}

// ApprovalRequest is what an approver is asked to approve: the statement's
// parts, as `git records approve` takes them.
type ApprovalRequest struct {
	Op       Op
	Records  []string
	Evidence string // EvidenceDigest of the commit's trailers
	Tip      string // the commit the op is decided on (the commit's first parent)
}

// Statement is the canonical text an approver signs. Every free value is
// quoted, so no value can pass for another line.
func (r ApprovalRequest) Statement() []byte {
	var b strings.Builder
	b.WriteString("git-records approval 1\n")
	b.WriteString("op " + strconv.Quote(string(r.Op)) + "\n")
	for _, id := range r.Records {
		b.WriteString("record " + strconv.Quote(id) + "\n")
	}
	b.WriteString("evidence " + r.Evidence + "\n")
	b.WriteString("tip " + strconv.Quote(r.Tip) + "\n")
	return []byte(b.String())
}

// RequestFor is the approval request for a mutation decided on tip.
func RequestFor(m *Mutation, tip string) ApprovalRequest {
	return ApprovalRequest{Op: m.Op, Records: RecordIDs(m.Trailers), Evidence: EvidenceDigest(m.Trailers), Tip: tip}
}

// Token is how an approval travels from approver to committer: the tip it
// was given for, then the signature (base64, as Approval-Signature carries
// it), "<tip>:<signature>". The tip lets the committer tell an approval for
// an older tip (CONFLICT: ask for a fresh one) from one that is forged.
func Token(tip, signature string) string { return tip + ":" + signature }

// ParseToken splits a token made by Token.
func ParseToken(token string) (tip, signature string, err error) {
	tip, signature, ok := strings.Cut(strings.TrimSpace(token), ":")
	if !ok || signature == "" || !isHex(tip) {
		return "", "", Errorf(CodeUsage, "approval token is not <tip>:<signature>: pass what `git records approve` printed")
	}
	return tip, signature, nil
}

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// ProveApproval is the approval rule once the signatures are checked:
// approvedBy (the Approved-By trailer) must be proven, either by the
// commit's own signature (approvedBy is the committer, the principal the
// commit signature verified as, and there is no approval signature) or by
// an approval signature that verified as approvedBy (signedBy; "" when it
// did not verify, with why). Whether the approver's profile allows the op
// is the policy's Decide, checked by the caller for every record touched.
func ProveApproval(approvedBy, committer string, hasSignature bool, signedBy, why string) error {
	switch {
	case approvedBy == "":
		return Errorf(CodePermissionDenied, "the op needs approval and the commit has no Approved-By")
	case !hasSignature && approvedBy == committer:
		return nil
	case !hasSignature:
		return Errorf(CodePermissionDenied, "Approved-By names %s but the commit carries no Approval-Signature: a name is not an approval", approvedBy)
	case signedBy == "":
		return Errorf(CodePermissionDenied, "the Approval-Signature for %s does not verify against this commit's op, records, evidence and parent: %s", approvedBy, why)
	case signedBy != approvedBy:
		return Errorf(CodePermissionDenied, "Approved-By names %s but the Approval-Signature is by %s", approvedBy, signedBy)
	}
	return nil
}
