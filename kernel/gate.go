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

// gateScope is one thing a commit needs a right on: an op on a record of a
// type in a category, or on the store (all empty).
type gateScope struct {
	id, typ, category string
}

// gateScopes lists what m needs a right on. It is the one place that says
// so: judging more of a change (old and new category, lifecycle links) is
// done here.
func gateScopes(m *Mutation) []gateScope {
	if m.Op == OpMerge || len(m.Writes) == 0 {
		// Store-level ops (init, policy) have no type or category. A
		// merge commit needs the merge right on the store; what it brings
		// in is judged on the commits that wrote it (as verify does).
		return []gateScope{{}}
	}
	out := make([]gateScope, 0, len(m.Writes))
	for _, r := range m.Writes {
		out = append(out, gateScope{r.ID, r.Type, r.Category})
	}
	return out
}

// Authorize is the policy gate: may principal write m, decided on tip,
// under policy p? It returns the authorization (for the audit log, whether
// allowed or not) and, when the commit must not be written, a coded error:
// PERMISSION_DENIED naming the rule and what to do instead. An op the
// policy marks as needing approval needs a.Approve (the committer approves
// itself) or a token verify proves, and the approver's profile must allow
// the op too. The write path runs it on every commit it writes, against the
// policy at the tip the op was decided on, so it refuses what verify would
// reject before anything is written.
func Authorize(p *Policy, principal string, m *Mutation, tip string, a Approval, verify ApprovalVerifier) (Authorization, error) {
	auth := Authorization{Principal: principal, Op: m.Op}
	scopes := gateScopes(m)
	var needs *Decision
	for _, sc := range scopes {
		d := p.Decide(principal, m.Op, sc.typ, sc.category)
		auth.Record, auth.Decision = sc.id, d
		if !d.Allowed {
			return auth, Errorf(CodePermissionDenied, "%s may not %s %s: %s (rule: %s); ask a maintainer, or have the policy changed in a policy commit",
				principal, m.Op, describeGateScope(sc), d.Reason, d.Rule).
				WithExtra("rule", d.Rule).WithExtra("principal", principal)
		}
		if d.NeedsApproval && needs == nil {
			needs = &d
		}
	}
	if needs == nil {
		return auth, nil
	}
	req := RequestFor(m, tip)
	var approver, signature string
	switch {
	case a.Token != "":
		var err error
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
		rule := "require_approval: " + string(p.RequireApproval)
		auth.Record, auth.Decision = firstID(req.Records), Decision{Rule: rule, Reason: "approval required for " + string(needs.Risk) + " ops", Risk: needs.Risk}
		command := req.Command()
		return auth, Errorf(CodePermissionDenied, "%s is a %s-risk op and the policy requires approval: rerun with --approve if your profile allows you to approve it, or have an approver run `%s` and rerun with --approval TOKEN",
			m.Op, needs.Risk, command).
			WithExtra("rule", rule).WithExtra("approve_command", command).
			WithExtra("approval_request", map[string]any{"op": req.Op, "records": req.Records, "evidence": req.Evidence, "tip": req.Tip})
	}
	for _, sc := range scopes {
		if ad := p.Decide(approver, m.Op, sc.typ, sc.category); !ad.Allowed {
			// Every refusal is audited, an unfit approver's too.
			auth.Principal, auth.Record, auth.Decision = approver, sc.id, ad
			return auth, Errorf(CodePermissionDenied, "approver %s may not approve %s: %s (rule: %s)", approver, m.Op, ad.Reason, ad.Rule).
				WithExtra("rule", ad.Rule).WithExtra("principal", approver)
		}
	}
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

func describeGateScope(sc gateScope) string {
	if sc.id == "" {
		return "on the store"
	}
	return sc.typ + " in " + sc.category
}
