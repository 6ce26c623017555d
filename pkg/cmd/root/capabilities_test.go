package root

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/storetest"
	"github.com/git-records/git-records/pkg/cmd/agent/contract"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// capabilityState runs capabilities --json in dir and returns each
// capability ("record.write", "execute.action verify_record") resolved.
func capabilityStates(t *testing.T, dir string, args ...string) map[string]obj {
	t.Helper()
	out := mustJSON[obj](t, dir, append(args, "capabilities")...)
	return storetest.CapabilityStates(t, out)
}

func TestCapabilities(t *testing.T) {
	t.Parallel()

	// Outside a repository, without a records branch and in a ready store:
	// pkg/cmd/agent/capabilities tests those in-process.
	t.Run("a clone: the branch, then a key, then a key the branch trusts", func(t *testing.T) {
		upstream := newRepo(t)
		mustRec(t, upstream, "create", "--id", "n", "--type", "concept", "--title", "N", "--category", "c", "--body", "b", "--agent", "a")
		clone := filepath.Join(t.TempDir(), "clone")
		git(t, "", "clone", "-q", "--no-local", upstream, clone)

		got := capabilityStates(t, clone)
		storetest.AssertCapability(t, got, "record.read", "unconfigured", "no_records_branch", "git records pull (origin/records has the records)")

		git(t, clone, "branch", "records", "origin/records")
		got = capabilityStates(t, clone)
		storetest.AssertCapability(t, got, "record.read", "available", "", "")
		storetest.AssertCapability(t, got, "record.write", "blocked", "no_signing_key", "run git records init --generate-key")
		storetest.AssertCapability(t, got, "relation.write", "blocked", "no_signing_key", "")
		storetest.AssertCapability(t, got, "execute.action verify_record", "blocked", "no_signing_key", "")

		mustRec(t, clone, "init", "--generate-key") // a key of its own, which the branch does not list
		got = capabilityStates(t, clone)
		storetest.AssertCapability(t, got, "record.write", "blocked", "signer_not_allowed", "git records signers add")

		// The upstream moves on; after a fetch, reads here are stale.
		mustRec(t, upstream, "create", "--id", "m", "--type", "concept", "--title", "M", "--category", "c", "--body", "b", "--agent", "a")
		git(t, clone, "fetch", "-q", "origin")
		got = capabilityStates(t, clone)
		storetest.AssertCapability(t, got, "record.read", "stale", "behind_upstream", "git records pull")
		storetest.AssertCapability(t, got, "record.query", "stale", "behind_upstream", "")
	})

	t.Run("the policy denies this principal", func(t *testing.T) {
		dir := newRepo(t)
		policy := filepath.Join(t.TempDir(), "policy.yaml")
		require.NoError(t, os.WriteFile(policy, []byte("version: 1\nrules:\n  - profile: read-only\n  - principal: boss@example.com\n    profile: maintainer\n"), 0o644))
		mustRec(t, dir, "policy", "set", policy, "--rationale", "lock down", "--agent", "a")
		got := capabilityStates(t, dir)
		storetest.AssertCapability(t, got, "record.write", "denied", "policy_denied", "grant create to "+userEmail)
		assert.Equal(t, "default → read-only", got["record.write"]["rule"], "a denial names the rule")
		storetest.AssertCapability(t, got, "relation.write", "denied", "policy_denied", "")
		storetest.AssertCapability(t, got, "execute.action verify_record", "denied", "policy_denied", "")
		storetest.AssertCapability(t, got, "record.read", "available", "", "")
		// What capabilities predicts is what a write meets.
		r := rec(t, dir, "--json", "create", "--type", "concept", "--title", "T", "--category", "c", "--body", "b", "--agent", "a")
		requireError(t, r, "PERMISSION_DENIED", cmdutil.ExitDenied)
	})

	t.Run("a standalone store outside a working tree", func(t *testing.T) {
		cwd := t.TempDir()
		store := filepath.Join(t.TempDir(), "kb")
		got := capabilityStates(t, cwd, "--store", store)
		storetest.AssertCapability(t, got, "record.write", "available", "", "")
		storetest.AssertCapability(t, got, "execute.action verify_record", "blocked", "no_worktree", "working tree")
		assert.NoDirExists(t, store, "capabilities reads; it does not create the store")
		recIn(t, cwd, `{"input":{"type":"concept","title":"C","body":"b","category":"a.b","provenance":{"agent":"t"}}}`, "--store", store, "contract", "create")
		got = capabilityStates(t, cwd, "--store", store)
		storetest.AssertCapability(t, got, "record.write", "available", "", "")
		storetest.AssertCapability(t, got, "execute.action verify_record", "blocked", "no_worktree", "")
	})

	t.Run("the contract op is unchanged", func(t *testing.T) {
		out := jsonOf[obj](t, recIn(t, t.TempDir(), "{}", "--store", filepath.Join(t.TempDir(), "kb"), "contract", "capabilities"))
		ops := []string{}
		for _, op := range out["result"].(map[string]any)["ops"].([]any) {
			ops = append(ops, op.(string))
		}
		assert.Equal(t, contract.Ops, ops)
		assert.Len(t, out, 1)
	})
}
