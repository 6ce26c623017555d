package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestVerifyPayloads: the server accepts a record whose raw payload is
// stored at payloads/<sha256> in the same commit, and refuses a hand-made
// push whose payload's name lies, one that deletes a payload, and one whose
// record references a payload the branch does not hold (rule payload).
func TestVerifyPayloads(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	raw := []byte(`{"number":42}`)
	ref := kernel.PayloadRef(raw)
	path := kernel.PayloadPath(ref)
	mutateAs(t, w.origin, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, err := kernel.Create(v, kernel.CreateInput{Type: "snapshot", Title: "PR 42", Category: "eng.auth", Body: "b",
			Provenance: kernel.Provenance{Agent: "alice"}, Source: &kernel.Source{Extension: "github", ExternalID: "pull/42", Payload: ref}}, env)
		if err != nil {
			return nil, err
		}
		_, err = kernel.AttachPayload(m, raw)
		return m, err
	})
	r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "a record with its payload is accepted:\n%s", r)

	t.Run("a payload whose name lies", func(t *testing.T) {
		dir := w.clone(t)
		lie := filepath.Join(dir, kernel.PayloadPath(kernel.PayloadRef([]byte("the real content"))))
		require.NoError(t, os.WriteFile(lie, []byte("other content"), 0o644))
		commit(t, dir, w.key, handMsg("update(snapshot): PR 42", "Record-Op: update", "Record-Agent: alice", "Record-Format: 1"))
		requireRejected(t, push(t, dir, "records"), "payload", "holds content whose sha256 is")
	})
	t.Run("a deleted payload", func(t *testing.T) {
		dir := w.clone(t)
		require.NoError(t, os.Remove(filepath.Join(dir, path)))
		commit(t, dir, w.key, handMsg("update(snapshot): PR 42", "Record-Op: update", "Record-Agent: alice", "Record-Format: 1"))
		requireRejected(t, push(t, dir, "records"), "no-delete", "payload "+path+" is deleted")
	})
	t.Run("a record referencing a missing payload", func(t *testing.T) {
		dir := w.clone(t)
		// The create commit again, without its payload, on a review branch.
		git(t, dir, "checkout", "-q", "-b", "review", "refs/heads/records^")
		git(t, dir, "cherry-pick", "-n", "refs/heads/records")
		git(t, dir, "rm", "-q", "--cached", path)
		require.NoError(t, os.Remove(filepath.Join(dir, path)))
		msg := git(t, dir, "log", "-1", "--format=%B", "refs/heads/records", "--")
		commit(t, dir, w.key, msg)
		requireRejected(t, push(t, dir, "review"), "payload", "names no payload on the branch")
	})
}
