package gitstore

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func TestHistoryListsTheCommitsThatTouchedARecord(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	dir := gitDir(s)
	update := func(id, title string) plumbing.Hash {
		return mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, id, kernel.UpdateFields{Title: ptr(title)}, kernel.Evidence{Agent: "editor"}, env)
		}).Commit
	}

	wa := mutate(t, s, createOp(kernel.CreateInput{Title: "A"}))
	a := wa.Mutation.Writes[0]
	b := create(t, s, kernel.CreateInput{Title: "B"})
	c3 := update(a.ID, "A, renamed")
	mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { // touches B only
		return kernel.LinkRecords(v, b.ID, []kernel.Link{{TargetID: a.ID, Kind: "related"}}, ev(), env)
	})

	// A hand-made, unsigned commit that edits A: truth is the tree, so it
	// is listed even without trailers.
	edited := get(t, s, a.ID)
	edited.Title = "A, edited by hand"
	data, err := EncodeRecord(edited)
	require.NoError(t, err)
	tip, err := s.Tip()
	require.NoError(t, err)
	c5 := handCommit(t, s, tip, map[string]string{RecordPath(a.Type, a.ID): string(data)}, "fix a typo by hand")

	update(b.ID, "B, renamed")
	c7 := update(a.ID, "A, final")

	path := RecordPath(a.Type, a.ID)
	hist, err := s.History(path, 0)
	require.NoError(t, err)
	var commits []string
	for _, h := range hist {
		commits = append(commits, h.Commit)
	}
	want := []string{c7.String(), c5.String(), c3.String(), wa.Commit.String()}
	require.Equal(t, want, commits, "newest first, only the commits that changed A")
	require.Equal(t, strings.Split(git(t, dir, "log", "--first-parent", "--format=%H", s.Ref(), "--", path), "\n"), commits, "git log agrees")

	require.Equal(t, "update", hist[0].Op)
	require.Equal(t, "editor", hist[0].Agent)
	require.True(t, hist[0].Signed)
	require.Equal(t, "update(concept): A, final", hist[0].Subject)
	require.Equal(t, testName+" <"+testEmail+">", hist[0].Committer)
	require.Contains(t, hist[0].Trailers, kernel.Trailer{Key: kernel.TrailerFields, Value: "title"})
	require.Equal(t, "", hist[1].Op, "the hand-made commit has no trailers")
	require.False(t, hist[1].Signed)
	require.Equal(t, "fix a typo by hand", hist[1].Subject)
	require.Equal(t, "create", hist[3].Op)
	require.True(t, hist[0].Time.After(hist[2].Time.Time))

	t.Run("limit keeps the newest", func(t *testing.T) {
		h, err := s.History(path, 2)
		require.NoError(t, err)
		require.Len(t, h, 2)
		require.Equal(t, c7.String(), h[0].Commit)
		require.Equal(t, c5.String(), h[1].Commit)
	})

	t.Run("without a path, every commit", func(t *testing.T) {
		h, err := s.History("", 0)
		require.NoError(t, err)
		require.Equal(t, strings.Split(git(t, dir, "log", "--format=%H", s.Ref()), "\n"), hashesOf(h))
		require.Equal(t, "init", h[len(h)-1].Op)
	})

	t.Run("a path nothing touched", func(t *testing.T) {
		h, err := s.History(RecordPath("concept", "never-created"), 0)
		require.NoError(t, err)
		require.Empty(t, h)
	})

	t.Run("a merge that brings a change is listed, the side branch is not walked", func(t *testing.T) {
		base, err := s.Tip()
		require.NoError(t, err)
		edited.Title = "A, on a side branch"
		data, err := EncodeRecord(edited)
		require.NoError(t, err)
		side := handCommit(t, s, base, map[string]string{path: string(data)}, "side")
		tree := git(t, dir, "rev-parse", side.String()+"^{tree}")
		merge := plumbing.NewHash(git(t, dir, "commit-tree", tree, "-p", base.String(), "-p", side.String(), "-m", "merge side"))
		git(t, dir, "update-ref", s.Ref(), merge.String())

		h, err := s.History(path, 0)
		require.NoError(t, err)
		require.Equal(t, append([]string{merge.String()}, want...), hashesOf(h))
		require.Equal(t, strings.Split(git(t, dir, "log", "--first-parent", "--format=%H", s.Ref(), "--", path), "\n"), hashesOf(h))
	})

	// A gpgsig header with no value carries no signature: git says N and
	// verify finds nothing to check, so the history must not say signed.
	t.Run("a bare gpgsig header is not a signature", func(t *testing.T) {
		tip, err := s.Tip()
		require.NoError(t, err)
		raw := git(t, dir, "cat-file", "commit", tip.String())
		headers, msg, ok := strings.Cut(raw, "\n\n")
		require.True(t, ok)
		var kept []string
		for _, line := range strings.Split(headers, "\n") {
			if !strings.HasPrefix(line, "gpgsig") && !strings.HasPrefix(line, " ") {
				kept = append(kept, line)
			}
		}
		kept = append(kept, "gpgsig")
		bare, err := gitInput(dir, []byte(strings.Join(kept, "\n")+"\n\n"+msg+"\n"), nil, "hash-object", "-t", "commit", "-w", "--stdin")
		require.NoError(t, err)
		git(t, dir, "update-ref", s.Ref(), bare)
		require.Equal(t, "N", git(t, dir, "log", "-1", "--format=%G?", bare))

		h, err := s.History("", 1)
		require.NoError(t, err)
		require.Equal(t, bare, h[0].Commit)
		require.False(t, h[0].Signed, "a header with no signature in it is not a signature")
	})
}

func hashesOf(h []HistoryEntry) []string {
	out := make([]string, len(h))
	for i, e := range h {
		out[i] = e.Commit
	}
	return out
}
