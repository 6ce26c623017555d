package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// writerPolicy lets carol create but not merge.
const writerPolicy = `version: 1
profiles:
  writer:
    ops: [create]
rules:
  - profile: read-only
  - principal: test@example.com
    profile: maintainer
  - principal: carol@example.com
    profile: writer
`

// TestMergeGate: merge writes its merge commit through the store's one
// write loop, so the policy gate judges it like every op. carol may create
// but not merge: when her records branch and the server's have diverged,
// merge is refused before anything is written (PERMISSION_DENIED, exit 4,
// one audit line), and the branch stays where it was. Pull and sync merge
// nothing: they replay her create on the server's tip, judged again there
// as a create, which her profile allows, and audited as one.
func TestMergeGate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	policy := filepath.Join(t.TempDir(), "writer.yaml")
	require.NoError(t, os.WriteFile(policy, []byte(writerPolicy), 0o644))
	mustRec(t, w.origin, "policy", "set", policy, "--rationale", "carol writes, does not merge", "--agent", userEmail)
	require.Equal(t, 0, run(t, w.origin, "", nil, "git", "push", w.server, "records").code)

	dir := w.carolClone(t)
	git(t, dir, "branch", "-f", "records", "origin/records")
	note := create(t, dir, "--type", "concept", "--title", "Carol's note", "--category", "eng", "--agent", "carol", "--body", "local")
	// An allowed commit is audited too, with the commit it wrote.
	lines := auditLines(t, dir)
	require.NotEmpty(t, lines)
	allowed := lines[len(lines)-1]
	assert.Equal(t, kernel.AuditLine{Time: allowed.Time, Principal: carol, Op: "create", Front: "cli", Agent: "carol", Risk: kernel.RiskWritesLocalState,
		InputDigest: allowed.InputDigest, OutputDigest: allowed.OutputDigest, DurationMS: allowed.DurationMS,
		EvidenceRefs: kernel.EvidenceRefs{Commit: revParse(t, dir, "refs/heads/records"), Records: []string{note}},
		Rule:         "principal carol@example.com → writer", Reason: "profile writer allows create", Result: kernel.AuditAllowed, Code: "OK"}, allowed)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, allowed.InputDigest)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, allowed.OutputDigest)
	assert.Positive(t, allowed.DurationMS)
	// The maintainer moves the server on meanwhile.
	maint := w.cliClone(t)
	create(t, maint, "--type", "concept", "--title", "Maintainer's note", "--category", "eng", "--agent", userEmail, "--body", "remote")
	require.Equal(t, 0, push(t, maint, "records").code)
	git(t, dir, "fetch", "-q", "origin") // the objects are here before any refused attempt

	before := revParse(t, dir, "refs/heads/records")
	e := requireDenied(t, dir, []string{"merge", "origin/records"}, "principal carol@example.com → writer",
		"carol@example.com may not merge on the store: profile writer does not allow merge")
	assert.Equal(t, carol, e.Principal)
	assert.Equal(t, "merge", e.Op)
	assert.Equal(t, kernel.AuditDenied, e.Result)
	assert.Equal(t, "profile writer does not allow merge", e.Reason)
	assert.Equal(t, before, revParse(t, dir, "refs/heads/records"))

	out := mustRec(t, dir, "sync")
	assert.Contains(t, out, "replayed 1 commits")
	assert.Contains(t, out, "pushed")
	tip := revParse(t, dir, "refs/heads/records")
	assert.Equal(t, w.serverTip(t), tip)
	assert.Empty(t, git(t, dir, "rev-list", "--merges", tip), "no merge commit")
	lines = auditLines(t, dir)
	replayed := lines[len(lines)-1]
	assert.Equal(t, "create", replayed.Op)
	assert.Equal(t, kernel.AuditAllowed, replayed.Result)
	assert.Equal(t, tip, replayed.EvidenceRefs.Commit, "the replayed create is audited with the commit it wrote")
	assert.Equal(t, "profile writer allows create", replayed.Reason)
	mustRec(t, dir, "verify") // the branch is still one verify accepts
}
