package hooks_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// commitAt is commit with a committer (and author) date the signer chose.
func commitAt(t testing.TB, dir, key, msg string, when time.Time) string {
	t.Helper()
	git(t, dir, "add", "-A")
	date := "GIT_COMMITTER_DATE=" + when.UTC().Format(time.RFC3339)
	r := run(t, dir, msg, []string{date, "GIT_AUTHOR_DATE=" + when.UTC().Format(time.RFC3339)}, "git",
		"-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "commit", "-q", "--no-verify", "-S", "-F", "-")
	require.Equal(t, 0, r.code, "git commit:\n%s", r)
	return revParse(t, dir, "HEAD")
}

// limitSigner rewrites the allowed_signers entry of principal with options
// (valid-after="…", valid-before="…"), as a maintainer's policy commit.
func limitSigner(t testing.TB, dir, principal, options string) {
	t.Helper()
	cur := git(t, dir, "show", "refs/heads/records:"+gitstore.AllowedSignersPath)
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(cur, "\n"), "\n") {
		if strings.HasPrefix(l, principal+" ") {
			// Every line signers add writes has options already.
			l = principal + " " + options + "," + strings.TrimPrefix(l, principal+" ")
		}
		lines = append(lines, l)
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	mutateAs(t, dir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.ChangePolicy(map[string][]byte{gitstore.AllowedSignersPath: data}, kernel.Evidence{Agent: userEmail, Rationale: "limit " + principal})
	})
}

// TestCommitTime: a signer chooses its commit's date, and allowed_signers'
// valid-after/valid-before were checked at that date only. A record commit
// may not be dated before its parents nor after the judge's clock plus
// kernel.MaxClockSkew, so a key cannot sign back into a window that closed.
func TestCommitTime(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	before := w.serverTip(t)
	parentDate := func(dir string) time.Time {
		t.Helper()
		sec, err := strconv.ParseInt(strings.TrimSpace(git(t, dir, "log", "-1", "--format=%ct", "HEAD")), 10, 64)
		require.NoError(t, err)
		return time.Unix(sec, 0)
	}
	rejected := func(t *testing.T, dir, rule, says string) {
		t.Helper()
		requireRejected(t, push(t, dir, "records"), rule, says)
		assert.Equal(t, before, w.serverTip(t), "a refused push leaves the server's branch alone")
	}

	t.Run("dated before its parent", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		commitAt(t, dir, w.key, w.updateMsg(), parentDate(dir).Add(-time.Hour))
		rejected(t, dir, hooks.RuleTime, "is dated before its parent")
		rep := verifyJSON(t, dir, 1, "records~1..records")
		require.NotEmpty(t, rep.Violations)
		assert.Equal(t, hooks.RuleTime, rep.Violations[0].Rule, "verify of history judges the date too: %+v", rep.Violations)
	})

	t.Run("dated in 2099", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		commitAt(t, dir, w.key, w.updateMsg(), time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))
		rejected(t, dir, hooks.RuleTime, "is dated 2099-01-01T00:00:00Z, after the judge's clock")
	})

	t.Run("a key whose window closed, backdated into it", func(t *testing.T) {
		limitSigner(t, w.origin, carol, `valid-before="20200101Z"`)
		r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
		require.Equal(t, 0, r.code, "%s", r)
		before = w.serverTip(t)

		dir := w.clone(t)
		w.editBody(t, dir)
		commitAt(t, dir, carolKey, w.updateMsg(), time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC))
		requireRejected(t, push(t, dir, "records"), hooks.RuleTime, "is dated before its parent")
		assert.Equal(t, before, w.serverTip(t))
	})

	t.Run("dated now and in the window is accepted", func(t *testing.T) {
		dir := w.clone(t)
		w.editBody(t, dir)
		head := commitAt(t, dir, w.key, w.updateMsg(), time.Now().Add(time.Minute))
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "a minute of clock skew is allowed:\n%s", r)
		assert.Equal(t, head, w.serverTip(t))
	})
}

// TestKeyValidAtReceipt: the server judges a push at the time it receives
// it, so a key whose valid-before has passed cannot sign new commits even
// when their date is inside the window; verify of history judges each
// commit at its date.
func TestKeyValidAtReceipt(t *testing.T) {
	t.Parallel()
	dir := initStore(t)
	mustRec(t, dir, "signers", "add", carol, carolKey+".pub", "--rationale", "carol reviews", "--agent", userEmail)
	closes := time.Now().Add(time.Hour).UTC()
	limitSigner(t, dir, carol, `valid-before="`+closes.Format("20060102150405")+`Z"`)
	git(t, dir, "config", "records.signingKey", carolKey)
	git(t, dir, "config", "user.email", carol)
	create(t, dir, "--type", "concept", "--title", "By carol", "--category", "eng", "--agent", "carol", "--body", "b")

	s, err := gitstore.Open(dir, gitstore.Options{})
	require.NoError(t, err)
	defer s.Close()
	tip, err := s.Tip()
	require.NoError(t, err)
	one := []plumbing.Hash{tip}

	history, err := hooks.Verify(s, one, hooks.Options{Now: closes.Add(time.Hour)})
	require.NoError(t, err)
	assert.True(t, history.OK, "in history the commit is judged at its date: %+v", history.Violations)

	received, err := hooks.Verify(s, one, hooks.Options{Now: closes.Add(time.Hour), Receipt: true})
	require.NoError(t, err)
	require.False(t, received.OK, "received after the window closed")
	assert.Equal(t, hooks.RuleSignature, received.Violations[0].Rule)
	assert.Contains(t, received.Violations[0].Message, "not valid at")

	inTime, err := hooks.Verify(s, one, hooks.Options{Now: closes.Add(-time.Minute), Receipt: true})
	require.NoError(t, err)
	assert.True(t, inTime.OK, "received while the window is open: %+v", inTime.Violations)
}
