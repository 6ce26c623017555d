package gitstore

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestCommitNeverOlderThanItsParent: a writer whose clock is behind the one
// that wrote the tip dates its commit at the tip's date, not before it, so
// what it writes passes kernel.CheckCommitTime (verify's rule `time`).
func TestCommitNeverOlderThanItsParent(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	create(t, s, kernel.CreateInput{Title: "ahead"})
	tip, err := s.Tip()
	require.NoError(t, err)
	parent, err := s.Commit(tip)
	require.NoError(t, err)

	behind := reopen(t, s)
	behind.opts.Now = func() time.Time { return parent.Committer.When.Add(-time.Hour) }
	w := mutate(t, behind, createOp(kernel.CreateInput{Title: "behind"}))
	c, err := behind.Commit(w.Commit)
	require.NoError(t, err)
	assert.Equal(t, parent.Committer.When.Unix(), c.Committer.When.Unix(), "dated at the parent, not an hour before it")
	assert.NoError(t, kernel.CheckCommitTime(c.Committer.When, []time.Time{parent.Committer.When}, time.Now()))
	assert.Equal(t, strconv.FormatInt(parent.Committer.When.Unix(), 10), git(t, gitDir(s), "log", "-1", "--format=%ct", w.Commit.String()),
		"git reads the same date")
}
