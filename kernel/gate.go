package kernel

import "strings"

// Approval is what the caller of a write brings for an op the policy marks
// as needing approval.
type Approval struct {
	Approve bool   // --approve: the committer approves itself (its profile must allow the op)
	Token   string // --approval: a token from `git records approve`, the approver's signature
}

// ApprovalVerifier checks an approval token against the request of the op
// being written: it returns the approver the signature proves and the
// signature to carry as Approval-Signature, PERMISSION_DENIED when it does
// not verify, or CONFLICT when it was given for another tip. The store
// supplies it (signatures need the signers at the tip and sshsig).
type ApprovalVerifier func(token string, req ApprovalRequest) (approver, signature string, err error)

// Authorization is the policy gate's answer for one commit: the decision
// that settled it (the denial, or the last allowance) and the record it was
// about, for the audit log.
type Authorization struct {
	Principal         string
	Op                Op
	Record            string // the record the deciding decision was about ("" for the store)
	Decision          Decision
	ApprovedBy        string // the approver to record as Approved-By ("" when no approval was needed)
	ApprovalSignature string // the approver's signature, when it is not the committer
}

// Command is the command that approves r.
func (r ApprovalRequest) Command() string {
	var b strings.Builder
	b.WriteString("git records approve --op " + string(r.Op))
	for _, id := range r.Records {
		b.WriteString(" --record " + id)
	}
	b.WriteString(" --tip " + r.Tip + " --evidence " + r.Evidence)
	return b.String()
}
