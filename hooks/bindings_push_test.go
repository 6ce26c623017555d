package hooks_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestBindingsHoldOnPush: an incompatible bindings file is refused by the
// CLI (the bind op) and, written without the gate, by the server; so is a
// commit whose binding manifest says something its parent does not.
func TestBindingsHoldOnPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, c := range []struct{ id, accepts string }{{"routine-review", "design,tradeoffs"}, {"routine-lazy", "design"}} {
		mustRec(t, w.origin, "create", "--type", "kit.routine", "--id", c.id, "--title", c.id, "--category", "kit", "--agent", "m",
			"--body", "an implementation", "--accepts", c.accepts, "--produces", "review.md")
	}
	file := func(bound string) []byte {
		return []byte("version: 1\nslots:\n  design_review:\n    default: routine-review\n    accepted_kinds: [routine]\n" +
			"    required_inputs: [design, tradeoffs]\n    required_outputs: [review.md]\nbindings:\n  design_review: " + bound + "\n")
	}
	path := filepath.Join(t.TempDir(), "bindings.yaml")
	require.NoError(t, os.WriteFile(path, file("routine-lazy"), 0o644))
	r := rec(t, w.origin, "--json", "bindings", "set", path, "--rationale", "try", "--agent", "m")
	assert.Equal(t, 1, r.code, "%s", r)
	assert.Contains(t, r.stdout, "does not accept the required inputs tradeoffs")
	require.NoError(t, os.WriteFile(path, file("routine-review"), 0o644))
	mustRec(t, w.origin, "bindings", "set", path, "--rationale", "our review", "--agent", "m")
	r = run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)

	t.Run("carol may not change the bindings", func(t *testing.T) {
		dir := w.carolClone(t)
		r := rec(t, dir, "--json", "bindings", "set", path, "--rationale", "mine", "--agent", "carol")
		assert.Equal(t, 4, r.code, "%s", r)
		assert.Contains(t, r.stdout, "PERMISSION_DENIED")
	})
	t.Run("the server refuses an incompatible bindings file written without the gate", func(t *testing.T) {
		dir := w.cliClone(t)
		mutateAs(t, dir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return &kernel.Mutation{Op: kernel.OpBind, Type: "store", Title: "bind", Files: map[string][]byte{kernel.BindingsPath: file("routine-lazy")},
				Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: "bind"}, {Key: kernel.TrailerAgent, Value: "m"},
					{Key: kernel.TrailerFormat, Value: kernel.FormatVersion}, {Key: kernel.TrailerRationale, Value: "forged"}}}, nil
		})
		requireRejected(t, push(t, dir, "records"), kernel.RuleBindings, "binding design_review → routine-lazy is incompatible")
	})
	t.Run("the server refuses a manifest rewritten by hand", func(t *testing.T) {
		dir := w.cliClone(t)
		mustRec(t, dir, "exec", "start", "--kind", "run", "--title", "R", "--session", "s", "--agent", "a")
		git(t, dir, "checkout", "-q", "records")
		msg := git(t, dir, "log", "-1", "--format=%B")
		require.Contains(t, msg, "Evidence-Binding: design_review routine-review source=project kind=routine hash=sha256:")
		forged := regexp.MustCompile(`hash=sha256:[0-9a-f]+`).ReplaceAllString(msg, "hash=sha256:00")
		r := run(t, dir, forged, nil, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+w.key, "commit", "-q", "--amend", "--no-verify", "-S", "-F", "-")
		require.Equal(t, 0, r.code, "%s", r)
		requireRejected(t, push(t, dir, "records"), kernel.RuleBindings, "manifest says routine-review is routine sha256:00, the parent holds routine")
	})
}
