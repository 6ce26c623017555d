package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// An import needs the create right of every record it creates: carol may
// only read in category security, so neither the CLI nor the server lets
// an import create a record there, while her import elsewhere is signed,
// verified and accepted by the server's hooks.
func TestImportCannotCreateWhatACreateCouldNot(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	mustRec(t, w.origin, "policy", "set", fixturePath(t, "policy-carol-security-readonly.yaml"),
		"--rationale", "security is read-only for carol", "--agent", userEmail)
	r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)

	notes := func(category string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Allowed note.md"), []byte("---\ncategory: eng.notes\n---\nFine.\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Key storage.md"), []byte("---\ncategory: "+category+"\n---\nKeys live in the HSM, see [[Allowed note]].\n"), 0o644))
		return dir
	}

	t.Run("the CLI refuses an import with a record carol may not create", func(t *testing.T) {
		dir := w.carolClone(t)
		before := revParse(t, dir, "refs/heads/records")
		r := rec(t, dir, "--json", "import", notes("security"), "--agent", "carol")
		require.Equal(t, 4, r.code, "%s", r)
		assert.Contains(t, r.stdout, "PERMISSION_DENIED")
		assert.Contains(t, r.stdout, "may not create concept in security")
		assert.Equal(t, before, revParse(t, dir, "refs/heads/records"), "nothing written")
	})
	t.Run("the server refuses the import written without the gate", func(t *testing.T) {
		dir := w.carolClone(t)
		mutateAs(t, dir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			m, _, err := kernel.Import(v, kernel.ImportInput{Source: "vault notes", Digest: "sha256:00", Agent: "carol", Items: []kernel.ImportItem{
				{Origin: "a.md", Record: &kernel.Record{ID: "imp-eng", Type: "concept", Title: "Allowed", Body: "b", Category: "eng.notes"}},
				{Origin: "b.md", Record: &kernel.Record{ID: "imp-sec", Type: "concept", Title: "Keys", Body: "b", Category: "security"}},
			}}, env)
			return m, err
		})
		requireRejected(t, push(t, dir, "records"), "policy", "carol@example.com may not create concept imp-sec in security")
	})
	t.Run("an import carol may make is accepted by verify and the server", func(t *testing.T) {
		dir := w.carolClone(t)
		mustRec(t, dir, "import", notes("eng.keys"), "--agent", "carol")
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Equal(t, revParse(t, dir, "refs/heads/records"), w.serverTip(t))
		assert.Equal(t, "import", lastOp(t, w.server))
	})
}

func lastOp(t testing.TB, dir string) string {
	t.Helper()
	return strings.TrimSpace(git(t, dir, "log", "-1", "--format=%(trailers:key=Record-Op,valueonly)", "refs/heads/records"))
}
