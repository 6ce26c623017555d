//go:build forge

package forge

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestForgePullRequestCheck: pull requests to records on Gitea, checked as
// a CI job checks them, with examples/ci/records-check.sh against the pull
// request's head ref (refs/pull/N/head) fetched over HTTP from an
// anonymous clone. Carol, a contributor with write access, pushes a review
// branch of records she signed (the forge's hooks judge it and take it)
// and opens a pull request from it: the check passes and shows her record.
// From her fork, where no hook of ours runs, she opens another whose
// commit, signed with her own allowed key, deletes a record: the forge
// took the push, and the check fails with the rule.
func TestForgePullRequestCheck(t *testing.T) {
	s := newStore(t)
	s.publish(t, "pulls")
	c := forge.newUser(t, admin, "carol", carol)
	forge.api(t, "PUT", "/repos/"+admin.name+"/pulls/collaborators/carol", admin.token,
		map[string]any{"permission": "write"}, http.StatusNoContent, nil)
	dir := clone(t, c, "pulls", "user.email="+carol, "user.name=Carol", "records.signingKey="+carolKey)
	git(t, dir, "checkout", "-q", "--detach")

	// A review branch of signed records: the forge's hooks judge it too.
	git(t, dir, "branch", "review/session", "origin/records")
	create(t, dir, "--ref", "refs/heads/review/session", "--type", "review.finding", "--title", "Sessions never expire",
		"--category", "eng.auth", "--agent", "carol", "--body", "Sessions have no expiry.")
	r := run(t, dir, "", nil, "git", "push", "origin", "review/session")
	require.Equal(t, 0, r.code, "%s", r)
	assert.Contains(t, r.stderr, "remote: git-records: 1 commit verified", "%s", r)
	good := openPR(t, c, admin.name, "review/session", "Sessions never expire")

	// A fork has Gitea's hooks only: anything can be pushed there.
	forge.api(t, "POST", "/repos/"+admin.name+"/pulls/forks", c.token, map[string]any{}, http.StatusAccepted, nil)
	waitFor(t, "carol's fork", func() bool { return forge.call("GET", "/repos/carol/pulls", c.auth(), nil, http.StatusOK, nil) == nil })
	git(t, dir, "checkout", "-q", "-b", "forged", "origin/records")
	require.NoError(t, os.Remove(recordFile(t, dir, s.concept)))
	commit(t, dir, carolKey, updateMsg(s.concept))
	r = run(t, dir, "", nil, "git", "push", forge.cloneURL(c, c.name, "pulls"), "forged")
	require.Equal(t, 0, r.code, "the fork takes anything:\n%s", r)
	forged := openPR(t, c, c.name, "forged", "Tidy up")

	ci := filepath.Join(t.TempDir(), "ci")
	git(t, "", "clone", "-q", "-b", "records", forge.cloneURL(user{}, admin.name, "pulls"), ci)
	check := func(pr int) result {
		t.Helper()
		ref := fmt.Sprintf("refs/pull/%d/head", pr)
		fetchWhenThere(t, ci, ref+":refs/pr/"+fmt.Sprint(pr))
		summary := filepath.Join(t.TempDir(), "summary.md")
		r := run(t, ci, "", []string{"RECORDS_SUMMARY=" + summary}, "sh", checkPR, "origin/records", "refs/pr/"+fmt.Sprint(pr))
		data, err := os.ReadFile(summary)
		require.NoError(t, err, "the check wrote its summary")
		assert.Equal(t, r.stdout, string(data), "the summary is what it printed")
		return r
	}

	t.Run("the pull request of signed records passes", func(t *testing.T) {
		r := check(good)
		require.Equal(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stdout, "Sessions never expire", "the summary shows the record the pull request adds")
	})

	t.Run("the forged pull request fails with the rule", func(t *testing.T) {
		r := check(forged)
		require.Equal(t, 1, r.code, "%s", r)
		assert.Contains(t, r.stdout, "no-delete", "%s", r)
		assert.Contains(t, r.stdout, s.concept, "%s", r)
		assert.Contains(t, r.stderr, "records-check: violations in origin/records..refs/pr/", "%s", r)
	})
}

// openPR opens a pull request to records as u, from a branch of owner's
// repository (the records repository, or a fork of it), and returns its
// number. It waits for the forge to list the branch first: Gitea records a
// pushed branch after the push, in the background.
func openPR(t testing.TB, u user, owner, branch, title string) int {
	t.Helper()
	waitFor(t, owner+"'s branch "+branch, func() bool {
		return forge.call("GET", "/repos/"+owner+"/pulls/branches/"+url.PathEscape(branch), u.auth(), nil, http.StatusOK, nil) == nil
	})
	head := branch
	if owner != admin.name {
		head = owner + ":" + branch
	}
	var pr struct{ Number int }
	forge.api(t, "POST", "/repos/"+admin.name+"/pulls/pulls", u.token,
		map[string]any{"head": head, "base": "records", "title": title}, http.StatusCreated, &pr)
	require.Positive(t, pr.Number)
	return pr.Number
}

// fetchWhenThere fetches refspec from origin in dir, waiting a little for
// the forge to write a pull request's head ref.
func fetchWhenThere(t testing.TB, dir, refspec string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := run(t, dir, "", nil, "git", "fetch", "-q", "origin", refspec)
		if r.code == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("git fetch origin %s:\n%s", refspec, r)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// waitFor polls ready for up to 30 seconds: what Gitea does after it answers.
func waitFor(t testing.TB, what string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		require.False(t, time.Now().After(deadline), "Gitea shows no %s after 30 s", what)
		time.Sleep(200 * time.Millisecond)
	}
}
