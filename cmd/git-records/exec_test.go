package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExecCommands: the CLI of execution records: what each command
// prints, the errors that name the flag to fix, and a sandbox that cannot
// retire while it owns open work.
func TestExecCommands(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	requireError(t, rec(t, dir, "--json", "exec", "start", "--title", "x", "--session", "s", "--agent", "a"), "USAGE", 2)
	e := requireError(t, rec(t, dir, "--json", "exec", "start", "--kind", "run", "--title", "x", "--agent", "a"), "MISSING_EVIDENCE", 1)
	assert.Equal(t, "--session", e["flag"])
	requireError(t, rec(t, dir, "--json", "exec", "start", "--kind", "job", "--title", "x", "--session", "s", "--agent", "a"), "USAGE", 2)

	mustRec(t, dir, "create", "--type", "execution.sandbox", "--id", "sb", "--title", "Sandbox", "--category", "sandboxes", "--agent", "ops", "--body", "b")
	run := mustJSON[map[string]any](t, dir, "exec", "start", "--kind", "run", "--title", "Nightly", "--session", "s", "--agent", "a", "--sandbox", "sb")["id"].(string)
	task := strings.TrimSpace(mustRec(t, dir, "exec", "start", "--kind", "background_task", "--title", "Index", "--parent-job", run,
		"--session", "s", "--agent", "a", "--keep-after-run"))

	list := mustJSON[map[string]any](t, dir, "exec", "list", "--owner", "s")
	assert.Len(t, list["records"], 2)
	requireError(t, rec(t, dir, "--json", "exec", "list"), "USAGE", 2)
	assert.Contains(t, mustRec(t, dir, "exec", "list", "--owner", "nobody"), "owns no open execution records")

	md := mustRec(t, dir, "continue", "--owner", "s")
	assert.Contains(t, md, "**background_task** `"+task+"` Index (open, depth 1, sandbox sb, survives run end)")
	assert.Contains(t, md, "parent-job: `"+run+"` Nightly (open)")
	assert.Contains(t, md, "children: `"+task+"` Index (open)")

	e = requireError(t, rec(t, dir, "--json", "exec", "retire-sandbox", "sb", "--agent", "ops", "--reason", "done"), "OPEN_RECORDS", 1)
	assert.ElementsMatch(t, []any{run, task}, e["open"])
	requireError(t, rec(t, dir, "--json", "exec", "end-session", "--session", "s", "--agent", "a"), "USAGE", 2)
	r := rec(t, dir, "exec", "await", task, "--session", "s", "--state", "archived")
	assert.Equal(t, 1, r.code, "still open: %s", r)
	requireError(t, rec(t, dir, "--json", "exec", "await", task, "--session", "s", "--state", "done"), "USAGE", 2)

	closed := mustJSON[map[string]any](t, dir, "exec", "end-session", "--session", "s", "--agent", "a", "--archive")
	assert.ElementsMatch(t, []any{run, task}, closed["closed"])
	got := mustJSON[map[string]any](t, dir, "exec", "await", task, "--session", "s", "--state", "archived")
	assert.Equal(t, true, got["reached"])
	assert.Contains(t, mustRec(t, dir, "exec", "retire-sandbox", "sb", "--agent", "ops", "--reason", "done"), "sb retired")
	require.Contains(t, mustRec(t, dir, "log", "-n", "2"), "cleanup")
}
