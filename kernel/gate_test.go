package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestAuthorize is the write path's policy gate as a table: every commit
// the store writes (ops, policy, init, merge) is allowed or refused with a
// coded PERMISSION_DENIED that names the rule, and the authorization says
// what the audit log records.
func TestAuthorize(t *testing.T) {
	policy := []byte(`version: 1
require_approval: external_mutation
profiles:
  writer:
    ops: [create]
rules:
  - profile: read-only
  - principal: maint@example.com
    profile: maintainer
  - principal: carol@example.com
    profile: contributor
  - principal: wendy@example.com
    profile: writer
`)
	tr := kernel.NewTrust(nil, policy)
	require.NoError(t, tr.Err())
	concept := &kernel.Record{ID: "c1", Type: "concept", Category: "eng"}
	// Mutations with no trailers: the approval request names no records,
	// so an approval refusal is about no record in particular.
	mut := func(op kernel.Op, writes ...*kernel.Record) *kernel.Mutation {
		return &kernel.Mutation{Op: op, Writes: writes}
	}
	for _, c := range []struct {
		name      string
		principal string
		m         *kernel.Mutation
		approval  kernel.Approval
		rule      string // the rule the audit names
		record    string
		denied    string // "" when allowed; else part of the message
		approved  string
	}{
		{"contributor creates", "carol@example.com", mut(kernel.OpCreate, concept), kernel.Approval{}, "principal carol@example.com → contributor", "c1", "", ""},
		{"contributor applies", "carol@example.com", mut(kernel.OpApply, concept), kernel.Approval{Approve: true}, "principal carol@example.com → contributor", "c1",
			"carol@example.com may not apply concept in eng: profile contributor does not allow apply", ""},
		{"contributor merges", "carol@example.com", &kernel.Mutation{Op: kernel.OpMerge, Files: map[string][]byte{"records/x": nil}}, kernel.Approval{}, "principal carol@example.com → contributor", "", "", ""},
		{"writer merges", "wendy@example.com", &kernel.Mutation{Op: kernel.OpMerge, Files: map[string][]byte{"records/x": nil}}, kernel.Approval{}, "principal wendy@example.com → writer", "",
			"wendy@example.com may not merge on the store: profile writer does not allow merge", ""},
		{"stranger inits", "x@example.com", mut(kernel.OpInit), kernel.Approval{}, "default → read-only", "", "profile read-only does not allow init", ""},
		{"maintainer applies without approval", "maint@example.com", mut(kernel.OpApply, concept), kernel.Approval{}, "require_approval: external_mutation", "",
			"apply is a external_mutation-risk op and the policy requires approval: rerun with --approve", ""},
		{"maintainer approves own apply", "maint@example.com", mut(kernel.OpApply, concept), kernel.Approval{Approve: true}, "principal maint@example.com → maintainer", "c1", "", "maint@example.com"},
		{"create is below the approval level", "carol@example.com", mut(kernel.OpCreate, concept), kernel.Approval{}, "principal carol@example.com → contributor", "c1", "", ""},
		{"token of an approver who may not", "maint@example.com", mut(kernel.OpApply, concept), kernel.Approval{Token: "by carol"}, "principal carol@example.com → contributor", "c1",
			"approver carol@example.com may not approve apply", ""},
		{"token by a maintainer", "maint@example.com", mut(kernel.OpApply, concept), kernel.Approval{Token: "by maint"}, "principal maint@example.com → maintainer", "c1", "", "maint@example.com"},
		{"token that does not verify", "maint@example.com", mut(kernel.OpApply, concept), kernel.Approval{Token: "forged"}, "approval", "",
			"not an approval", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			verify := func(token string, req kernel.ApprovalRequest) (string, string, error) {
				assert.Equal(t, c.m.Op, req.Op)
				assert.Equal(t, "tip", req.Tip)
				switch token {
				case "by carol":
					return "carol@example.com", "sig", nil
				case "by maint":
					return "maint@example.com", "sig", nil
				}
				return "", "", kernel.Errorf(kernel.CodePermissionDenied, "not an approval").WithExtra("rule", "approval")
			}
			auth, err := kernel.Authorize(nil, tr, c.principal, c.m, "tip", c.approval, verify)
			assert.Equal(t, c.rule, auth.Decision.Rule)
			assert.Equal(t, c.record, auth.Record)
			assert.Equal(t, c.m.Op, auth.Op)
			assert.NotEmpty(t, auth.Decision.Reason)
			assert.Equal(t, c.approved, auth.ApprovedBy)
			if c.denied == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, kernel.IsCode(err, kernel.CodePermissionDenied), "%v", err)
			assert.Contains(t, err.Error(), c.denied)
			var ke *kernel.Error
			require.ErrorAs(t, err, &ke)
			assert.Equal(t, c.rule, ke.Extra["rule"], "the error names the rule the audit names")
		})
	}
}
