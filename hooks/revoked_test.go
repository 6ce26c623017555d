package hooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRevokedPermissionCannotBeMergedIn: each commit is judged by its own
// parent's policy, so a principal demoted on the branch could branch from
// before the demotion, do what the old policy allowed, and merge it in with
// a merge a contributor may sign. Once the branch's policy or signers
// changed since the merge base, what a merge brings in must be allowed now.
func TestRevokedPermissionCannotBeMergedIn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.origin
	asCarol := []string{"-c", "records.signingKey=" + carolKey, "-c", "user.email=" + carol, "-c", "user.name=Carol", "records"}

	mustRec(t, dir, "policy", "set", fixturePath(t, "policy-carol-maintainer.yaml"), "--rationale", "carol maintains for a while", "--agent", userEmail)
	git(t, dir, "branch", "carol-side", "records")
	mustRec(t, dir, "policy", "set", fixturePath(t, "policy.yaml"), "--rationale", "carol contributes again", "--agent", userEmail)

	// On her branch from before the demotion, the old policy lets carol retire.
	r := run(t, dir, "", nil, "git", append(asCarol, "--ref", "refs/heads/carol-side", "retire", w.concept, "--rationale", "I say so", "--agent", "carol")...)
	require.Equal(t, 0, r.code, "%s", r)
	// A contributor may merge, but not a merge that brings the retire in:
	// git records merge judges it as verify will, before writing it.
	r = run(t, dir, "", nil, "git", append(asCarol, "merge", "carol-side", "--agent", "carol")...)
	require.Equal(t, 4, r.code, "%s", r)
	assert.Contains(t, r.stderr, carol+" may no longer retire concept "+w.concept+" in eng.auth")
	// A client that skips the judgment writes it; verify refuses it.
	for _, kv := range [][2]string{{"records.signingKey", carolKey}, {"user.email", carol}, {"user.name", "Carol"}} {
		git(t, dir, "config", kv[0], kv[1])
	}
	mergeUngated(t, dir, "refs/heads/records", "carol-side")

	rep := verifyJSON(t, dir, 1)
	var got []string
	for _, v := range rep.Violations {
		got = append(got, v.Rule+": "+v.Message)
	}
	assert.Contains(t, strings.Join(got, "\n"), "policy: merged-in commit ")
	assert.Contains(t, strings.Join(got, "\n"), carol+" may no longer retire concept "+w.concept+" in eng.auth")
}
