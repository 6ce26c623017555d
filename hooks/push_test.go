package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPushToServer pushes to a bare repository with the server hooks
// installed: a valid records branch goes through, and each way of breaking
// the rules is refused with a `remote:` message naming the rule. Every
// broken case is the valid hand edit with one thing changed, so it is that
// one thing the server refuses.
func TestPushToServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	before := w.serverTip(t)
	require.NotEmpty(t, before)

	t.Run("valid hand edit signed by the maintainer is accepted", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		head := commit(t, dir, w.key, w.updateMsg())
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Equal(t, head, w.serverTip(t))
		before = head
	})

	t.Run("contributor's create is accepted", func(t *testing.T) {
		dir := w.carolClone(t)
		create(t, dir, "--type", "review.finding", "--title", "Missing expiry check", "--category", "eng.auth", "--agent", "carol", "--body", "No expiry check.")
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
		before = w.serverTip(t)
	})

	rejected := func(t *testing.T, dir, rule, says string, args ...string) {
		t.Helper()
		if len(args) == 0 {
			args = []string{"records"}
		}
		requireRejected(t, push(t, dir, args...), rule, says)
		assert.Equal(t, before, w.serverTip(t), "a refused push leaves the server's branch alone")
	}

	t.Run("unsigned commit", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		commit(t, dir, "", w.updateMsg())
		rejected(t, dir, "signature", "commit is not signed")
	})

	t.Run("commit signed by a key not in allowed_signers", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		commit(t, dir, malloryKey, w.updateMsg())
		rejected(t, dir, "signature", "not in .records/allowed_signers as of the parent commit")
	})

	t.Run("deleted record", func(t *testing.T) {
		dir := w.clone(t)
		require.NoError(t, os.Remove(recordFile(t, dir, w.finding)))
		commit(t, dir, w.key, handMsg("update(review.finding): Refresh without rotation",
			"Record-Op: update", "Record-Id: "+w.finding, "Record-Agent: hand-editor", "Record-Format: 1", "Evidence-Fields: body"))
		rejected(t, dir, "no-delete", "record "+w.finding+" is deleted")
	})

	t.Run("rewritten mutation_log entry", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return replace(t, s, "agent: reviewer-bot", "agent: someone-else")
		})
		commit(t, dir, w.key, w.updateMsg())
		rejected(t, dir, "mutation-log", "mutation log of "+w.concept+" was rewritten")
	})

	t.Run("changed created_at", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			i := strings.Index(s, "created_at: ")
			require.Positive(t, i)
			return s[:i] + `created_at: "2001-01-01T00:00:00.000Z"` + s[i+strings.Index(s[i:], "\n"):]
		})
		commit(t, dir, w.key, w.updateMsg())
		rejected(t, dir, "immutable", "created_at of record "+w.concept+" changed")
	})

	t.Run("apply by a contributor", func(t *testing.T) {
		// The CLI's gate refuses carol's apply before anything is written
		// (TestGateDenies). A client without the gate still produces a
		// genuine apply commit signed with carol's allowed key: the server
		// judges it by the parent's policy, where carol is a contributor.
		dir := w.carolClone(t)
		mutateAs(t, dir, w.apply("carol"))
		assert.Equal(t, []string{"apply"}, trailerValues(trailers(t, dir, "records"), "Record-Op"))
		rejected(t, dir, "policy", "carol@example.com may not apply concept "+w.concept+
			" in eng.auth: profile contributor does not allow apply (rule: principal carol@example.com → contributor)")
	})

	t.Run("trailers lack the op's evidence", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		commit(t, dir, w.key, handMsg("update(concept): Token refresh",
			"Record-Op: update", "Record-Id: "+w.concept, "Record-Agent: hand-editor", "Record-Format: 1"))
		rejected(t, dir, "trailers", "update commit lacks its evidence trailer Evidence-Fields")
	})

	t.Run("policy change by a contributor", func(t *testing.T) {
		dir := w.carolClone(t)
		git(t, dir, "checkout", "-q", "records")
		data, err := os.ReadFile(fixturePath(t, "policy-carol-maintainer.yaml"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".records", "policy.yaml"), data, 0o644))
		commit(t, dir, carolKey, handMsg("policy(store): change .records/policy.yaml",
			"Record-Op: policy", "Record-Agent: carol", "Record-Format: 1", "Evidence-Rationale: I review enough to maintain"))
		rejected(t, dir, "policy", "carol@example.com may not policy the store: profile contributor does not allow policy")
	})

	t.Run("contributor merges in a forged history that makes her maintainer", func(t *testing.T) {
		// A root commit is judged by its own allowed_signers, so carol can
		// start a history of her own in which she is a maintainer, and
		// then merge it with a merge commit her contributor profile
		// allows, taking that history's policy.
		dir := w.carolClone(t)
		forged := forgedRoot(t, dir)
		git(t, dir, "checkout", "-q", "records")
		git(t, dir, "merge", "-q", "--no-ff", "--no-commit", "--allow-unrelated-histories", "-s", "ours", "forged")
		git(t, dir, "checkout", "forged", "--", ".records/policy.yaml")
		commit(t, dir, carolKey, handMsg("merge(store): forged",
			"Record-Op: merge", "Record-Agent: carol", "Record-Format: 1", "Evidence-Merged-From: "+forged))
		rejected(t, dir, "op-matches", "unrelated histories")
	})

	t.Run("a second root is refused where records.trustRoot is pinned", func(t *testing.T) {
		root := strings.TrimSpace(git(t, w.origin, "rev-list", "--max-parents=0", "records"))
		git(t, w.server, "config", "records.trustRoot", root)
		defer git(t, w.server, "config", "--unset", "records.trustRoot")
		dir := w.carolClone(t)
		forged := forgedRoot(t, dir)
		r := push(t, dir, "forged")
		requireRejected(t, r, "trust-root", "root commit "+forged[:12]+" is not the pinned trust root "+root)
		assert.Empty(t, revParse(t, w.server, "refs/heads/forged"))
	})

	t.Run("forged trailer in a title stays in the subject", func(t *testing.T) {
		dir := w.cliClone(t)
		id := create(t, dir, "--type", "concept", "--title", "x\nRecord-Op: apply", "--category", "eng.auth", "--agent", "alice", "--body", "b")
		ts := trailers(t, dir, "records")
		assert.Equal(t, []string{"create"}, trailerValues(ts, "Record-Op"), "git reads exactly one Record-Op: %q", ts)
		assert.Equal(t, []string{id}, trailerValues(ts, "Record-Id"))
		subject := strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s", "records", "--"))
		assert.Equal(t, "create(concept): x Record-Op: apply", subject)
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
		before = w.serverTip(t)
	})

	t.Run("hand-crafted commit with a second Record-Op", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		commit(t, dir, w.key, w.updateMsg("Record-Op: apply"))
		assert.Equal(t, []string{"update", "apply"}, trailerValues(trailers(t, dir, "HEAD"), "Record-Op"))
		rejected(t, dir, "trailers", "Record-Op appears 2 times")
	})

	t.Run("hand-crafted commit with an unknown trailer", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		commit(t, dir, w.key, w.updateMsg("Record-Approved: yes"))
		rejected(t, dir, "trailers", `unknown trailer key "Record-Approved"`)
	})

	t.Run("a new branch carrying records is judged too", func(t *testing.T) {
		dir := w.clone(t)
		git(t, dir, "checkout", "-q", "-b", "review-42")
		w.editBody(t, dir)
		unsigned := commit(t, dir, "", w.updateMsg())
		r := push(t, dir, "review-42")
		requireRejected(t, r, "signature", unsigned[:12]+": commit is not signed")
		assert.NotContains(t, r.stderr, "violations in 7 commits", "only the commits the server lacks are judged")
		assert.Empty(t, revParse(t, w.server, "refs/heads/review-42"))
	})

	t.Run("the update hook judges alone", func(t *testing.T) {
		preReceive := filepath.Join(w.server, "hooks", "pre-receive")
		require.NoError(t, os.Rename(preReceive, preReceive+".off"))
		defer os.Rename(preReceive+".off", preReceive)
		dir := w.clone(t)
		w.editBody(t, dir)
		commit(t, dir, malloryKey, w.updateMsg())
		r := push(t, dir, "records")
		requireRejected(t, r, "signature", "not in .records/allowed_signers")
		assert.Contains(t, r.stderr, "(hook declined)")
		assert.Equal(t, before, w.serverTip(t))
	})

	t.Run("force-push rewinding the branch", func(t *testing.T) {
		dir := w.clone(t)
		git(t, dir, "reset", "-q", "--hard", "HEAD~1")
		rejected(t, dir, "history", "refs/heads/records would be rewound", "--force", "records")
	})

	t.Run("force-push replacing the last commit", func(t *testing.T) {
		dir := w.clone(t)
		git(t, dir, "reset", "-q", "--hard", "HEAD~1")
		w.editBody(t, dir)
		commit(t, dir, w.key, w.updateMsg())
		rejected(t, dir, "history", "records history is append-only", "--force", "records")
	})

	t.Run("deleting the records branch", func(t *testing.T) {
		dir := w.clone(t)
		rejected(t, dir, "history", "deleting refs/heads/records would delete every record", ":records")
	})
}

// forgedRoot starts, in dir, a branch "forged" with a history of its own:
// a root commit, signed by carol, whose allowed_signers lists her key and
// whose policy makes her maintainer. It returns the root.
func forgedRoot(t *testing.T, dir string) string {
	t.Helper()
	git(t, dir, "checkout", "-q", "--orphan", "forged")
	git(t, dir, "rm", "-rqf", ".")
	pub, err := os.ReadFile(carolKey + ".pub")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".records"), 0o755))
	for name, data := range map[string]string{
		"format":          "1\n",
		"allowed_signers": carol + " namespaces=\"git\" " + string(pub),
		"policy.yaml":     fixture(t, "policy-carol-maintainer.yaml"),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".records", name), []byte(data), 0o644))
	}
	return commit(t, dir, carolKey, handMsg("init(store): records store", "Record-Op: init", "Record-Agent: carol", "Record-Format: 1"))
}
