package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestObserveCoalesces: re-observing an unchanged snapshot writes no
// commit (the audit keeps the observation as an unchanged line); a changed
// one is a new snapshot record with its payload stored by hash; verify
// accepts the history.
func TestObserveCoalesces(t *testing.T) {
	dir := newRepo(t)
	payload := filepath.Join(t.TempDir(), "pr.json")
	require.NoError(t, os.WriteFile(payload, []byte(`{"number":42,"state":"open"}`), 0o644))
	observe := []string{"observe", "--extension", "github", "--external-id", "pull/42", "--payload-file", payload,
		"--title", "PR 42", "--category", "github.pulls", "--agent", "watcher"}
	first := mustJSON[obj](t, dir, observe...)
	id, _ := first["id"].(string)
	require.NotEmpty(t, id)
	head := tip(t, dir)
	shown := mustJSON[obj](t, dir, "show", id)
	source, _ := shown["source"].(map[string]any)
	assert.Equal(t, kernel.PayloadRef([]byte(`{"number":42,"state":"open"}`)), source["payload"])
	assert.Equal(t, "snapshot", shown["kind"])

	again := mustJSON[obj](t, dir, observe...)
	assert.Equal(t, true, again["unchanged"], "an unchanged snapshot is coalesced")
	assert.Equal(t, id, again["id"], "and names the snapshot that holds it")
	assert.Equal(t, head, tip(t, dir), "no commit")
	out := mustJSON[auditOut](t, dir, "audit")
	last := out.Audit[len(out.Audit)-1]
	assert.Equal(t, kernel.AuditUnchanged, last.Result, "the observation is audited")
	assert.Equal(t, "observe", last.Op)

	require.NoError(t, os.WriteFile(payload, []byte(`{"number":42,"state":"merged"}`), 0o644))
	changed := mustJSON[obj](t, dir, observe...)
	assert.NotEqual(t, id, changed["id"], "a changed object is a new snapshot (snapshots are append-only)")
	assert.NotEqual(t, head, tip(t, dir))
	mustRec(t, dir, "verify")

	r := rec(t, dir, "--json", "observe", "--extension", "github", "--payload-file", payload, "--title", "t", "--category", "c", "--agent", "w")
	e := requireError(t, r, "MISSING_EVIDENCE", 1)
	assert.Equal(t, "--external-id", e["flag"])
}
