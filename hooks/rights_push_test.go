package hooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestRightsHoldForEveryRecordAndLink pins breaks 3 and 4: the gate and the
// server ask the policy about every right kernel.RequiredRights names. carol
// may only read in category security, and supersede is a maintainer's op.
func TestRightsHoldForEveryRecordAndLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	mustRec(t, w.origin, "policy", "set", fixturePath(t, "policy-carol-security-readonly.yaml"),
		"--rationale", "security is read-only for carol", "--agent", userEmail)
	sec := create(t, w.origin, "--id", "sec-1", "--type", "concept", "--title", "Key storage", "--category", "security",
		"--agent", "alice", "--body", "Keys live in the HSM.")
	r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)

	// Break 3, category escape: a record moved out of security.
	moveOut := func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		eng, body := "eng", "Keys live anywhere."
		return kernel.Update(v, sec, kernel.UpdateFields{Category: &eng, Body: &body}, kernel.Evidence{Agent: "carol"}, env)
	}
	t.Run("the CLI refuses to move a record out of a category carol may not change", func(t *testing.T) {
		dir := w.carolClone(t)
		r := rec(t, dir, "--json", "update", sec, "--category", "eng", "--body", "Keys live anywhere.", "--agent", "carol")
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stdout+r.stderr, "PERMISSION_DENIED")
		assert.Contains(t, r.stdout+r.stderr, "may not update concept in security")
	})
	t.Run("the server refuses the move written without the gate", func(t *testing.T) {
		dir := w.carolClone(t)
		mutateAs(t, dir, moveOut)
		requireRejected(t, push(t, dir, "records"), "policy", "carol@example.com may not update concept sec-1 in security")
	})

	// Break 4, supersede without the right.
	old := create(t, w.origin, "--type", "snapshot", "--title", "Auth decisions, March", "--category", "eng.auth", "--agent", "alice", "--body", "March.")
	r = run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)
	t.Run("the CLI refuses a supersedes link from a contributor", func(t *testing.T) {
		dir := w.carolClone(t)
		r := rec(t, dir, "--json", "link", w.concept, "--to", old, "--kind", "supersedes", "--agent", "carol")
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stdout+r.stderr, "may not supersede")
		r = rec(t, dir, "--json", "create", "--type", "snapshot", "--title", "Auth decisions, April", "--category", "eng.auth",
			"--agent", "carol", "--body", "April.", "--link", "supersedes:"+old)
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stdout+r.stderr, "may not supersede")
	})
	t.Run("the server refuses a supersedes link written without the gate", func(t *testing.T) {
		dir := w.carolClone(t)
		mutateAs(t, dir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.LinkRecords(v, w.concept, []kernel.Link{{TargetID: old, Kind: kernel.LinkSupersedes}}, kernel.Evidence{Agent: "carol"}, env)
		})
		requireRejected(t, push(t, dir, "records"), "policy", "carol@example.com may not supersede snapshot "+old+" in eng.auth")
	})
}
