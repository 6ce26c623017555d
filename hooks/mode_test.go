package hooks_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/hooks"
)

// TestStoreFilesArePlainFiles: a record turned into a symlink or an
// executable keeps its blob, so only its mode says it changed; verify must
// still see it, and a store file may only ever be a plain file.
func TestStoreFilesArePlainFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	base := revParse(t, dir, "HEAD")
	update := handMsg("update(concept): x", "Record-Op: update", "Record-Id: "+w.concept, "Record-Agent: a", "Record-Format: 1", "Evidence-Fields: body")

	t.Run("executable record, same content", func(t *testing.T) {
		git(t, dir, "reset", "-q", "--hard", base)
		file := recordFile(t, dir, w.concept)
		require.NoError(t, os.Chmod(file, 0o755))
		commit(t, dir, w.key, update)
		assert.Contains(t, strings.Join(violationsOf(t, dir), "\n"), hooks.RuleLayout+": "+recordFileRel(t, dir, w.concept)+" has mode 0100755")
	})

	t.Run("record replaced by a symlink", func(t *testing.T) {
		git(t, dir, "reset", "-q", "--hard", base)
		file := recordFile(t, dir, w.concept)
		require.NoError(t, os.Remove(file))
		require.NoError(t, os.Symlink("/etc/passwd", file))
		commit(t, dir, w.key, update)
		assert.Contains(t, strings.Join(violationsOf(t, dir), "\n"), "has mode 0120000")
	})
}
