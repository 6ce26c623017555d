package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ready is a repository with the branch, an SSH key listed in
// allowed_signers, the default policy, inside a working tree.
func ready() CapabilityFacts {
	d := map[Op]Decision{}
	for _, op := range []Op{OpCreate, OpLink, OpVerify} {
		d[op] = DefaultPolicy.Decide("alice@example.com", op, "", "")
	}
	return CapabilityFacts{HasBranch: true, Ref: "refs/heads/records", SignerFormat: "ssh", SignerListed: true,
		Principal: "alice@example.com", Decisions: d, InWork: true}
}

func resolved(t *testing.T, f CapabilityFacts, capability, action string) CapabilityResolution {
	t.Helper()
	for _, r := range ResolveCapabilities(f) {
		if r.Capability == capability && r.Action == action {
			return r
		}
	}
	require.Failf(t, "missing capability", "%s %s", capability, action)
	return CapabilityResolution{}
}

func TestCapabilityResolution(t *testing.T) {
	readOnly := &Policy{Version: 1, Rules: []Rule{{Profile: "read-only"}}}
	approval := &Policy{Version: 1, RequireApproval: RiskWritesLocalState, Rules: []Rule{{Profile: "maintainer"}}}
	tests := []struct {
		name               string
		facts              func(f *CapabilityFacts)
		capability, action string
		state              CapabilityState
		reason             string
		recovery           string // a substring of the suggested recovery
		requirement        string // a requirement that must be listed
	}{
		{"everything in place", func(f *CapabilityFacts) {}, CapRecordWrite, "", CapabilityAvailable, "", "", ReqSigningKey},
		{"reads need no key", func(f *CapabilityFacts) { f.SignerErr = CodeNoSigningKey }, CapRecordRead, "", CapabilityAvailable, "", "", ReqRecordsBranch},
		{"no signing key blocks writes", func(f *CapabilityFacts) { f.SignerErr, f.SignerFormat = CodeNoSigningKey, "" },
			CapRecordWrite, "", CapabilityBlocked, "no_signing_key", "git records init --generate-key", ReqSigningKey},
		{"no signing key blocks links", func(f *CapabilityFacts) { f.SignerErr, f.SignerFormat = CodeNoSigningKey, "" },
			CapRelationWrite, "", CapabilityBlocked, "no_signing_key", "--generate-key", ""},
		{"an OpenPGP key makes commits verify cannot check", func(f *CapabilityFacts) { f.SignerFormat = "openpgp" },
			CapRecordWrite, "", CapabilityBlocked, "signer_not_ssh", "SSH key", ""},
		{"a key not in allowed_signers", func(f *CapabilityFacts) { f.SignerListed = false },
			CapRecordWrite, "", CapabilityBlocked, "signer_not_allowed", "git records signers add alice@example.com", ReqAllowedSigner},
		{"no records branch", func(f *CapabilityFacts) { f.HasBranch = false },
			CapRecordWrite, "", CapabilityUnconfigured, "no_records_branch", "git records init", ReqRecordsBranch},
		{"no branch and no key: init makes both", func(f *CapabilityFacts) { f.HasBranch, f.SignerErr = false, CodeNoSigningKey },
			CapRecordRead, "", CapabilityUnconfigured, "no_records_branch", "git records init --generate-key", ""},
		{"the branch is on the remote only", func(f *CapabilityFacts) { f.HasBranch, f.Upstream = false, "origin/records" },
			CapRecordQuery, "", CapabilityUnconfigured, "no_records_branch", "git records pull", ""},
		{"no repository", func(f *CapabilityFacts) { *f = CapabilityFacts{StoreErr: CodeNotAStore} },
			CapRecordRead, "", CapabilityUnconfigured, "no_repository", "--store DIR", ReqRepository},
		{"an unreadable store", func(f *CapabilityFacts) { f.StoreErr, f.StoreMessage = CodeInternal, "read commit: boom" },
			CapRecordRead, "", CapabilityErrored, "store_unreadable", "boom", ""},
		{"a standalone store sets itself up", func(f *CapabilityFacts) {
			*f = CapabilityFacts{AutoInit: true, SignerErr: CodeNoSigningKey}
		}, CapRecordWrite, "", CapabilityAvailable, "", "", ""},
		{"an existing standalone store without a key", func(f *CapabilityFacts) { f.AutoInit, f.SignerErr = true, CodeNoSigningKey },
			CapRecordWrite, "", CapabilityBlocked, "no_signing_key", "", ""},
		{"policy denies create", func(f *CapabilityFacts) { f.Decisions[OpCreate] = readOnly.Decide(f.Principal, OpCreate, "", "") },
			CapRecordWrite, "", CapabilityDenied, "policy_denied", "grant create to alice@example.com", ReqPolicy},
		{"policy denies link", func(f *CapabilityFacts) { f.Decisions[OpLink] = readOnly.Decide(f.Principal, OpLink, "", "") },
			CapRelationWrite, "", CapabilityDenied, "policy_denied", "grant link", ""},
		{"a denied write leaves reads alone", func(f *CapabilityFacts) { f.Decisions[OpCreate] = readOnly.Decide(f.Principal, OpCreate, "", "") },
			CapRecordQuery, "", CapabilityAvailable, "", "", ""},
		{"approval is a requirement, not a refusal", func(f *CapabilityFacts) { f.Decisions[OpCreate] = approval.Decide(f.Principal, OpCreate, "", "") },
			CapRecordWrite, "", CapabilityAvailable, "", "", ReqApproval},
		{"a broken policy", func(f *CapabilityFacts) { f.PolicyErr, f.Decisions = "policy.yaml: version must be 1", nil },
			CapRecordWrite, "", CapabilityErrored, "policy_invalid", "version must be 1", ""},
		{"verify_record needs a working tree", func(f *CapabilityFacts) { f.InWork = false },
			CapExecuteAction, ActionVerifyRecord, CapabilityBlocked, "no_worktree", "working tree", ReqWorktree},
		{"verify_record in a working tree", func(f *CapabilityFacts) {}, CapExecuteAction, ActionVerifyRecord, CapabilityAvailable, "", "", ReqWorktree},
		{"verify_record writes: it needs a key first", func(f *CapabilityFacts) { f.InWork, f.SignerErr = false, CodeNoSigningKey },
			CapExecuteAction, ActionVerifyRecord, CapabilityBlocked, "no_signing_key", "", ""},
		{"verify_record denied", func(f *CapabilityFacts) { f.Decisions[OpVerify] = readOnly.Decide(f.Principal, OpVerify, "", "") },
			CapExecuteAction, ActionVerifyRecord, CapabilityDenied, "policy_denied", "grant verify", ""},
		{"reads behind the upstream are stale", func(f *CapabilityFacts) { f.Upstream, f.Behind = "origin/records", 3 },
			CapRecordRead, "", CapabilityStale, "behind_upstream", "git records pull", ""},
		{"writes behind the upstream still work (sync merges)", func(f *CapabilityFacts) { f.Upstream, f.Behind = "origin/records", 3 },
			CapRecordWrite, "", CapabilityAvailable, "", "", ""},
		{"subscribe.changes pushes", func(f *CapabilityFacts) {}, CapSubscribeChanges, "", CapabilityAvailable, "", "", ""},
		{"transform.normalize is not offered", func(f *CapabilityFacts) {}, CapTransformNormalize, "", CapabilityUnsupported, "not_provided", "record.write", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ready()
			tt.facts(&f)
			r := resolved(t, f, tt.capability, tt.action)
			assert.Equal(t, tt.state, r.State, "%+v", r)
			assert.Equal(t, tt.reason, r.Reason, "%+v", r)
			assert.Contains(t, r.SuggestedRecovery, tt.recovery)
			if tt.state == CapabilityAvailable {
				assert.Empty(t, r.SuggestedRecovery)
			} else {
				assert.NotEmpty(t, r.SuggestedRecovery, "every state but available says what to do")
			}
			if tt.requirement != "" {
				assert.Contains(t, r.Requirements, tt.requirement)
			}
			if tt.state == CapabilityDenied {
				assert.Equal(t, "default → read-only", r.Rule, "a denial names the rule")
			}
		})
	}
}

func TestCapabilityDescriptors(t *testing.T) {
	rs := ResolveCapabilities(ready())
	require.Len(t, rs, len(CapabilityDescriptors))
	seen := map[string]bool{}
	for _, r := range rs {
		key := r.Capability + " " + r.Action
		assert.False(t, seen[key], "%s listed twice", key)
		seen[key] = true
		assert.Equal(t, ExtensionName, r.Extension)
		assert.NotEmpty(t, r.Risk, "%s declares its risk", key)
		assert.NotNil(t, r.Requirements, "%s: requirements is a list, [] when none", key)
	}
	for _, want := range []string{"record.read ", "record.write ", "record.query ", "relation.read ", "relation.write ",
		"relation.query ", "observe.records ", "execute.action verify_record", "subscribe.changes "} {
		assert.True(t, seen[want], "%q is resolved", want)
	}
	// The action's risk is the risk of the op it runs.
	assert.Equal(t, opSpecs[OpVerify].Risk, resolved(t, ready(), CapExecuteAction, ActionVerifyRecord).Risk)
	assert.Equal(t, "push", resolved(t, ready(), CapSubscribeChanges, "").Mode)
}
