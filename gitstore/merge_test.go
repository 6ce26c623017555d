package gitstore

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// mgPair is a store on the records branch and a second store on a feature
// branch of the same repository, started from the records tip: two sides
// that diverge by writing through the store, as two clones would. One clock
// serves both, so a later op is always later.
type mgPair struct {
	ours, theirs *Store
	base         plumbing.Hash
}

func newMergePair(t testing.TB) *mgPair {
	t.Helper()
	clock := newTestClock()
	s := newTestStore(t, Options{Now: clock.Now})
	base, err := s.Tip()
	require.NoError(t, err)
	git(t, gitDir(s), "update-ref", "refs/heads/feature", base.String())
	f, err := OpenRepo(s.repo, Options{Ref: "refs/heads/feature", Now: clock.Now})
	require.NoError(t, err)
	return &mgPair{ours: s, theirs: f, base: base}
}

// fork moves the feature branch to the records tip: the next writes diverge
// from there.
func (p *mgPair) fork(t testing.TB) {
	t.Helper()
	tip, err := p.ours.Tip()
	require.NoError(t, err)
	git(t, gitDir(p.ours), "update-ref", "refs/heads/feature", tip.String())
	p.base = tip
}

func mgCreate(t testing.TB, s *Store, id, title, body string) *kernel.Record {
	t.Helper()
	return create(t, s, kernel.CreateInput{ID: id, Title: title, Body: body})
}

func mgUpdate(t testing.TB, s *Store, id string, f kernel.UpdateFields) plumbing.Hash {
	t.Helper()
	return mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, id, f, ev(), env)
	}).Commit
}

func mgTip(t testing.TB, s *Store) plumbing.Hash {
	t.Helper()
	h, err := s.Tip()
	require.NoError(t, err)
	return h
}

func TestMergeUpToDateAndFastForward(t *testing.T) {
	t.Parallel()
	p := newMergePair(t)
	mgCreate(t, p.ours, "ahead", "Ours is ahead", "x\n")
	ours := mgTip(t, p.ours)

	out, err := p.ours.Merge(p.base, testAgent)
	require.NoError(t, err)
	assert.Equal(t, "up-to-date", out.Kind, "theirs is an ancestor of ours")
	assert.Equal(t, ours, out.Commit)
	assert.Equal(t, ours, mgTip(t, p.ours))

	out, err = p.ours.Merge(ours, testAgent)
	require.NoError(t, err)
	assert.Equal(t, "up-to-date", out.Kind, "the same commit")

	// The feature branch is behind: merging the records tip fast-forwards it.
	out, err = p.theirs.Merge(ours, testAgent)
	require.NoError(t, err)
	assert.Equal(t, "fast-forward", out.Kind)
	assert.Equal(t, ours, mgTip(t, p.theirs))
	assert.Equal(t, "1", git(t, gitDir(p.ours), "rev-list", "--count", "refs/heads/feature^@"), "no merge commit")
}

func TestMergeCommitIsSignedWithBothParentsAndTrailers(t *testing.T) {
	t.Parallel()
	p := newMergePair(t)
	mgCreate(t, p.ours, "shared", "Shared", "one\ntwo\nthree\n")
	mgCreate(t, p.ours, "quiet", "Untouched by theirs", "q\n")
	p.fork(t)

	// Ours: a new record, the shared one's title and first body line, and
	// the quiet one.
	mgCreate(t, p.ours, "only-ours", "Only ours", "o\n")
	mgUpdate(t, p.ours, "shared", kernel.UpdateFields{Title: ptr("Title from ours"), Body: ptr("ONE\ntwo\nthree\n")})
	mgUpdate(t, p.ours, "quiet", kernel.UpdateFields{Title: ptr("Ours renamed the quiet one")})
	// Theirs, later: a new record, the shared one's title (a conflict:
	// theirs is later and wins), its last body line and its category.
	mgCreate(t, p.theirs, "only-theirs", "Only theirs", "t\n")
	mgUpdate(t, p.theirs, "shared", kernel.UpdateFields{Title: ptr("Title from theirs"), Body: ptr("one\ntwo\nTHREE\n"),
		Category: ptr("engineering.merge"), Tags: &[]string{"theirs"}})
	ours, theirs := mgTip(t, p.ours), mgTip(t, p.theirs)

	out, err := p.ours.Merge(theirs, "merge-agent")
	require.NoError(t, err)
	require.Equal(t, "merged", out.Kind)
	assert.Equal(t, p.base, out.Base, "the real merge base")
	assert.Equal(t, ours, out.Ours)
	assert.Equal(t, theirs, out.Theirs)
	assert.Equal(t, out.Commit, mgTip(t, p.ours), "the branch moved to the merge")
	assert.Equal(t, []string{"only-theirs", "shared"}, out.Records, "the records the merge wrote, sorted; ours-only ones are already there")
	assert.Equal(t, map[kernel.MergeCase]int{kernel.CaseAddedTheirs: 1, kernel.CaseChangedBoth: 1}, out.Cases)
	require.Len(t, out.Conflicts, 1)
	assert.Equal(t, kernel.Conflict{ID: "shared", Field: "title", Kept: theirs.String(), Lost: ours.String(),
		KeptText: "Title from theirs", LostText: "Title from ours"}, out.Conflicts[0])

	dir := gitDir(p.ours)
	assert.Equal(t, ours.String()+" "+theirs.String(), git(t, dir, "log", "-1", "--format=%P", out.Commit.String()), "both parents, ours first")
	requireVerifiedByGit(t, p.ours, out.Commit)
	requireFsckClean(t, dir)
	assert.Equal(t, "merge(records): 2 records from "+theirs.String()[:12], git(t, dir, "log", "-1", "--format=%s", out.Commit.String()))
	trailers := git(t, dir, "log", "-1", "--format=%(trailers:only,unfold)", out.Commit.String())
	assert.Equal(t, strings.Join([]string{
		"Record-Op: merge",
		"Record-Id: only-theirs",
		"Record-Id: shared",
		"Record-Agent: merge-agent",
		"Record-Format: " + kernel.FormatVersion,
		"Evidence-Merged-From: " + theirs.String(),
		"Evidence-Conflict: shared title kept " + theirs.String(),
	}, "\n"), strings.TrimSpace(trailers), "git reads every merged record and every conflict")

	shared := get(t, p.ours, "shared")
	assert.Equal(t, "Title from theirs", shared.Title)
	assert.Equal(t, "ONE\ntwo\nTHREE\n", shared.Body, "line edits that do not overlap both apply")
	assert.Equal(t, "engineering.merge", shared.Category, "a field only theirs changed")
	assert.Equal(t, []string{"theirs"}, shared.Tags)
	var merges []kernel.MutationEntry
	for _, e := range shared.MutationLog {
		if e.Op == string(kernel.OpMerge) {
			merges = append(merges, e)
		}
	}
	require.Len(t, merges, 1)
	assert.Equal(t, "merge-agent", merges[0].Agent)
	assert.Equal(t, "Title from ours", merges[0].Evidence["lost"], "the losing value is in the log")
	assert.Equal(t, "Title from theirs", merges[0].Evidence["kept"])
	assert.Equal(t, []string{"create", "update", "update", "merge"}, opsOf(shared))

	assert.Equal(t, "Only theirs", get(t, p.ours, "only-theirs").Title)
	assert.Equal(t, "Only ours", get(t, p.ours, "only-ours").Title)
	assert.Equal(t, "Ours renamed the quiet one", get(t, p.ours, "quiet").Title)
	// Files the merge did not write keep ours' blobs exactly.
	assert.Equal(t, gitShow(t, dir, ours.String(), RecordPath("concept", "quiet")), gitShow(t, dir, out.Commit.String(), RecordPath("concept", "quiet")))
}

func opsOf(r *kernel.Record) []string {
	var out []string
	for _, e := range r.MutationLog {
		out = append(out, e.Op)
	}
	return out
}

func TestMergeOverlappingBodiesKeepTheOtherInTheLog(t *testing.T) {
	t.Parallel()
	p := newMergePair(t)
	mgCreate(t, p.ours, "doc", "Doc", "intro\nmiddle\nend\n")
	p.fork(t)
	mgUpdate(t, p.ours, "doc", kernel.UpdateFields{Body: ptr("intro\nmiddle (ours)\nend\n")})
	mgUpdate(t, p.theirs, "doc", kernel.UpdateFields{Body: ptr("intro\nmiddle (theirs)\nend\n")})

	out, err := p.ours.Merge(mgTip(t, p.theirs), testAgent)
	require.NoError(t, err)
	require.Len(t, out.Conflicts, 1)
	assert.Equal(t, "body", out.Conflicts[0].Field)
	doc := get(t, p.ours, "doc")
	assert.Equal(t, "intro\nmiddle (theirs)\nend\n", doc.Body, "theirs changed it later")
	last := doc.MutationLog[len(doc.MutationLog)-1]
	assert.Equal(t, string(kernel.OpMerge), last.Op)
	assert.Equal(t, "intro\nmiddle (ours)\nend\n", last.Evidence["lost"])
	assert.NotContains(t, gitShow(t, gitDir(p.ours), out.Commit.String(), RecordPath("concept", "doc")), "<<<<<<<")
}

func TestMergeStoreFiles(t *testing.T) {
	t.Parallel()
	p := newMergePair(t)
	// Store files no op writes (verify refuses their commits), written by
	// a store that skips the judgment: what the merge does with them is
	// this test's.
	writeFiles := func(s *Store, files map[string]string) {
		t.Helper()
		m := &kernel.Mutation{Op: kernel.OpInit, Type: "store", Title: "store files", Files: map[string][]byte{},
			Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpInit)}, {Key: kernel.TrailerAgent, Value: testAgent}}}
		for k, v := range files {
			m.Files[k] = []byte(v)
		}
		ungated, err := OpenRepo(s.repo, Options{Ref: s.ref, Now: s.opts.Now, Ungated: true})
		require.NoError(t, err)
		mutate(t, ungated, func(kernel.View, kernel.Env) (*kernel.Mutation, error) { return m, nil })
	}
	writeFiles(p.ours, map[string]string{".records/both": "base\n", ".records/theirs-only": "base\n"})
	p.fork(t)
	writeFiles(p.ours, map[string]string{".records/both": "ours\n"})
	writeFiles(p.theirs, map[string]string{".records/both": "theirs\n", ".records/theirs-only": "theirs\n", ".records/new": "new\n"})
	ours, theirs := mgTip(t, p.ours), mgTip(t, p.theirs)

	out, err := p.ours.Merge(theirs, testAgent)
	require.NoError(t, err)
	dir := gitDir(p.ours)
	assert.Equal(t, "theirs\n", gitShow(t, dir, out.Commit.String(), ".records/theirs-only"), "a file only theirs changed is taken")
	assert.Equal(t, "new\n", gitShow(t, dir, out.Commit.String(), ".records/new"), "a file only theirs added is taken")
	assert.Equal(t, "ours\n", gitShow(t, dir, out.Commit.String(), ".records/both"), "a file both changed keeps ours")
	require.Len(t, out.Conflicts, 1, "and the conflict is reported")
	assert.Equal(t, kernel.Conflict{Field: ".records/both", Kept: ours.String(), Lost: theirs.String()}, out.Conflicts[0])
}

// The index after a merge is caught up from the tree diff of the merge, not
// rebuilt: an entry the diff does not touch keeps whatever the cache held,
// so a marker planted in the cache survives an incremental catch-up and
// would vanish in a rebuild.
func TestMergeCatchesTheIndexUpFromTheTreeDiff(t *testing.T) {
	t.Parallel()
	p := newMergePair(t)
	mgCreate(t, p.ours, "untouched", "Untouched", "u\n")
	mgCreate(t, p.ours, "target", "Target", "t\n")
	p.fork(t)
	mgCreate(t, p.ours, "ours-new", "Ours new", "see [[target]]\n")
	mgCreate(t, p.theirs, "theirs-new", "Theirs new", "also [[target]]\n")
	mgUpdate(t, p.theirs, "untouched", kernel.UpdateFields{Tags: &[]string{"x"}})
	mgUpdate(t, p.theirs, "untouched", kernel.UpdateFields{Tags: &[]string{}})

	// Warm the cache at ours' tip and plant the marker.
	v, err := p.ours.View()
	require.NoError(t, err)
	ix, err := v.Index()
	require.NoError(t, err)
	require.Equal(t, mgTip(t, p.ours), ix.Tip)
	marked := cachedEntry(t, p.ours, "target")
	marked.Title = "planted in the cache"
	plantEntry(t, p.ours, &marked, true)

	// The merge runs in a process of its own, as git records sync does:
	// it starts from the on-disk cache.
	out, err := reopen(t, p.ours).Merge(mgTip(t, p.theirs), testAgent)
	require.NoError(t, err)
	require.Equal(t, "merged", out.Kind)
	onDisk, err := p.ours.loadIndex()
	require.NoError(t, err)
	assert.Equal(t, out.Commit, onDisk.Tip, "the merge itself caught the cache up")
	assert.Equal(t, "planted in the cache", onDisk.Entry("target").Title, "incrementally: untouched entries were not rebuilt")

	s2 := reopen(t, p.ours) // the next process: only the on-disk cache
	v2, err := s2.View()
	require.NoError(t, err)
	ix2, err := v2.Index()
	require.NoError(t, err)
	assert.Equal(t, out.Commit, ix2.Tip)
	assert.Equal(t, "planted in the cache", ix2.Entry("target").Title, "caught up incrementally: untouched entries were not rebuilt")
	require.NotNil(t, ix2.Entry("theirs-new"))
	require.NotNil(t, ix2.Entry("ours-new"))
	var sources []string
	for _, e := range ix2.Reverse("target") {
		sources = append(sources, e.Source)
	}
	assert.ElementsMatch(t, []string{"ours-new", "theirs-new"}, sources, "backlinks from both sides")

	// Without the marker the caught-up index equals a cold build.
	s3 := reopen(t, p.ours)
	res, err := s3.Reindex("")
	require.NoError(t, err)
	assert.True(t, res.Changed, "only the planted title differs")
	s4 := reopen(t, p.ours)
	res, err = s4.Reindex("")
	require.NoError(t, err)
	assert.False(t, res.Changed)
	assert.Equal(t, 4, res.Records)
}

func TestMergeText(t *testing.T) {
	t.Parallel()
	base := "a\nb\nc\nd\ne\n"
	for _, tc := range []struct {
		name, ours, theirs, want string
		ok                       bool
	}{
		{"unchanged", base, base, base, true},
		{"ours only", "A\nb\nc\nd\ne\n", base, "A\nb\nc\nd\ne\n", true},
		{"theirs only", base, "a\nb\nc\nd\nE\n", "a\nb\nc\nd\nE\n", true},
		{"different lines", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "A\nb\nc\nd\nE\n", true},
		{"the same edit on both", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n", true},
		{"insert and edit apart", "a\nnew\nb\nc\nd\ne\n", "a\nb\nc\nD\ne\n", "a\nnew\nb\nc\nD\ne\n", true},
		{"delete and edit apart", "b\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "b\nc\nd\nE\n", true},
		{"append on one side", "a\nb\nc\nd\ne\nf\n", "A\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\nf\n", true},
		{"the same line", "a\nB1\nc\nd\ne\n", "a\nB2\nc\nd\ne\n", "", false},
		{"overlapping ranges", "a\nX\nd\ne\n", "a\nb\nY\ne\n", "", false},
		{"two inserts at one place", "a\nours\nb\nc\nd\ne\n", "a\ntheirs\nb\nc\nd\ne\n", "", false},
		{"an insert where the other edits", "a\nins\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "", false},
		{"delete where the other edits", "a\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := MergeText(base, tc.ours, tc.theirs)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, tc.want, got)
				again, _ := MergeText(base, tc.theirs, tc.ours)
				assert.Equal(t, got, again, "a clean merge does not depend on the side")
			}
		})
	}
	t.Run("no trailing newline", func(t *testing.T) {
		got, ok := MergeText("a\nb\nc", "A\nb\nc", "a\nb\nC")
		require.True(t, ok)
		assert.Equal(t, "A\nb\nC", got)
	})
	t.Run("from an empty base", func(t *testing.T) {
		_, ok := MergeText("", "ours\n", "theirs\n")
		assert.False(t, ok, "two creations of a body overlap")
		got, ok := MergeText("", "", "theirs\n")
		require.True(t, ok)
		assert.Equal(t, "theirs\n", got)
	})
}

func TestMergeSignersKeepsAdditionsAndRevocations(t *testing.T) {
	t.Parallel()
	base := "a key-a\nb key-b\nc key-c\n"
	ours := "a key-a\nb key-b\nc key-c\nx key-x\n" // ours adds x
	theirs := "a key-a\nc key-c\ny key-y\n"        // theirs revokes b, adds y
	require.Equal(t, "a key-a\nc key-c\nx key-x\ny key-y\n", string(MergeSigners([]byte(base), []byte(ours), []byte(theirs))),
		"both additions kept, the revocation stays, ours' order first")
	require.Equal(t, "a key-a\nc key-c\ny key-y\nx key-x\n", string(MergeSigners([]byte(base), []byte(theirs), []byte(ours))),
		"the same lines from the other side, in its order")
}
