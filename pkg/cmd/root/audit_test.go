package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

type auditOut struct {
	Audit   []kernel.AuditLine `json:"audit"`
	Skipped int                `json:"skipped"`
}

// TestAuditCommand: every write command, the contract's ops and a refusal
// each leave one line, which `audit --json` reads back with the front-end,
// op, agent, digests and result code; --since filters, and a bad --since is
// a USAGE error naming the flag.
func TestAuditCommand(t *testing.T) {
	dir := newRepo(t)
	id := createID(t, dir, "--type", "concept", "--title", "Audited", "--category", "eng", "--agent", "alice", "--body", "b")
	r := rec(t, dir, "--json", "create", "--type", "concept", "--category", "eng", "--agent", "alice", "--body", "b")
	requireError(t, r, "MISSING_EVIDENCE", 1)
	req := `{"id":"` + id + `"}`
	mustRec(t, dir, "update", id, "--title", "Audited again", "--agent", "bob")
	r = recIn(t, dir, req, "contract", "get")
	require.Equal(t, 0, r.Code, "%s", r)

	out := mustJSON[auditOut](t, dir, "audit")
	require.Len(t, out.Audit, 4, "init, create, the refused create, update: reads are not ops of the write path")
	init, created, refused, updated := out.Audit[0], out.Audit[1], out.Audit[2], out.Audit[3]
	assert.Equal(t, "init", init.Op)
	assert.Equal(t, "cli", created.Front)
	assert.Equal(t, "alice", created.Agent)
	assert.Equal(t, []string{id}, created.EvidenceRefs.Records)
	assert.Equal(t, kernel.AuditAllowed, created.Result)
	assert.Equal(t, "create", refused.Op)
	assert.Equal(t, kernel.AuditFailed, refused.Result)
	assert.Equal(t, "MISSING_EVIDENCE", refused.Code)
	assert.Contains(t, refused.Reason, "title")
	assert.Equal(t, "update", updated.Op)
	assert.Equal(t, "bob", updated.Agent)
	assert.Equal(t, tip(t, dir), updated.EvidenceRefs.Commit)
	assert.NotEqual(t, created.InputDigest, refused.InputDigest, "different command lines, different digests")

	// A contract write is audited with the digest of the request exactly
	// as it came in on stdin.
	create := `{"input":{"type":"concept","title":"Via contract","body":"b","category":"eng","provenance":{"agent":"adapter"}}}`
	r = recIn(t, dir, create, "contract", "create")
	require.Equal(t, 0, r.Code, "%s", r)
	out = mustJSON[auditOut](t, dir, "audit")
	last := out.Audit[len(out.Audit)-1]
	assert.Equal(t, "contract", last.Front)
	assert.Equal(t, "create", last.Op)
	assert.Equal(t, "adapter", last.Agent)
	assert.Equal(t, kernel.AuditDigest([]byte(create)), last.InputDigest)

	text := mustRec(t, dir, "audit")
	assert.Len(t, strings.Split(strings.TrimSpace(text), "\n"), 5)
	assert.Contains(t, text, "failed    create")
	assert.Contains(t, text, "MISSING_EVIDENCE")

	out = mustJSON[auditOut](t, dir, "audit", "--since", "2999-01-01")
	assert.Empty(t, out.Audit)
	out = mustJSON[auditOut](t, dir, "audit", "--since", "1h")
	assert.Len(t, out.Audit, 5)
	e := requireError(t, rec(t, dir, "--json", "audit", "--since", "yesterday-ish"), "USAGE", 2)
	assert.Equal(t, "--since", e["flag"])
}

// TestDerivedStateIsRebuildable: facts and index stay apart. Every read
// gives the same answer after every cache under .git/records (the index,
// its handles, whatever derived state a store keeps there) and a
// standalone store's graph-index.json are deleted: only the branch, the
// signing key and the audit log are facts.
func TestDerivedStateIsRebuildable(t *testing.T) {
	dir := newRepo(t)
	a := createID(t, dir, "--type", "concept", "--title", "Alpha", "--category", "eng.a", "--agent", "alice", "--alias", "eng/alpha", "--tag", "x", "--body", "see [[eng/beta]]")
	b := createID(t, dir, "--type", "concept", "--title", "Beta", "--category", "eng.b", "--agent", "alice", "--alias", "eng/beta", "--body", "back to [["+a+"]]")
	f := createID(t, dir, "--type", "review.finding", "--title", "Finding", "--category", "eng.a", "--agent", "bob", "--body", "finding")
	mustRec(t, dir, "propose", a, "--proposer", f, "--proposal", "new alpha", "--agent", "bob")
	mustRec(t, dir, "link", f, "--to", b, "--kind", "related", "--agent", "bob")
	c := createID(t, dir, "--type", "concept", "--title", "Gamma", "--category", "eng.c", "--agent", "alice", "--body", "g")
	mustRec(t, dir, "supersede", c, b, "--rationale", "replaced", "--agent", "alice")
	mustRec(t, dir, "retire", f, "--rationale", "done", "--agent", "alice")

	reads := [][]string{
		{"list", "--include-retired"}, {"list", "--category", "eng", "--prefix"}, {"list", "--tag", "x"},
		{"log"}, {"proposals"}, {"conflicts"}, {"graph", "--format", "json"}, {"search", "alpha"}, {"search", "tag:x"},
	}
	for _, id := range []string{a, b, c, f, "eng/alpha", a[:8]} {
		reads = append(reads, []string{"show", id}, []string{"links", id}, []string{"blame", id}, []string{"log", id})
	}
	snapshot := func() map[string]string {
		out := map[string]string{}
		for _, args := range reads {
			out[strings.Join(args, " ")] = mustRec(t, dir, append([]string{"--json"}, args...)...)
		}
		return out
	}
	before := snapshot()
	removed := removeDerived(t, filepath.Join(dir, ".git", "records"))
	assert.Contains(t, removed, "index", "the index was there to delete")
	after := snapshot()
	for k := range before {
		assert.JSONEq(t, before[k], after[k], "git records %s reads the same from the branch alone", k)
	}

	// A standalone store's graph-index.json is derived too: reindex
	// rebuilds it byte for byte.
	store := filepath.Join(t.TempDir(), "kb")
	for _, title := range []string{"One", "Two"} {
		r := recIn(t, "", `{"input":{"type":"concept","title":"`+title+`","body":"[[x]]","category":"a.b","provenance":{"agent":"t"}}}`, "--store", store, "contract", "create")
		require.Equal(t, 0, r.Code, "%s", r)
	}
	graph := filepath.Join(store, "graph-index.json")
	want, err := os.ReadFile(graph)
	require.NoError(t, err)
	require.NoError(t, os.Remove(graph))
	removeDerived(t, filepath.Join(store, ".git", "records"))
	r := recIn(t, "", `{}`, "--store", store, "contract", "reindex")
	require.Equal(t, 0, r.Code, "%s", r)
	got, err := os.ReadFile(graph)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

// removeDerived deletes everything in a store's .git/records except its
// facts: the audit log (every part), the signing key and the allowed
// signers git reads.
func removeDerived(t testing.TB, dataDir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dataDir)
	require.NoError(t, err)
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "audit.jsonl") || strings.HasPrefix(name, "signing_key") || name == "allowed_signers" {
			continue
		}
		require.NoError(t, os.RemoveAll(filepath.Join(dataDir, name)))
		removed = append(removed, name)
	}
	return removed
}
