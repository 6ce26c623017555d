package e2e

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signedGit is git with the clone's records key as git's own signing key,
// for commits made with plain git.
func (c *clone) signedGit(t testing.TB, args ...string) string {
	t.Helper()
	key := filepath.Join(c.dir, ".git", "records", "signing_key")
	return gitc(t, c.dir, append([]string{"-c", "gpg.format=ssh", "-c", "user.signingkey=" + key, "-c", "commit.gpgsign=true"}, args...)...)
}

// mergeRemote brings the remote's records branch in with a merge commit,
// as git records merge does for a reviewed branch, and publishes it: sync
// would replay the clone's commits on it instead.
func (c *clone) mergeRemote(t testing.TB) string {
	t.Helper()
	gitc(t, c.dir, "fetch", "-q", "origin")
	out := c.rec(t, "merge", "origin/records")
	require.Contains(t, c.rec(t, "push"), "pushed")
	return out
}

// A merge that takes one side's version of a record the other side left
// alone is a valid merge even when that version removed tags or links
// (update replaces them): what a side did not change has nothing to union.
// Every clone must accept it, or the next sync of the other clone refuses
// the merge commit and the two can never sync again.
func TestMergeOfAOneSidedTagAndLinkRemovalVerifies(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	target := a.create(t, "Target", "t\n")
	id := a.create(t, "Tagged", "x\n", "--tag", "one", "--tag", "two", "--link", "depends_on:"+target)
	a.sync(t)
	b.sync(t)

	b.rec(t, "update", id, "--agent", "B", "--tag", "two")
	b.sync(t)
	a.create(t, "Diverge", "d\n")
	out := a.mergeRemote(t)
	require.Contains(t, out, "merged")
	assert.Equal(t, []string{"two"}, show(t, a.dir, id).Tags, "B's removal stands: A never touched the record")
	requireValid(t, a.dir)

	out = b.sync(t)
	assert.Contains(t, out, "fast-forward", "B accepts A's merge")
	requireValid(t, b.dir)
	requireValid(t, w.remote)
}

// Two clones create a record with the same id (a slug): the merge keeps one
// creation's immutable fields by the winner rule and logs the other's, and
// both clones accept it.
func TestMergeOfARecordBothSidesCreatedVerifies(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	a.create(t, "Runbook from A", "a\n", "--id", "runbook", "--tag", "a")
	b.create(t, "Runbook from B", "b\n", "--id", "runbook", "--tag", "b")
	a.sync(t)
	out := b.mergeRemote(t)
	require.Contains(t, out, "merged")
	requireValid(t, b.dir)
	a.sync(t)
	requireValid(t, a.dir)
	assert.Equal(t, a.tip(), b.tip())

	r := show(t, a.dir, "runbook")
	assert.Equal(t, "Runbook from B", r.Title, "B created it later")
	assert.ElementsMatch(t, []string{"a", "b"}, r.Tags)
	lost := map[string]bool{}
	creates := 0
	for _, e := range r.MutationLog {
		if e.Op == "create" {
			creates++
		}
		if e.Op == "merge" {
			lost[e.Evidence["field"].(string)] = true
		}
	}
	assert.Equal(t, 2, creates, "both creations are in the log")
	assert.True(t, lost["title"] && lost["created_at"] && lost["provenance"], "A's title, creation time and provenance are kept in merge entries: %v", lost)
}

// A merge commit that drops what the other side did to a record (git merge
// -s ours, signed and with merge trailers) is refused: the rule is checked
// against both parents, not only against the first.
func TestVerifyRefusesAMergeThatDropsTheOtherSide(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	id := a.create(t, "Shared", "s\n")
	a.sync(t)
	b.sync(t)
	a.rec(t, "update", id, "--agent", "A", "--title", "A's title")
	theirsOnly := a.create(t, "Only on A", "o\n")
	a.sync(t)
	b.create(t, "Only on B", "b\n")
	gitc(t, b.dir, "fetch", "-q", "origin")
	ours, theirs := b.tip(), gitc(t, b.dir, "rev-parse", "origin/records")

	tree := gitc(t, b.dir, "rev-parse", ours+"^{tree}")
	msg := "merge(records): keep ours\n\nRecord-Op: merge\nRecord-Agent: B\nRecord-Format: 1\nEvidence-Merged-From: " + theirs + "\n"
	forged := b.signedGit(t, "commit-tree", tree, "-p", ours, "-p", theirs, "-S", "-m", msg)
	r := rec(t, b.dir, "verify", ours+".."+forged)
	require.Equal(t, 1, r.code, "%s", r)
	assert.Contains(t, r.stdout, "mutation-log", "A's update of the shared record is lost")
	assert.Contains(t, r.stdout, id)
	assert.Contains(t, r.stdout, theirsOnly, "and A's new record is missing")
}

// A merge that brings only a store-file change (a maintainer added a
// signer) writes no record and carries no Record-Id; it verifies.
func TestMergeOfOnlyASignerChangeVerifies(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	d := w.add(t, "D", "")
	d.rec(t, "init", "--generate-key")
	a.rec(t, "signers", "add", d.email, d.pubKey(t), "--rationale", "D joins", "--agent", "A")
	a.sync(t)
	b.create(t, "From B", "b\n")
	out := b.mergeRemote(t)
	require.Contains(t, out, "merged 1 commits")
	assert.Contains(t, out, ": 0 records")
	requireValid(t, b.dir)
	a.sync(t)
	requireValid(t, a.dir)
	assert.Contains(t, gitc(t, a.dir, "show", "records:.records/allowed_signers"), d.email)
}

// Both clones change a record: B removes a tag, A retitles it. The merge
// is three-way, so B's removal stands (a union brought it back), and every
// clone and the server accept the merge. (Links merge the same way: the
// kernel's merge table tests them; update cannot remove one from the CLI.)
func TestMergeKeepsATagAndLinkRemovedOnOneSide(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	target := a.create(t, "Target", "t\n")
	id := a.create(t, "Tagged", "x\n", "--tag", "one", "--tag", "two", "--link", "depends_on:"+target)
	a.sync(t)
	b.sync(t)

	b.rec(t, "update", id, "--agent", "B", "--tag", "two")
	b.sync(t)
	a.rec(t, "update", id, "--agent", "A", "--title", "Retitled by A")
	out := a.mergeRemote(t)
	require.Contains(t, out, "merged")
	r := show(t, a.dir, id)
	assert.Equal(t, "Retitled by A", r.Title)
	assert.Equal(t, []string{"two"}, r.Tags, "B removed tag one; A did not touch the tags")
	assert.Len(t, r.Links, 1, "the link both sides kept stays")
	requireValid(t, a.dir)
	b.sync(t)
	requireValid(t, b.dir)
	requireValid(t, w.remote)
}

// A conflict resolved by the winner rule is never silent: the clone that
// replays its update names the record and field, and so does the clone
// that later fast-forwards over the replayed commit (read from its
// Evidence-Conflict trailers).
func TestConflictIsReportedOnBothClones(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	id := a.create(t, "Shared", "s\n")
	a.sync(t)
	b.sync(t)
	a.rec(t, "update", id, "--agent", "A", "--title", "Title from A")
	a.sync(t)
	b.rec(t, "update", id, "--agent", "B", "--title", "Title from B")

	out := b.sync(t)
	require.Contains(t, out, "replayed 1 commits")
	assert.Contains(t, out, "both changed "+id+" title", "the replaying clone names the conflict")

	out = a.sync(t)
	assert.Contains(t, out, "fast-forward")
	assert.Contains(t, out, "resolved 1 conflicts")
	assert.Contains(t, out, "both changed "+id+" title", "the fast-forwarding clone names it too")

	// conflicts lists the kept losing value on both clones, with the
	// command that restores it.
	for _, c := range []*clone{a, b} {
		out = c.rec(t, "conflicts", id)
		assert.Contains(t, out, id+" title: merge at ")
		assert.Contains(t, out, `kept "Title from B"`)
		assert.Contains(t, out, `lost "Title from A"`)
		assert.Contains(t, out, "restore: git records update "+id+" --agent A --title 'Title from A'")
	}
	a.rec(t, "update", id, "--agent", "A", "--title", "Title from A")
	assert.Equal(t, "Title from A", show(t, a.dir, id).Title)
	assert.Contains(t, a.rec(t, "conflicts"), id+" title", "without a handle: every record's conflicts")
}
