package hooks_test

import (
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

func run0(t testing.TB, dir string, name string, args ...string) result {
	t.Helper()
	return run(t, dir, "", nil, name, args...)
}
