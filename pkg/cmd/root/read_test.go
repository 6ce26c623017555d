package root

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/pkg/cmdutil"
)

// TestFreshCloneSaysToPull: a clone whose remote has a records branch does
// not look like an empty store: reads name git records pull, which fetches,
// verifies and creates the branch; a repository with none names init.
func TestFreshCloneSaysToPull(t *testing.T) {
	origin := newRepo(t)
	id := createID(t, origin, "--type", "raw", "--title", "one", "--category", "x", "--agent", "a", "--body", "b")
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, origin, "clone", "-q", origin, clone)
	for _, args := range [][]string{{"list"}, {"show", id}, {"log"}, {"links", id}, {"verify"}} {
		e := requireError(t, rec(t, clone, append([]string{"--json"}, args...)...), "NOT_A_STORE", cmdutil.ExitSetup)
		assert.Contains(t, e["message"], "git records pull", "%v", args)
		assert.Contains(t, e["message"], "origin has one", "%v", args)
	}
	assert.Contains(t, mustRec(t, clone, "pull"), "fast-forward")
	assert.Contains(t, mustRec(t, clone, "list"), "one")
	assert.Contains(t, mustRec(t, clone, "verify"), "ok")

	empty := t.TempDir()
	git(t, empty, "init", "-q")
	assert.Empty(t, mustRec(t, empty, "list"), "without a records branch anywhere, the store is just empty")
	r := rec(t, empty, "verify")
	assert.Equal(t, cmdutil.ExitSetup, r.Code)
	assert.Contains(t, r.Stderr, "git records init starts one")
	assert.NotContains(t, r.Stderr, "ambiguous argument")
}
