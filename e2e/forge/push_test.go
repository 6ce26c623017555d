//go:build forge

package forge

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestForgeRefusesForgedPushes: a records repository on Gitea with the
// server hooks in hooks/pre-receive.d/. Over HTTP, with the pusher's
// token, each forgery is refused with its rule in the `remote:` lines
// Gitea relays, and leaves the forge's branch where it was: a record
// commit nobody signed, one signed by a key in no allowed_signers, one
// that deletes a record, and a forged commit on a new review branch. A
// record the maintainer writes with git-records is then accepted, and
// Gitea's own hook still runs beside ours (its branch protection refuses
// a force push).
func TestForgeRefusesForgedPushes(t *testing.T) {
	s := newStore(t)
	s.publish(t, "pushes")
	tip := remoteTip(t, "pushes", "refs/heads/records")
	require.Equal(t, strings40(git(t, s.dir, "rev-parse", "records")), tip, "the forge has the maintainer's branch")

	dir := clone(t, admin, "pushes", "records.signingKey="+s.key)
	refused := func(t *testing.T, rule, says string, refspec string) {
		t.Helper()
		requireRefused(t, run(t, dir, "", nil, "git", "push", "origin", refspec), rule, says)
		assert.Equal(t, tip, remoteTip(t, "pushes", "refs/heads/records"), "a refused push leaves the forge's branch alone")
		git(t, dir, "reset", "-q", "--hard", "origin/records")
	}

	t.Run("unsigned record commit", func(t *testing.T) {
		editBody(t, dir, s.concept)
		commit(t, dir, "", updateMsg(s.concept))
		refused(t, "signature", "commit is not signed", "records")
	})

	t.Run("commit signed by a key not in allowed_signers", func(t *testing.T) {
		editBody(t, dir, s.concept)
		commit(t, dir, malloryKey, updateMsg(s.concept))
		refused(t, "signature", "not in .records/allowed_signers", "records")
	})

	t.Run("commit that deletes a record", func(t *testing.T) {
		require.NoError(t, os.Remove(recordFile(t, dir, s.concept)))
		commit(t, dir, s.key, updateMsg(s.concept))
		refused(t, "no-delete", "record "+s.concept+" is deleted", "records")
	})

	t.Run("forged commit on a new review branch", func(t *testing.T) {
		editBody(t, dir, s.concept)
		commit(t, dir, malloryKey, updateMsg(s.concept))
		refused(t, "signature", "not in .records/allowed_signers", "HEAD:refs/heads/review/forged")
		assert.Empty(t, remoteTip(t, "pushes", "refs/heads/review/forged"), "the branch was not created")
	})

	t.Run("a record written with git-records is accepted", func(t *testing.T) {
		git(t, dir, "checkout", "-q", "--detach") // git-records moves records itself
		create(t, dir, "--type", "concept", "--title", "Session policy", "--category", "eng.auth",
			"--agent", "alice", "--body", "Sessions last 12 hours.")
		r := run(t, dir, "", nil, "git", "push", "origin", "records")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stderr, "remote: git-records: 1 commit verified", "%s", r)
		want := strings40(git(t, dir, "rev-parse", "records"))
		assert.Equal(t, want, remoteTip(t, "pushes", "refs/heads/records"))
		tip = want
	})

	t.Run("the forge's own hook still runs", func(t *testing.T) {
		forge.api(t, "POST", "/repos/"+admin.name+"/pushes/branch_protections", admin.token,
			map[string]any{"rule_name": "records"}, 201, nil)
		git(t, dir, "reset", "-q", "--hard", "records~1")
		r := run(t, dir, "", nil, "git", "push", "--force", "origin", "HEAD:refs/heads/records")
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stderr, "branch records is protected from force push", "Gitea's own hook refused it too:\n%s", r)
		assert.Equal(t, tip, remoteTip(t, "pushes", "refs/heads/records"))
	})
}

// strings40 is a commit id from git's output, without its newline.
func strings40(s string) string {
	if len(s) >= 40 {
		return s[:40]
	}
	return s
}
