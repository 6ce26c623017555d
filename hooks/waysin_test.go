package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNoUnverifiedWayIn: the server ignores tags and branches that carry no
// records, so a forged commit can be stored through them first. When a push
// then makes it reachable from a records ref, it is judged all the same:
// the server excludes only what a verified records ref already holds.
func TestNoUnverifiedWayIn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for i, way := range []string{"tag", "branch without records"} {
		review := []string{"refs/heads/review-7", "refs/heads/review-8"}[i]
		t.Run(way, func(t *testing.T) {
			dir := w.clone(t)
			w.editBody(t, dir)
			forged := commit(t, dir, "", w.updateMsg())
			if way == "tag" {
				r := push(t, dir, forged+":refs/tags/innocent")
				assert.Equal(t, 0, r.code, "tags are not records refs:\n%s", r)
			} else {
				git(t, dir, "checkout", "-q", "-b", "carrier")
				assert.NoError(t, os.Remove(filepath.Join(dir, ".records", "format")))
				commit(t, dir, "", "not a records branch\n")
				r := push(t, dir, "carrier")
				assert.Equal(t, 0, r.code, "a branch without .records/format is not judged:\n%s", r)
			}
			for _, ref := range []string{review, "refs/heads/records"} {
				before := revParse(t, w.server, ref)
				requireRejected(t, push(t, dir, forged+":"+ref), "signature", forged[:12]+": commit is not signed")
				assert.Equal(t, before, revParse(t, w.server, ref), "%s is left alone", ref)
			}
		})
	}
}
