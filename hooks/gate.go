package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// Gate applies the branch's policy before a write, so a denied op is refused
// with the rule that denied it instead of producing a commit verify would
// reject. It wraps a Decision: the check runs against the same tip the op
// was decided on.
type Gate struct {
	Store *gitstore.Store
	// Approve (--approve): the committer approves a risky op itself; its
	// commit signature proves it, and its profile must allow the op.
	Approve bool
	// Approval (--approval): a token from `git records approve`, the
	// approver's signature over this op, its records, evidence and tip.
	Approval string
}

// Wrap returns decide with the policy check after it.
func (g *Gate) Wrap(decide gitstore.Decision) gitstore.Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, err := decide(v, env)
		if err != nil || m == nil {
			return m, err
		}
		gv := v.(*gitstore.View)
		tr, err := gv.Trust()
		if err != nil {
			return nil, err
		}
		_, policy := m.Files[gitstore.PolicyPath]
		if _, signers := m.Files[gitstore.AllowedSignersPath]; signers || policy {
			after, err := gv.TrustWith(m.Files)
			if err != nil {
				return nil, err
			}
			if err := kernel.CheckTrustChange(after); err != nil {
				return nil, err
			}
		}
		tr = tr.For(m.Op)
		if refused := tr.Refusal(); refused != nil {
			_, email := g.Store.Ident()
			g.audit(env.Now, email, m.Op, "", kernel.Decision{Rule: "trust", Reason: refused.Message})
			return nil, refused
		}
		principal, err := Principal(g.Store, tr)
		if err != nil {
			if kernel.IsCode(err, kernel.CodePermissionDenied) {
				_, email := g.Store.Ident()
				g.audit(env.Now, email, m.Op, "", kernel.Decision{Rule: "allowed_signers", Reason: "signing key not in " + gitstore.AllowedSignersPath})
			}
			return nil, err
		}
		// The rights verify will ask for: the op on each record as it was
		// and as it becomes, and lifecycle ops for the links it adds.
		changes, err := kernel.MutationChanges(v, m)
		if err != nil {
			return nil, err
		}
		rights := kernel.RequiredRights(m.Op, changes, v)
		var needs *kernel.Decision
		for _, r := range rights {
			d := tr.Decide(principal, r.Op, r.Type, r.Category)
			if !d.Allowed {
				g.audit(env.Now, principal, r.Op, r.Record, d)
				return nil, kernel.Errorf(kernel.CodePermissionDenied, "%s may not %s %s in %s: %s (rule: %s)", principal, r.Op, r.Type, r.Category, d.Reason, d.Rule).
					WithExtra("rule", d.Rule).WithExtra("principal", principal)
			}
			if d.NeedsApproval && needs == nil {
				needs = &d
			}
		}
		if needs == nil {
			return m, nil
		}
		approver, signature, err := g.approval(gv, principal, tr, m, *needs, env)
		if err != nil {
			return nil, err
		}
		for _, r := range rights {
			if a := tr.Decide(approver, r.Op, r.Type, r.Category); !a.Allowed {
				// Every refusal is audited, an unfit approver's too.
				g.audit(env.Now, approver, r.Op, r.Record, a)
				return nil, kernel.Errorf(kernel.CodePermissionDenied, "approver %s may not approve %s: %s (rule: %s)", approver, r.Op, a.Reason, a.Rule).
					WithExtra("rule", a.Rule).WithExtra("principal", approver)
			}
		}
		m.Trailers = setTrailer(m.Trailers, kernel.TrailerApprovedBy, approver)
		if signature != "" {
			m.Trailers = setTrailer(m.Trailers, kernel.TrailerApprovalSignature, signature)
		}
		return m, nil
	}
}

// approval finds who approves m, a risky op decided on v: the approver whose
// signed token the committer brought (its signature, to carry in the
// commit), or with --approve the committer itself. Without either, or with
// a token that is not an approval of m on this tip, the op is refused.
func (g *Gate) approval(v *gitstore.View, principal string, tr *kernel.Trust, m *kernel.Mutation, d kernel.Decision, env kernel.Env) (approver, signature string, err error) {
	tip := v.Tip().String()
	req := kernel.RequestFor(m, tip)
	if g.Approval == "" {
		if g.Approve {
			return principal, "", nil
		}
		// The audit names the rule the error names: the approval level,
		// not the rule that allowed the op.
		rule := "require_approval: " + string(tr.Policy().RequireApproval)
		g.audit(env.Now, principal, m.Op, firstID(req.Records), kernel.Decision{Rule: rule, Reason: "approval required for " + string(d.Risk) + " ops"})
		command := approveCommand(req)
		return "", "", kernel.Errorf(kernel.CodePermissionDenied, "%s is a %s-risk op and the policy requires approval: rerun with --approve if your profile allows you to approve it, or have an approver run `%s` and rerun with --approval TOKEN",
			m.Op, d.Risk, command).
			WithExtra("rule", rule).WithExtra("approve_command", command).
			WithExtra("approval_request", map[string]any{"op": req.Op, "records": req.Records, "evidence": req.Evidence, "tip": req.Tip})
	}
	approvedTip, signature, err := kernel.ParseToken(g.Approval)
	if err != nil {
		return "", "", err
	}
	if approvedTip != tip {
		return "", "", kernel.Errorf(kernel.CodeConflict, "the approval was given for tip %s and %s is now at %s: ask the approver for a fresh approval (`%s`)",
			short(approvedTip), g.Store.Ref(), short(tip), approveCommand(req)).
			WithExtra("approve_command", approveCommand(req))
	}
	signers, err := signing.FromKernel(tr.Signers())
	if err != nil {
		return "", "", err
	}
	approver, _, err = signing.VerifyApproval(signers, req.Statement(), signature, env.Now)
	if err != nil {
		g.audit(env.Now, principal, m.Op, firstID(req.Records), kernel.Decision{Rule: "approval", Reason: "the approval does not verify"})
		return "", "", kernel.Errorf(kernel.CodePermissionDenied, "the approval is not a valid approval of this %s by an allowed signer (%s): have the approver run `%s`",
			m.Op, messageOf(err), approveCommand(req)).WithExtra("rule", "approval")
	}
	return approver, signature, nil
}

// approveCommand is the command that approves req.
func approveCommand(req kernel.ApprovalRequest) string {
	var b strings.Builder
	b.WriteString("git records approve --op " + string(req.Op))
	for _, id := range req.Records {
		b.WriteString(" --record " + id)
	}
	b.WriteString(" --tip " + req.Tip + " --evidence " + req.Evidence)
	return b.String()
}

func firstID(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func setTrailer(ts []kernel.Trailer, key, value string) []kernel.Trailer {
	for i := range ts {
		if ts[i].Key == key {
			ts[i].Value = value
			return ts
		}
	}
	return append(ts, kernel.Trailer{Key: key, Value: value})
}

// Principal is who this store's signer is under the branch's trust: the
// principal allowed_signers lists for its key; on a store without
// allowed_signers, the committer's email.
func Principal(s *gitstore.Store, tr *kernel.Trust) (string, error) {
	signer, err := s.Signer()
	if err != nil {
		return "", err
	}
	if !tr.ListsSigners() {
		_, email := s.Ident()
		return email, nil
	}
	if signer.Format() != signing.FormatSSH {
		// Trust on the branch is SSH allowed signers; verify cannot place an
		// OpenPGP or x509 signature in it, so it would refuse every commit.
		return "", kernel.Errorf(kernel.CodePermissionDenied, "this store trusts SSH signers (%s) and your git signs with %s: set records.signingKey to an SSH key (git records init --generate-key makes one) or gpg.format=ssh",
			gitstore.AllowedSignersPath, signer.Format()).WithExtra("rule", "allowed_signers")
	}
	if p := tr.Principal(signer.Principal()); p != "" {
		return p, nil
	}
	// verify would refuse every commit this key signs: say so now.
	_, email := s.Ident()
	add := "git records signers add " + email + " <your public key>"
	if pk, ok := signer.(signing.PublicKeyer); ok && pk.PublicKeyLine() != "" {
		add = "git records signers add " + email + " '" + pk.PublicKeyLine() + "'"
	}
	return "", kernel.Errorf(kernel.CodePermissionDenied, "your signing key %s is not in %s, so no commit it signs would verify: ask a maintainer to run: %s --rationale … --agent …",
		signer.Principal(), gitstore.AllowedSignersPath, add).WithExtra("rule", "allowed_signers")
}

// AuditEntry is one line of .git/records/audit.jsonl.
type AuditEntry struct {
	Time      string `json:"time"`
	Principal string `json:"principal"`
	Op        string `json:"op"`
	Record    string `json:"record,omitempty"`
	Rule      string `json:"rule"`
	Reason    string `json:"reason"`
}

// audit appends a denial to the local audit log. Failing to write it must
// not turn a clean refusal into a crash, so errors are dropped.
func (g *Gate) audit(now time.Time, principal string, op kernel.Op, record string, d kernel.Decision) {
	path := AuditLogPath(g.Store)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	line, _ := json.Marshal(AuditEntry{Time: kernel.At(now).String(), Principal: principal, Op: string(op), Record: record, Rule: d.Rule, Reason: d.Reason})
	_, _ = f.Write(append(line, '\n'))
}

// AuditLogPath is the local denial log: .git/records/audit.jsonl.
func AuditLogPath(s *gitstore.Store) string {
	return filepath.Join(s.CommonDir(), "records", "audit.jsonl")
}
