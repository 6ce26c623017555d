package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestOwnershipHoldsOnPush: execution records are managed by their owner
// (the signer who created them, in the owner's session). carol has a valid
// key and the contributor profile, which allows cancel: the CLI refuses her
// cancel of the maintainer's run, and the server rejects the same cancel
// written by hand without the gate. A sandbox retired while it owns an open
// record is rejected the same way.
func TestOwnershipHoldsOnPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	mustRec(t, w.origin, "create", "--type", "execution.sandbox", "--id", "sb-1", "--title", "Sandbox", "--category", "sandboxes",
		"--agent", "ops", "--body", "a sandbox")
	run := strings.TrimSpace(mustRec(t, w.origin, "exec", "start", "--kind", "run", "--title", "Nightly", "--session", "s-1", "--agent", "planner",
		"--sandbox", "sb-1", "--creator-job", "job-7"))
	r := run0(t, w.origin, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)

	cancel := func(session string) func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Manage(v, kernel.OpCancel, run, kernel.ManageInput{Agent: "carol", Session: session, Reason: "mine now"}, env)
		}
	}
	t.Run("the CLI refuses a manager who is not the owner", func(t *testing.T) {
		dir := w.carolClone(t)
		r := rec(t, dir, "--json", "exec", "cancel", run, "--session", "s-1", "--agent", "carol", "--reason", "mine now")
		assert.Equal(t, 4, r.code, "%s", r)
		assert.Contains(t, r.stdout, `"code": "NOT_OWNER"`)
		assert.Contains(t, r.stdout, "is owned by test@example.com")
	})
	t.Run("the server refuses the cancel written by hand", func(t *testing.T) {
		dir := w.carolClone(t)
		mutateAs(t, dir, cancel("s-1"))
		requireRejected(t, push(t, dir, "records"), kernel.RuleOwnership, "is owned by test@example.com (session \"s-1\"), not by carol@example.com")
	})
	t.Run("the owner's key in another session is refused too", func(t *testing.T) {
		dir := w.cliClone(t)
		mutateAs(t, dir, cancel("s-2"))
		requireRejected(t, push(t, dir, "records"), kernel.RuleOwnership, "not by test@example.com (session \"s-2\")")
	})
	t.Run("a sandbox retired while it owns an open record", func(t *testing.T) {
		dir := w.cliClone(t)
		r := rec(t, dir, "--json", "exec", "retire-sandbox", "sb-1", "--agent", "ops", "--reason", "done")
		assert.Equal(t, 1, r.code, "%s", r)
		assert.Contains(t, r.stdout, `"code": "OPEN_RECORDS"`)
		mutateAs(t, dir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Retire(v, "sb-1", kernel.StatusRetired, kernel.Evidence{Agent: "ops", Rationale: "done"}, env)
		})
		requireRejected(t, push(t, dir, "records"), kernel.RuleSandbox, "sandbox sb-1 still owns 1 open records")
	})
	t.Run("the owner cancels, and force-close retires the sandbox with receipts", func(t *testing.T) {
		dir := w.cliClone(t)
		mustRec(t, dir, "exec", "start", "--kind", "background_task", "--title", "Indexer", "--parent-job", run, "--session", "s-1", "--agent", "planner")
		mustRec(t, dir, "exec", "cancel", run, "--session", "s-1", "--agent", "planner", "--reason", "superseded")
		out := mustJSON[map[string]any](t, dir, "exec", "retire-sandbox", "sb-1", "--agent", "ops", "--reason", "decommissioned", "--force")
		assert.Len(t, out["force_closed"], 1, "the background task, still open, is force-closed")
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
	})
}

// TestChildWorkIsTheRunOwnersOnPush: two principals with their own keys.
// The maintainer (test@example.com) runs a run in session alice-s1 under a
// policy of two open children per run. carol, a contributor with a valid
// key, cannot start children under it naming that session: the CLI
// refuses with NOT_OWNER and writes nothing, and the same start made
// without the gate and pushed is rejected by the server. The run's owner
// fills its quota and ends it.
func TestChildWorkIsTheRunOwnersOnPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	policy := filepath.Join(t.TempDir(), "limits.yaml")
	base, err := os.ReadFile(fixturePath(t, "policy.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(policy, append(base, "execution:\n  max_children: 2\n"...), 0o644))
	mustRec(t, w.origin, "policy", "set", policy, "--rationale", "two children per run", "--agent", userEmail)
	run := strings.TrimSpace(mustRec(t, w.origin, "exec", "start", "--kind", "run", "--title", "Nightly", "--session", "alice-s1", "--agent", "planner"))
	require.Equal(t, 0, run0(t, w.origin, "git", "push", w.server, "records").code)

	startChild := func(session string) func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Start(v, kernel.StartInput{Type: kernel.TypeChildRun, Title: "Squat", Session: session, Agent: "carol", ParentJob: run}, env)
		}
	}
	t.Run("the CLI refuses carol's child under the maintainer's run", func(t *testing.T) {
		dir := w.carolClone(t)
		before := revParse(t, dir, "records")
		r := rec(t, dir, "--json", "exec", "start", "--kind", "child_run", "--title", "Squat", "--parent-job", run, "--session", "alice-s1", "--agent", "carol")
		assert.Equal(t, 4, r.code, "%s", r)
		assert.Contains(t, r.stdout, `"code": "NOT_OWNER"`)
		assert.Contains(t, r.stdout, `is owned by test@example.com (session \"alice-s1\"), not by carol@example.com`)
		assert.Equal(t, before, revParse(t, dir, "records"), "nothing written")
	})
	t.Run("the server rejects carol's child written without the gate", func(t *testing.T) {
		dir := w.carolClone(t)
		mutateAs(t, dir, startChild("alice-s1"))
		requireRejected(t, push(t, dir, "records"), kernel.RuleOwnership, "run "+run+` is owned by test@example.com (session "alice-s1"), not by carol@example.com`)
	})
	t.Run("the owner's key in another session is rejected too", func(t *testing.T) {
		dir := w.cliClone(t)
		mutateAs(t, dir, startChild("other-s2"))
		requireRejected(t, push(t, dir, "records"), kernel.RuleOwnership, `not by test@example.com (session "other-s2")`)
	})
	t.Run("the owner fills the quota and ends the run", func(t *testing.T) {
		dir := w.cliClone(t)
		for _, title := range []string{"One", "Two"} {
			mustRec(t, dir, "exec", "start", "--kind", "child_run", "--title", title, "--parent-job", run, "--session", "alice-s1", "--agent", "planner")
		}
		r := rec(t, dir, "--json", "exec", "start", "--kind", "child_run", "--title", "Three", "--parent-job", run, "--session", "alice-s1", "--agent", "planner")
		assert.Equal(t, 4, r.code, "max_children 2: %s", r)
		assert.Contains(t, r.stdout, "already has 2 open children")
		out := mustJSON[map[string]any](t, dir, "exec", "end-run", run, "--session", "alice-s1", "--agent", "planner")
		assert.Len(t, out["terminated"], 2)
		r = push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
	})
}

func run0(t testing.TB, dir string, name string, args ...string) result {
	t.Helper()
	return run(t, dir, "", nil, name, args...)
}
