package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// syWorld is a bare remote and the clones that sync through it. Every clone
// signs with the first one's key (gitstore does not judge signers; verify
// does, in the CLI tests) and reads one clock.
type syWorld struct {
	remote string
	clock  *testClock
	first  *Store
}

// newSyncWorld makes the bare remote and the first clone: a repository with
// a code branch pushed to the remote and a records store that is not yet.
func newSyncWorld(t testing.TB) *syWorld {
	t.Helper()
	w := &syWorld{remote: filepath.Join(t.TempDir(), "remote.git"), clock: newTestClock()}
	git(t, t.TempDir(), "init", "-q", "--bare", "-b", "main", w.remote)
	w.first = newTestStore(t, Options{Now: w.clock.Now})
	dir := gitDir(w.first)
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "code")
	git(t, dir, "remote", "add", "origin", w.remote)
	git(t, dir, "push", "-q", "origin", "main")
	return w
}

// clone is another clone of the remote with a store on it.
func (w *syWorld) clone(t testing.TB) *Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	git(t, t.TempDir(), "clone", "-q", w.remote, dir)
	signer, err := w.first.Signer()
	require.NoError(t, err)
	s, err := Open(dir, Options{Now: w.clock.Now, Signer: signer})
	require.NoError(t, err)
	return s
}

func syncStore(t testing.TB, s *Store, o SyncOptions) *SyncResult {
	t.Helper()
	if o.Remote == "" {
		o.Remote = "origin"
	}
	if !o.Pull && !o.Push {
		o.Pull, o.Push = true, true
	}
	if o.Agent == "" {
		o.Agent = testAgent
	}
	res, err := s.Sync(o)
	require.NoError(t, err)
	return res
}

// remoteTip is the remote's records branch.
func (w *syWorld) remoteTip(t testing.TB) plumbing.Hash {
	t.Helper()
	out, err := gitInput(w.remote, nil, nil, "rev-parse", "--verify", "-q", DefaultRef)
	if err != nil {
		return plumbing.ZeroHash
	}
	return plumbing.NewHash(out)
}

// otherRefs lists every ref of a repository but the records branch and its
// remote-tracking ref: what sync must never touch.
func otherRefs(t testing.TB, dir string) string {
	t.Helper()
	var keep []string
	for _, line := range strings.Split(git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"), "\n") {
		if !strings.HasPrefix(line, DefaultRef+" ") && !strings.HasPrefix(line, "refs/remotes/origin/records ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

func TestSyncPushesPullsAndReplays(t *testing.T) {
	t.Parallel()
	w := newSyncWorld(t)
	a := w.first
	mgCreate(t, a, "from-a", "From A", "a\n")

	res := syncStore(t, a, SyncOptions{})
	assert.True(t, res.Pushed)
	assert.True(t, res.Fetched.IsZero(), "the remote had no records branch")
	assert.Equal(t, mgTip(t, a), w.remoteTip(t))
	assert.Equal(t, mgTip(t, a).String(), git(t, gitDir(a), "rev-parse", "refs/remotes/origin/records"))

	b := w.clone(t)
	bOther := otherRefs(t, gitDir(b))
	res = syncStore(t, b, SyncOptions{})
	require.NotNil(t, res.Merge)
	assert.Equal(t, "fast-forward", res.Merge.Kind, "an empty clone takes the remote's branch")
	assert.Equal(t, 2, res.Incoming, "init and create were checked")
	assert.False(t, res.Pushed, "nothing of its own to push")
	assert.Equal(t, mgTip(t, a), mgTip(t, b))

	// Both write; A pushes first, B replays its commits on A's and pushes,
	// A fast-forwards.
	mgCreate(t, a, "a-two", "A two", "a2\n")
	mgUpdate(t, a, "from-a", kernel.UpdateFields{Title: ptr("A renamed it")})
	mgCreate(t, b, "b-one", "B one", "b\n")
	mgUpdate(t, b, "from-a", kernel.UpdateFields{Category: ptr("engineering.b")})
	aTip := mgTip(t, a)
	aOther, remoteOther := otherRefs(t, gitDir(a)), otherRefs(t, w.remote)

	require.True(t, syncStore(t, a, SyncOptions{}).Pushed)
	res = syncStore(t, b, SyncOptions{})
	assert.Nil(t, res.Merge, "nothing is merged")
	require.NotNil(t, res.Replay)
	assert.Len(t, res.Replay.Replayed, 2, "both of B's commits were replayed")
	assert.Empty(t, res.Kept)
	assert.True(t, res.Pushed)
	assert.Equal(t, 2, res.Incoming)
	res = syncStore(t, a, SyncOptions{})
	assert.Equal(t, "fast-forward", res.Merge.Kind)
	assert.False(t, res.Pushed)

	tip := mgTip(t, a)
	assert.Equal(t, tip, mgTip(t, b))
	assert.Equal(t, tip, w.remoteTip(t))
	assert.True(t, a.IsAncestor(aTip, tip), "A's published commits stay as they are")
	requireLinear(t, w.remote, tip)
	r := get(t, a, "from-a")
	assert.Equal(t, "A renamed it", r.Title)
	assert.Equal(t, "engineering.b", r.Category)
	for _, id := range []string{"a-two", "b-one"} {
		get(t, a, id)
		get(t, b, id)
	}
	requireJudgedClean(t, a, aTip, tip)
	requireFsckClean(t, gitDir(a))
	requireFsckClean(t, w.remote)

	assert.Equal(t, aOther, otherRefs(t, gitDir(a)), "sync touches no other ref")
	assert.Equal(t, bOther, otherRefs(t, gitDir(b)))
	assert.Equal(t, remoteOther, otherRefs(t, w.remote))
}

// requireLinear holds the history of tip in dir to have no merge commit.
func requireLinear(t testing.TB, dir string, tip plumbing.Hash) {
	t.Helper()
	assert.Empty(t, git(t, dir, "rev-list", "--merges", tip.String()), "the records branch has no merge commit")
}

// requireJudgedClean judges every commit of from..to as the write loop
// judges a commit it lands (s.JudgeLanding, the judgment verify holds
// commits to), with its signature checked by git against the exported
// allowed signers, and requires no violation.
func requireJudgedClean(t testing.TB, s *Store, from, to plumbing.Hash) {
	t.Helper()
	commits, err := s.RevList(to.String(), "--not", from.String())
	require.NoError(t, err)
	require.NotEmpty(t, commits)
	for _, h := range commits {
		requireVerifiedByGit(t, s, h)
		j, err := s.JudgeLanding(h, kernel.SignatureFacts{Status: kernel.SignatureGood, Principal: testEmail}, time.Now().Add(time.Hour))
		require.NoError(t, err)
		assert.Empty(t, j.Violations, "commit %s", h)
	}
}

// A push that loses the race (the remote moved after our fetch) is never
// forced over the other push: sync fetches, merges and pushes again.
func TestSyncLostLeaseFetchesMergesAndRetries(t *testing.T) {
	t.Parallel()
	w := newSyncWorld(t)
	a := w.first
	mgCreate(t, a, "seed", "Seed", "s\n")
	syncStore(t, a, SyncOptions{})
	b := w.clone(t)
	syncStore(t, b, SyncOptions{})

	mgCreate(t, b, "from-b", "From B", "b\n")
	mgCreate(t, a, "from-a", "From A", "a\n")
	syncStore(t, a, SyncOptions{})
	var racer plumbing.Hash
	calls := 0
	res, err := b.Sync(SyncOptions{Remote: "origin", Pull: true, Push: true, Agent: testAgent,
		Check: func(commits []plumbing.Hash) error {
			calls++
			if calls == 1 {
				// Between B's fetch and B's push, A pushes.
				mgCreate(t, a, "racer", "Racer", "r\n")
				require.True(t, syncStore(t, a, SyncOptions{}).Pushed)
				racer = mgTip(t, a)
			}
			return nil
		}})
	require.NoError(t, err)
	assert.True(t, res.Pushed)
	assert.Equal(t, 2, res.Attempts, "the lost lease cost one more round")
	assert.Equal(t, 2, calls, "the racer was checked before it was merged")
	tip := w.remoteTip(t)
	assert.Equal(t, mgTip(t, b), tip)
	assert.True(t, b.IsAncestor(racer, tip), "the racing push was merged, not overwritten")
	get(t, b, "racer")
	get(t, b, "from-b")
}

func TestSyncGivesUpAfterItsAttempts(t *testing.T) {
	t.Parallel()
	w := newSyncWorld(t)
	a := w.first
	syncStore(t, a, SyncOptions{})
	b := w.clone(t)
	syncStore(t, b, SyncOptions{})
	mgCreate(t, b, "from-b", "From B", "b\n")

	n := 0
	var pushed []plumbing.Hash
	check := func([]plumbing.Hash) error {
		n++
		mgCreate(t, a, "racer-"+string(rune('a'+n)), "Racer", "r\n")
		require.True(t, syncStore(t, a, SyncOptions{}).Pushed)
		pushed = append(pushed, mgTip(t, a))
		return nil
	}
	// The first round sees nothing incoming and so calls no check: race it
	// by hand once, then every round after has incoming commits. A round
	// costs about what that race costs (a create and a sync), so the bound
	// leaves room for a few rounds however slow the machine (-race).
	start := time.Now()
	check(nil)
	bound := (3*time.Since(start) + 300*time.Millisecond).Round(time.Millisecond)
	res, err := b.Sync(SyncOptions{Remote: "origin", Pull: true, Push: true, Agent: testAgent, RetryFor: bound, Check: check})
	requireCode(t, err, kernel.CodeConflict)
	assert.Contains(t, err.Error(), "kept moving for "+bound.String())
	assert.Contains(t, err.Error(), "--retry-for", "the message names the flag that gives it longer")
	assert.Greater(t, res.Attempts, 1)
	assert.False(t, res.Pushed)
	assert.Equal(t, pushed[len(pushed)-1], w.remoteTip(t), "the other pushes all stand")
	for _, h := range pushed[:len(pushed)-1] {
		assert.True(t, b.IsAncestor(h, mgTip(t, b)), "B merged each push it fetched")
	}

	res = syncStore(t, b, SyncOptions{})
	assert.True(t, res.Pushed, "the next sync completes")
	assert.Equal(t, mgTip(t, b), w.remoteTip(t))
}

// A refused remote leaves the records branch where it was and pushes
// nothing.
func TestSyncRefusedIncomingMergesNothing(t *testing.T) {
	t.Parallel()
	w, _, b := divergedClones(t)
	before, remote := mgTip(t, b), w.remoteTip(t)

	refusal := kernel.Errorf(kernel.CodeVerifyFailed, "refused")
	var seen []plumbing.Hash
	res, err := b.Sync(SyncOptions{Remote: "origin", Pull: true, Push: true, Agent: testAgent,
		Check: func(commits []plumbing.Hash) error { seen = commits; return refusal }})
	require.ErrorIs(t, err, refusal)
	assert.Equal(t, []plumbing.Hash{remote}, seen, "the check sees exactly the commits new to us")
	assert.Equal(t, 1, res.Incoming)
	assert.Nil(t, res.Merge)
	assert.False(t, res.Pushed)
	assert.Equal(t, before, mgTip(t, b), "the local branch did not move")
	assert.Equal(t, remote, w.remoteTip(t), "nothing was pushed")
	v, err := b.View()
	require.NoError(t, err)
	r, err := v.Record("from-a")
	require.NoError(t, err)
	assert.Nil(t, r, "nothing of it is readable")
}

// Push alone publishes what is ours on the remote's tip (replayed), never
// over it; pull alone replays ours on it and publishes nothing.
func TestSyncPushAloneReplaysAndNeverOverwrites(t *testing.T) {
	t.Parallel()
	w, _, b := divergedClones(t)
	remote := w.remoteTip(t)
	res := syncStore(t, b, SyncOptions{Pull: true})
	require.NotNil(t, res.Replay)
	assert.False(t, res.Pushed, "pull alone pushes nothing")
	assert.Equal(t, remote, w.remoteTip(t))
	assert.True(t, b.IsAncestor(remote, mgTip(t, b)), "pull put ours on the remote's tip")

	w, _, b = divergedClones(t)
	remote = w.remoteTip(t)
	res = syncStore(t, b, SyncOptions{Push: true})
	assert.Nil(t, res.Merge)
	require.NotNil(t, res.Replay)
	assert.True(t, res.Pushed)
	assert.Equal(t, mgTip(t, b), w.remoteTip(t))
	assert.True(t, b.IsAncestor(remote, w.remoteTip(t)), "the remote's commit stands under ours")
	requireLinear(t, w.remote, w.remoteTip(t))
	get(t, b, "from-a")
	get(t, b, "from-b")
}

func TestSyncWithARemoteThatHasNoRecords(t *testing.T) {
	t.Parallel()
	w := newSyncWorld(t)
	res := syncStore(t, w.first, SyncOptions{Pull: true})
	assert.True(t, res.Fetched.IsZero())
	assert.Nil(t, res.Merge)
	assert.True(t, w.remoteTip(t).IsZero())

	_, err := w.first.Sync(SyncOptions{Remote: "no-such-remote", Pull: true, Push: true, Agent: testAgent})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no-such-remote")
}

// git's pre-push hook must see what sync pushes as the records branch, so
// the hook that verifies outgoing record commits judges it.
func TestSyncPushShowsTheRecordsRefToPrePush(t *testing.T) {
	t.Parallel()
	w := newSyncWorld(t)
	a := w.first
	seen := filepath.Join(t.TempDir(), "pre-push-input")
	hook := filepath.Join(a.repo.CommonDir, "hooks", "pre-push")
	require.NoError(t, os.MkdirAll(filepath.Dir(hook), 0o755))
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ncat >> '"+seen+"'\n"), 0o755))
	mgCreate(t, a, "from-a", "From A", "a\n")

	syncStore(t, a, SyncOptions{})
	data, err := os.ReadFile(seen)
	require.NoError(t, err)
	fields := strings.Fields(string(data))
	require.Len(t, fields, 4, "one ref pushed: %q", data)
	assert.Equal(t, []string{DefaultRef, mgTip(t, a).String(), DefaultRef, plumbing.ZeroHash.String()}, fields)

	// A hook that refuses stops the push, and sync says so.
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho 'no records today' >&2\nexit 1\n"), 0o755))
	mgCreate(t, a, "refused", "Refused", "r\n")
	_, err = a.Sync(SyncOptions{Remote: "origin", Pull: true, Push: true, Agent: testAgent})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no records today")
	assert.NotEqual(t, mgTip(t, a), w.remoteTip(t))
	var kerr *kernel.Error
	assert.True(t, errors.As(err, &kerr))
}

// divergedClones is a remote with two clones that diverged: A wrote
// "from-a" and pushed it, B wrote "from-b" and has not synced since.
func divergedClones(t *testing.T) (w *syWorld, a, b *Store) {
	t.Helper()
	w = newSyncWorld(t)
	a = w.first
	syncStore(t, a, SyncOptions{})
	b = w.clone(t)
	syncStore(t, b, SyncOptions{})
	mgCreate(t, a, "from-a", "From A", "a\n")
	syncStore(t, a, SyncOptions{})
	mgCreate(t, b, "from-b", "From B", "b\n")
	return w, a, b
}
