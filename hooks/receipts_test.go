package hooks_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
)

// TestUpdateTakesPreReceiveReceipts: pre-receive leaves a receipt for each
// ref update it accepted, and the update hook takes it instead of judging
// the push again; a refused push leaves none, and without pre-receive the
// update hook judges alone.
func TestUpdateTakesPreReceiveReceipts(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	receipts := filepath.Join(w.server, "records", "receipts")
	left := func() int {
		entries, _ := os.ReadDir(receipts)
		return len(entries)
	}
	dir := w.clone(t)
	accepted := func() {
		t.Helper()
		w.editBody(t, dir)
		commit(t, dir, w.key, w.updateMsg())
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
	}
	// With the update hook away, the receipt pre-receive leaves stays.
	update := filepath.Join(w.server, "hooks", "update")
	require.NoError(t, os.Rename(update, update+".away"))
	accepted()
	require.Equal(t, 1, left(), "pre-receive leaves a receipt for the update it accepted")
	require.NoError(t, os.Rename(update+".away", update))
	accepted()
	assert.Equal(t, 1, left(), "the update hook took the receipt pre-receive left")

	w.editBody(t, dir)
	commit(t, dir, "", w.updateMsg())
	requireRejected(t, push(t, dir, "records"), hooks.RuleSignature, "commit is not signed")
	assert.Equal(t, 1, left(), "a refused push leaves no receipt")

	// The update hook alone (a forge that runs no pre-receive of ours)
	// still judges: the unsigned commit is refused.
	require.NoError(t, os.Remove(filepath.Join(w.server, "hooks", "pre-receive")))
	tip := w.serverTip(t)
	r := push(t, dir, "records")
	require.NotEqual(t, 0, r.code, "update judges without pre-receive:\n%s", r)
	assert.Equal(t, tip, w.serverTip(t))
}

// TestReceiptsAreTakenOnceAndGoStale: a receipt names one ref update, is
// taken once, and is not taken once it is older than a push takes.
func TestReceiptsAreTakenOnceAndGoStale(t *testing.T) {
	s, err := gitstore.Open(initStore(t), gitstore.Options{})
	require.NoError(t, err)
	defer s.Close()
	u := hooks.RefUpdate{Ref: "refs/heads/records", Old: plumbing.NewHash("1111111111111111111111111111111111111111"), New: plumbing.NewHash("2222222222222222222222222222222222222222")}
	other := u
	other.New = plumbing.NewHash("3333333333333333333333333333333333333333")
	now := time.Now()
	hooks.LeaveReceipts(s, []hooks.RefUpdate{u}, now)
	assert.False(t, hooks.TakeReceipt(s, other, now), "a receipt names one update")
	assert.True(t, hooks.TakeReceipt(s, u, now))
	assert.False(t, hooks.TakeReceipt(s, u, now), "taken once")

	hooks.LeaveReceipts(s, []hooks.RefUpdate{u}, now)
	assert.False(t, hooks.TakeReceipt(s, u, now.Add(10*time.Minute)), "a stale receipt is not taken")
}
