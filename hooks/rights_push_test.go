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

// TestRelationRecordNeedsTheRightOfItsLifecycleMeaning: a relation record
// whose relation is supersedes makes its target superseded (it drops out of
// live lists) as a supersedes link does, so writing one needs the supersede
// right, at the CLI's gate, on the server and in verify. carol contributes;
// supersede is a maintainer's op.
func TestRelationRecordNeedsTheRightOfItsLifecycleMeaning(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sec := create(t, w.origin, "--id", "sec-1", "--type", "concept", "--title", "Key storage", "--category", "security",
		"--agent", "alice", "--body", "Keys live in the HSM.")
	require.Equal(t, 0, run(t, w.origin, "", nil, "git", "push", w.server, "records").code)

	t.Run("the CLI refuses the relation from a contributor", func(t *testing.T) {
		dir := w.carolClone(t)
		mine := create(t, dir, "--type", "concept", "--title", "Keys anywhere", "--category", "eng", "--agent", "carol", "--body", "Anywhere.")
		r := rec(t, dir, "--json", "create", "--type", "relation", "--title", "mine supersedes sec-1", "--category", "eng",
			"--agent", "carol", "--body", "Replaced.", "--from", mine, "--to", sec, "--relation", "supersedes")
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stdout+r.stderr, "PERMISSION_DENIED")
		assert.Contains(t, r.stdout+r.stderr, "may not supersede")
		live := mustJSON[[]obj](t, dir, "list", "--type", "concept", "--category", "security")
		require.Len(t, live, 1, "sec-1 stays live")
	})
	t.Run("the server and verify refuse the relation written without the gate", func(t *testing.T) {
		dir := w.carolClone(t)
		mutateAs(t, dir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Create(v, kernel.CreateInput{Type: "relation", Title: "concept supersedes sec-1", Body: "Replaced.", Category: "eng",
				From: w.concept, To: sec, Relation: "supersedes", Provenance: kernel.Provenance{Agent: "carol"}}, env)
		})
		requireRejected(t, push(t, dir, "records"), "policy", "carol@example.com may not supersede concept sec-1 in security")
		rep := verifyJSON(t, dir, 1, "records~1..records")
		var got []string
		for _, v := range rep.Violations {
			got = append(got, v.Rule+": "+v.Message)
		}
		assert.Contains(t, got, "policy: carol@example.com may not supersede concept sec-1 in security: profile contributor does not allow supersede (rule: principal carol@example.com → contributor)")
	})
}
