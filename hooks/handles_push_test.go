package hooks_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMergeKeepsHandlesUnique: ids and aliases are unique on the tree every
// commit leaves, a merge's included. carol, on her fork, creates a record
// with the id of a maintainer's new security record (under another type,
// so at another path) and one with the maintainer's new alias. Merging the
// two histories would give sec-2 and deploy-policy two records each, and
// which one show answers would depend on the clone. git records merge
// refuses it before anything is written, and a merge made with plain git,
// whichever parent comes first, is refused by the server's hooks and by
// verify.
func TestMergeKeepsHandlesUnique(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.carolClone(t) // her fork: cloned before the maintainer's records exist
	git(t, dir, "branch", "-f", "records", "origin/records")

	maint := w.cliClone(t)
	create(t, maint, "--id", "sec-2", "--type", "concept", "--title", "Key rotation", "--category", "security",
		"--agent", userEmail, "--body", "Rotate keys monthly.")
	create(t, maint, "--id", "policy-7", "--type", "decision", "--title", "Deploy policy", "--category", "ops",
		"--agent", userEmail, "--body", "Deploys need two approvals.", "--alias", "deploy-policy")
	require.Equal(t, 0, push(t, maint, "records").code)

	create(t, dir, "--id", "sec-2", "--type", "decision", "--title", "Keys never rotate", "--category", "eng",
		"--agent", "carol", "--body", "Rotation is optional.")
	create(t, dir, "--type", "concept", "--title", "Deploy freely", "--category", "eng",
		"--agent", "carol", "--body", "Anyone deploys.", "--alias", "deploy-policy")
	git(t, dir, "fetch", "-q", "origin")
	mine := revParse(t, dir, "refs/heads/records")

	t.Run("git records merge refuses, naming both records", func(t *testing.T) {
		r := rec(t, dir, "--json", "merge", "origin/records")
		require.NotEqual(t, 0, r.code, "%s", r)
		var env struct{ Error map[string]any }
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &env), "%s", r)
		assert.Equal(t, "CONFLICT", env.Error["code"], "%s", r)
		assert.Equal(t, "handle", env.Error["rule"], "%s", r)
		msg, _ := env.Error["message"].(string)
		assert.Contains(t, msg, "concept sec-2: id sec-2 already names a decision record")
		assert.Contains(t, msg, `decision policy-7: alias "deploy-policy" already belongs to record`)
		assert.Equal(t, mine, revParse(t, dir, "refs/heads/records"), "nothing was merged")
		assert.Equal(t, "Keys never rotate", mustJSON[obj](t, dir, "show", "sec-2")["title"], "her record is still hers to show")
	})

	// The same merge made with plain git, in either parent order.
	for _, order := range []struct{ name, ours, theirs string }{
		{"hers first", "fork/records", "origin/records"},
		{"the maintainer's first", "origin/records", "fork/records"},
	} {
		t.Run("a plain git merge with "+order.name+" is refused by the server and verify", func(t *testing.T) {
			work := w.cloneWith(t, "user.email="+carol, "user.name=Carol", "records.signingKey="+carolKey)
			git(t, work, "fetch", "-q", dir, "records:refs/remotes/fork/records")
			git(t, work, "checkout", "-q", "-B", "records", order.ours)
			theirsHash := revParse(t, work, "refs/remotes/"+order.theirs)
			git(t, work, "merge", "-q", "--no-ff", "--no-commit", "--no-verify", theirsHash)
			var ids []string
			for _, l := range strings.Split(strings.TrimSpace(git(t, work, "diff", "--cached", "--name-only", "HEAD")), "\n") {
				if strings.HasPrefix(l, "records/") {
					ids = append(ids, "Record-Id: "+strings.TrimSuffix(l[strings.LastIndex(l, "/")+1:], ".md"))
				}
			}
			require.NotEmpty(t, ids)
			msg := handMsg("merge(records): fork", append(append([]string{"Record-Op: merge"}, ids...),
				"Record-Agent: carol", "Record-Format: 1", "Evidence-Merged-From: "+theirsHash)...)
			commit(t, work, carolKey, msg)
			requireRejected(t, push(t, work, "records"), "handle", "already")
			rep := verifyJSON(t, work, 1, "HEAD~1..HEAD")
			var got []string
			for _, v := range rep.Violations {
				got = append(got, v.Rule+": "+v.Message)
			}
			if order.ours == "origin/records" {
				assert.Contains(t, got, "handle: id sec-2 already names a concept record: ids are unique across types")
			} else {
				assert.Contains(t, got, "handle: id sec-2 already names a decision record: ids are unique across types")
			}
		})
	}
}

// TestSyncMeetsAnHonestIDCollisionAsAConflict: two people who each create
// a record with id rfc-1, under different types, and sync. The first sync
// publishes hers; the second cannot replay his create on hers (the
// judgment refuses a second rfc-1), so it ends in a CONFLICT naming both
// records and publishes nothing of it: no clone ever holds two rfc-1 with
// list and show answering one of them. His commit is kept at its ref,
// where he can still show it.
func TestSyncMeetsAnHonestIDCollisionAsAConflict(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a, b := w.cliClone(t), w.cliClone(t)
	create(t, a, "--id", "rfc-1", "--type", "concept", "--title", "RFC one, as a concept", "--category", "eng", "--agent", "alice", "--body", "A.")
	create(t, b, "--id", "rfc-1", "--type", "decision", "--title", "RFC one, as a decision", "--category", "eng", "--agent", "bob", "--body", "B.")
	mustRec(t, a, "sync")
	mine := revParse(t, b, "refs/heads/records")

	r := rec(t, b, "--json", "sync")
	require.NotEqual(t, 0, r.code, "%s", r)
	var env struct{ Error map[string]any }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &env), "%s", r)
	assert.Equal(t, "CONFLICT", env.Error["code"], "%s", r)
	msg, _ := env.Error["message"].(string)
	assert.Contains(t, msg, "rfc-1: id rfc-1 already names a concept record")
	kept := "refs/records-unpublished/records/" + mine
	assert.Contains(t, msg, kept)
	assert.Equal(t, mine, revParse(t, b, kept), "his commit is kept")
	assert.Equal(t, w.serverTip(t), revParse(t, a, "refs/heads/records"), "the server holds the first one only")
	assert.Equal(t, w.serverTip(t), revParse(t, b, "refs/heads/records"), "his branch is the server's")
	assert.Equal(t, "RFC one, as a concept", mustJSON[obj](t, b, "show", "rfc-1")["title"])
	assert.Equal(t, "RFC one, as a decision", mustJSON[obj](t, b, "--ref", kept, "show", "rfc-1")["title"])
	assert.Equal(t, "RFC one, as a concept", mustJSON[obj](t, a, "show", "rfc-1")["title"])
}
