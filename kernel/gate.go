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

// Authorize is the policy gate: may principal write m, decided on tip,
// under the trust tr (signers and policy at that tip)? It returns the authorization (for the audit log, whether
// allowed or not) and, when the commit must not be written, a coded error:
// PERMISSION_DENIED naming the rule and what to do instead. An op the
// policy marks as needing approval needs a.Approve (the committer approves
// itself) or a token verify proves, and the approver's profile must allow
// the op too. The write path runs it on every commit it writes, against the
// policy at the tip the op was decided on, so it refuses what verify would
// reject before anything is written.
func Authorize(v View, tr *Trust, principal string, m *Mutation, tip string, a Approval, verify ApprovalVerifier) (Authorization, error) {
	auth := Authorization{Principal: principal, Op: m.Op}
	// The rights verify will ask for: the op on each record as it was and
	// as it becomes, lifecycle ops for the links it adds; the op on the
	// store for store-level commits and merges (what a merge brings in is
	// judged on the commits that wrote it).
	changes, err := MutationChanges(v, m)
	if err != nil {
		return auth, err
	}
	rights := RequiredRights(m.Op, changes, v)
	var needs *Decision
	for _, r := range rights {
		d := tr.Decide(principal, r.Op, r.Type, r.Category)
		auth.Op, auth.Record, auth.Decision = r.Op, r.Record, d
		if !d.Allowed {
			return auth, Errorf(CodePermissionDenied, "%s may not %s %s: %s (rule: %s)",
				principal, r.Op, describeRight(r), d.Reason, d.Rule).
				WithExtra("rule", d.Rule).WithExtra("principal", principal)
		}
		if d.NeedsApproval && needs == nil {
			needs = &d
		}
	}
	// Execution records are managed by their owner, within the policy's
	// limits: a refusal here is a denial like the policy's, audited.
	if vs := CheckExecution(m.Op, m.Trailers, changes, v, principal, tr.Policy().Execution); len(vs) > 0 {
		auth.Record, auth.Decision = vs[0].Record, Decision{Rule: vs[0].Rule, Reason: vs[0].Message}
		return auth, ExecutionError(vs)
	}
	auth.Op = m.Op // an allowed commit is audited as its op
	if needs == nil {
		return auth, nil
	}
	req := RequestFor(m, tip)
	var approver, signature string
	switch {
	case a.Token != "" && verify == nil:
		return auth, Errorf(CodeInternal, "an approval token was given and this store cannot check approvals")
	case a.Token != "":
		if approver, signature, err = verify(a.Token, req); err != nil {
			if IsCode(err, CodePermissionDenied) {
				auth.Record, auth.Decision = firstID(req.Records), Decision{Rule: "approval", Reason: "the approval does not verify"}
			}
			return auth, err
		}
	case a.Approve:
		approver = principal
	default:
		// The audit names the rule the error names: the approval level,
		// not the rule that allowed the op.
		rule := "require_approval: " + string(tr.Policy().RequireApproval)
		auth.Record, auth.Decision = firstID(req.Records), Decision{Rule: rule, Reason: "approval required for " + string(needs.Risk) + " ops", Risk: needs.Risk}
		command := req.Command()
		return auth, Errorf(CodePermissionDenied, "%s is a %s-risk op and the policy requires approval: rerun with --approve if your profile allows you to approve it, or have an approver run `%s` and rerun with --approval TOKEN",
			m.Op, needs.Risk, command).
			WithExtra("rule", rule).WithExtra("approve_command", command).
			WithExtra("approval_request", map[string]any{"op": req.Op, "records": req.Records, "evidence": req.Evidence, "tip": req.Tip})
	}
	for _, r := range rights {
		if ad := tr.Decide(approver, r.Op, r.Type, r.Category); !ad.Allowed {
			// Every refusal is audited, an unfit approver's too.
			auth.Principal, auth.Op, auth.Record, auth.Decision = approver, r.Op, r.Record, ad
			return auth, Errorf(CodePermissionDenied, "approver %s may not approve %s: %s (rule: %s)", approver, r.Op, ad.Reason, ad.Rule).
				WithExtra("rule", ad.Rule).WithExtra("principal", approver)
		}
	}
	auth.Op = m.Op
	auth.ApprovedBy, auth.ApprovalSignature = approver, signature
	return auth, nil
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

func firstID(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

func describeRight(r Right) string {
	if r.Type == "" && r.Category == "" {
		return "on the store"
	}
	return r.Type + " in " + r.Category
}
