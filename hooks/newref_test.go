package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerJudgesTheWholeNewRecordsBranch: when the server has no records
// branch yet, every commit of the pushed one is judged, including those
// another ref already holds. A branch whose tip lacks .records/format is no
// records branch and goes unjudged, so "not reachable from any ref" would
// let it carry an unsigned history in first.
func TestServerJudgesTheWholeNewRecordsBranch(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	server := filepath.Join(t.TempDir(), "fresh.git")
	git(t, "", "init", "-q", "--bare", server)
	mustRec(t, server, "hooks", "install", "--server")

	dir := w.clone(t)
	w.editBody(t, dir)
	unsigned := commit(t, dir, "", w.updateMsg())
	git(t, dir, "checkout", "-q", "-b", "carrier")
	require.NoError(t, os.Remove(filepath.Join(dir, ".records", "format")))
	commit(t, dir, "", "not a records branch\n")
	r := run(t, dir, "", nil, "git", "push", server, "carrier")
	require.Equal(t, 0, r.code, "a branch without .records/format is not judged:\n%s", r)

	r = run(t, dir, "", nil, "git", "push", server, unsigned+":refs/heads/records")
	requireRejected(t, r, "signature", unsigned[:12]+": commit is not signed")
	assert.Empty(t, revParse(t, server, "refs/heads/records"))
}
