package gitstore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// Two clones write at once: to records of their own, to different fields
// of one record, and to the same field of one record. Published one after
// the other, the branch is linear; every write is there, the field both
// changed keeps the later value and the other in a merge entry of the log
// (what `conflicts` lists), and every commit is judged clean.
func TestReplayOfDisjointAndSameRecordWritesStaysLinear(t *testing.T) {
	t.Parallel()
	w := newSyncWorld(t)
	a := w.first
	mgCreate(t, a, "shared", "Shared", "one\ntwo\nthree\n")
	syncStore(t, a, SyncOptions{})
	b := w.clone(t)
	syncStore(t, b, SyncOptions{})
	published := w.remoteTip(t)

	// B retitles first (the clock is shared and moves on every reading), so
	// A's title is the later mutation and wins; B's is the losing value.
	mgUpdate(t, b, "shared", kernel.UpdateFields{Title: ptr("Title from B")})
	mgCreate(t, b, "b-own", "B own", "b\n")
	mgUpdate(t, b, "shared", kernel.UpdateFields{Body: ptr("one\ntwo\nthree (B)\n")})
	mgCreate(t, a, "a-own", "A own", "a\n")
	mgUpdate(t, a, "shared", kernel.UpdateFields{Title: ptr("Title from A"), Category: ptr("eng.a")})
	require.True(t, syncStore(t, a, SyncOptions{}).Pushed)
	bLocal := mgTip(t, b)

	res := syncStore(t, b, SyncOptions{})
	require.True(t, res.Pushed)
	assert.Nil(t, res.Merge)
	require.NotNil(t, res.Replay)
	require.Len(t, res.Replay.Replayed, 3)
	require.Len(t, res.Conflicts, 1, "one field both changed")
	assert.Equal(t, "title", res.Conflicts[0].Field)
	syncStore(t, a, SyncOptions{})

	tip := w.remoteTip(t)
	assert.Equal(t, tip, mgTip(t, a))
	assert.Equal(t, tip, mgTip(t, b))
	requireLinear(t, w.remote, tip)
	assert.False(t, b.IsAncestor(bLocal, tip), "B's unpublished commits were replayed, not merged")
	assert.Equal(t, 7, strings.Count(git(t, w.remote, "rev-list", "records"), "\n")+1, "init, the seed, A's two and B's three")

	r := get(t, a, "shared")
	assert.Equal(t, "Title from A", r.Title, "the later mutation wins")
	assert.Equal(t, "eng.a", r.Category)
	assert.Equal(t, "one\ntwo\nthree (B)\n", r.Body, "a field only B changed is B's")
	logged := kernel.LoggedConflicts(r)
	require.Len(t, logged, 1, "conflicts lists the losing value")
	assert.Equal(t, "Title from B", logged[0].Lost)
	assert.Equal(t, "Title from A", logged[0].Kept)
	var ops []string
	for _, e := range r.MutationLog {
		ops = append(ops, e.Op)
	}
	assert.Equal(t, []string{"create", "update", "update", "merge", "update"}, ops, "A's update, B's with the merge entry of its lost title, B's body")
	get(t, a, "a-own")
	get(t, a, "b-own")

	// log and blame read the replayed history as any other: the record's
	// history is its four commits, newest first, each with its own op and
	// its writer's message (B named the record by the title B gave it), and
	// each field is blamed on the commit that set it.
	h, err := a.History(RecordPath("concept", "shared"), 0)
	require.NoError(t, err)
	var agents []string
	for _, e := range h {
		agents = append(agents, e.Op+" "+e.Subject)
	}
	assert.Equal(t, []string{"update update(concept): Title from B", "update update(concept): Title from B", "update update(concept): Title from A", "create create(concept): Shared"}, agents)
	blame, err := a.Blame("concept", "shared")
	require.NoError(t, err)
	origins := map[string]string{}
	for _, f := range blame.Fields {
		origins[f.Field] = f.Commit
	}
	assert.Equal(t, h[2].Commit, origins["title"], "the title A set, which won")
	assert.Equal(t, h[2].Commit, origins["category"])
	assert.Equal(t, h[0].Commit, origins["body"], "the body B set, replayed")

	// The replayed update names the conflict it resolved, as a merge
	// commit would.
	var conflictTrailers []string
	for _, h := range strings.Fields(git(t, w.remote, "rev-list", tip.String(), "--not", published.String())) {
		c, err := a.Commit(plumbing.NewHash(h))
		require.NoError(t, err)
		msg, err := DecodeMessage(c.Message)
		require.NoError(t, err)
		conflictTrailers = append(conflictTrailers, msg.All(kernel.TrailerConflict)...)
	}
	require.Len(t, conflictTrailers, 1)
	assert.True(t, strings.HasPrefix(conflictTrailers[0], "shared title kept "), conflictTrailers[0])
	requireJudgedClean(t, a, published, tip)
	requireFsckClean(t, w.remote)
}

// A commit signed by a key the remote has since removed from the allowed
// signers is judged on the remote's tip, under the trust in force there:
// refused, never signed again by another key, kept at its ref, and the
// sync ends in CONFLICT naming it. Nothing of it is published.
func TestReplayRefusesACommitWhoseSignerTheRemoteRemoved(t *testing.T) {
	t.Parallel()
	w := newSyncWorld(t)
	a := w.first
	syncStore(t, a, SyncOptions{})

	// B is a clone with a key of its own, which A (a maintainer) adds.
	dir := filepath.Join(t.TempDir(), "b")
	git(t, t.TempDir(), "clone", "-q", w.remote, dir)
	b, err := Open(dir, Options{Now: w.clock.Now})
	require.NoError(t, err)
	bLine, err := b.GenerateSigningKey("b@example.com")
	require.NoError(t, err)
	setSigners(t, a, func(cur string) string { return cur + bLine + "\n" })
	syncStore(t, a, SyncOptions{})
	syncStore(t, b, SyncOptions{})

	mgCreate(t, b, "from-b", "From B", "b\n")
	mine := mgTip(t, b)
	setSigners(t, a, func(cur string) string { return strings.Replace(cur, bLine+"\n", "", 1) })
	syncStore(t, a, SyncOptions{})
	removed := w.remoteTip(t)

	res, err := b.Sync(SyncOptions{Remote: "origin", Pull: true, Push: true, Agent: testAgent})
	requireCode(t, err, kernel.CodeConflict)
	assert.Contains(t, err.Error(), "not in .records/allowed_signers", "the judgment's reason")
	require.Len(t, res.Kept, 1)
	k := res.Kept[0]
	assert.Equal(t, mine, k.Commit)
	assert.Equal(t, kernel.CodePermissionDenied, k.Code)
	assert.Equal(t, []string{"from-b"}, k.Records)
	assert.Equal(t, mine.String(), git(t, dir, "rev-parse", k.Ref), "kept at its ref, not lost")
	assert.False(t, res.Pushed)
	assert.Equal(t, removed, w.remoteTip(t), "nothing was published")
	assert.Equal(t, removed, mgTip(t, b), "the branch is the remote's, without the refused commit")
	assert.Empty(t, git(t, w.remote, "log", "--format=%H", "--all", "--", RecordPath("concept", "from-b")), "the record never reached the remote")
}

// Commits already on another remote are never rewritten: sync merges the
// remote's branch into them instead of replaying them.
func TestSyncMergesCommitsPublishedElsewhere(t *testing.T) {
	t.Parallel()
	w, _, b := divergedClones(t)
	mirror := filepath.Join(t.TempDir(), "mirror.git")
	git(t, t.TempDir(), "init", "-q", "--bare", mirror)
	git(t, gitDir(b), "remote", "add", "mirror", mirror)
	git(t, gitDir(b), "push", "-q", "mirror", "records")
	published := mgTip(t, b)
	require.Equal(t, published.String(), git(t, gitDir(b), "rev-parse", "refs/remotes/mirror/records"))

	res := syncStore(t, b, SyncOptions{})
	assert.Nil(t, res.Replay)
	require.NotNil(t, res.Merge)
	assert.Equal(t, "merged", res.Merge.Kind)
	assert.True(t, res.Pushed)
	assert.True(t, b.IsAncestor(published, w.remoteTip(t)), "the published commit is kept as it is")
	get(t, b, "from-a")
	get(t, b, "from-b")
}

// setSigners writes the allowed signers f makes of the current ones in a
// policy commit.
func setSigners(t *testing.T, s *Store, f func(cur string) string) {
	t.Helper()
	mutate(t, s, func(kv kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		cur, err := kv.(*View).ReadFile(AllowedSignersPath)
		if err != nil {
			return nil, err
		}
		return &kernel.Mutation{Op: kernel.OpPolicy, Type: "store", Title: "signers", Files: map[string][]byte{AllowedSignersPath: []byte(f(string(cur)))},
			Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpPolicy)}, {Key: kernel.TrailerAgent, Value: testAgent},
				{Key: kernel.TrailerFormat, Value: kernel.FormatVersion}, {Key: kernel.TrailerRationale, Value: "test"}}}, nil
	})
	require.NoError(t, s.ExportAllowedSigners())
}

// A records branch with a root of its own (another init) is another trust
// root: sync neither replays it onto the remote's nor merges them.
func TestSyncRefusesABranchWithAnotherRoot(t *testing.T) {
	t.Parallel()
	w := newSyncWorld(t)
	mgCreate(t, w.first, "from-a", "From A", "a\n")
	syncStore(t, w.first, SyncOptions{})
	other := newTestStore(t, Options{Now: w.clock.Now})
	git(t, gitDir(other), "remote", "add", "origin", w.remote)
	mgCreate(t, other, "from-other", "From another root", "o\n")
	before, remote := mgTip(t, other), w.remoteTip(t)

	_, err := other.Sync(SyncOptions{Remote: "origin", Pull: true, Push: true, Agent: testAgent})
	requireCode(t, err, kernel.CodeConflict)
	assert.Contains(t, err.Error(), "shares no history")
	assert.Equal(t, before, mgTip(t, other), "the branch did not move")
	assert.Equal(t, remote, w.remoteTip(t), "nothing was pushed")
}
