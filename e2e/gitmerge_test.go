package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordFile is the path of a record on the branch, as ls-tree finds it.
func recordFile(t testing.TB, dir, rev, id string) string {
	t.Helper()
	for _, p := range strings.Split(gitc(t, dir, "ls-tree", "-r", "--name-only", rev, "records/"), "\n") {
		if strings.HasSuffix(p, "/"+id+".md") {
			return p
		}
	}
	t.Fatalf("no file for record %s at %s", id, rev)
	return ""
}

// trailersOf reads a commit's trailers with git itself.
func trailersOf(t testing.TB, dir, rev string) []string {
	t.Helper()
	return strings.Split(gitc(t, dir, "log", "-1", "--format=%(trailers:only,unfold)", rev), "\n")
}

// After hooks install, plain git merge (and git pull) of diverged records
// branches go through the records merge driver: the record file both sides
// changed is merged record by record, the commit-msg hook writes the merge
// trailers, and the merge commit verifies.
func TestGitMergeUsesTheRecordsDriver(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A", "B")
	a, b := w.clone("A"), w.clone("B")
	out := a.rec(t, "hooks", "install")
	require.Contains(t, out, "commit-msg")
	assert.Equal(t, "records/** merge=records", gitc(t, a.dir, "show", "records:.gitattributes"), "the branch routes record files to the driver")
	assert.Contains(t, gitc(t, a.dir, "config", "merge.records.driver"), "merge-driver %O %A %B %P")
	id := a.create(t, "Shared", "intro\nmiddle\nend\n")
	a.sync(t)
	b.sync(t)

	b.rec(t, "update", id, "--agent", "B", "--title", "B's title", "--body", "intro\nmiddle\nend (B)\n")
	bOnly := b.create(t, "Only B", "b\n")
	b.sync(t)
	a.rec(t, "update", id, "--agent", "A", "--category", "eng.a", "--body", "intro (A)\nmiddle\nend\n")
	a.rec(t, "update", id, "--agent", "A", "--title", "A's title")
	gitc(t, a.dir, "fetch", "-q", "origin")
	ours, theirs := a.tip(), gitc(t, a.dir, "rev-parse", "origin/records")

	// A worktree with the records branch checked out, as someone reviewing
	// records with plain git would have.
	wt := filepath.Join(w.root, "A-records")
	gitc(t, a.dir, "worktree", "add", "-q", wt, "records")
	key := filepath.Join(a.dir, ".git", "records", "signing_key")
	r, err := runIn(wt, nil, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "-c", "commit.gpgsign=true",
		"merge", "--no-edit", "origin/records")
	require.NoError(t, err)
	require.Equal(t, 0, r.code, "git merge:\n%s", r)
	merge := a.tip()
	assert.Equal(t, ours+" "+theirs, gitc(t, a.dir, "log", "-1", "--format=%P", merge))
	assert.Empty(t, gitc(t, wt, "status", "--porcelain"), "no conflict left in the worktree")

	file, err := os.ReadFile(filepath.Join(wt, recordFile(t, wt, "HEAD", id)))
	require.NoError(t, err)
	assert.NotContains(t, string(file), "<<<<<<<")
	assert.NotContains(t, string(file), ">>>>>>>")
	rec := show(t, a.dir, id)
	var agents []string
	for _, e := range rec.MutationLog {
		agents = append(agents, e.Op+" by "+e.Agent)
	}
	assert.Subset(t, agents, []string{"update by B", "update by A"}, "both sides' log entries: %v", agents)
	assert.Equal(t, "A's title", rec.Title, "A changed the title last")
	assert.Equal(t, "eng.a", rec.Category)
	assert.Equal(t, "intro (A)\nmiddle\nend (B)\n", rec.Body, "line edits that do not overlap both apply")
	conflict := false
	for _, e := range rec.MutationLog {
		if e.Op == "merge" && e.Evidence["field"] == "title" && e.Evidence["lost"] == "B's title" {
			conflict = true
		}
	}
	assert.True(t, conflict, "B's title is kept in a merge entry")
	assert.Equal(t, "Only B", show(t, a.dir, bOnly).Title)

	trailers := trailersOf(t, a.dir, merge)
	assert.Contains(t, trailers, "Record-Op: merge", "the commit-msg hook wrote the merge trailers")
	assert.Contains(t, trailers, "Evidence-Merged-From: "+theirs)
	assert.Contains(t, trailers, "Record-Id: "+id)
	assert.Contains(t, trailers, "Evidence-Conflict: "+id+" title kept "+ours, "the driver names the winning side by its commit, as sync does")
	assert.Equal(t, "G", gitc(t, a.dir, "log", "-1", "--format=%G?", merge))
	requireValid(t, a.dir)

	// The merge travels like any other commit.
	out = a.sync(t)
	assert.Contains(t, out, "pushed")
	b.sync(t)
	assert.Equal(t, a.tip(), b.tip())
	requireValid(t, b.dir)
}

// git records merge <branch> merges a reviewed feature branch of records,
// after verifying every commit it brings; a branch with a bad commit is
// refused and nothing of it is merged.
func TestRecordsMergeOfAFeatureBranch(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "A")
	a := w.clone("A")
	shared := a.create(t, "Shared", "s\n")
	gitc(t, a.dir, "branch", "review/feature", "records")

	feature := []string{"--ref", "refs/heads/review/feature"}
	fid := strings.TrimSpace(a.rec(t, append(feature, "create", "--type", "concept", "--title", "Feature record",
		"--category", "eng", "--agent", "A", "--body", "see [["+shared+"]]\n")...))
	a.rec(t, append(feature, "update", shared, "--agent", "A", "--category", "eng.feature")...)
	a.rec(t, "update", shared, "--agent", "A", "--title", "Renamed on records")
	before := a.tip()

	out := a.rec(t, "merge", "review/feature")
	assert.Contains(t, out, "merged")
	tip := a.tip()
	assert.Equal(t, before+" "+gitc(t, a.dir, "rev-parse", "review/feature"), gitc(t, a.dir, "log", "-1", "--format=%P", tip))
	r := show(t, a.dir, shared)
	assert.Equal(t, "Renamed on records", r.Title)
	assert.Equal(t, "eng.feature", r.Category)
	assert.Equal(t, "Feature record", show(t, a.dir, fid).Title)
	links := mustRec(t, a.dir, "links", shared, "--json")
	assert.Contains(t, links, fid, "the index knows the merged backlink")
	requireValid(t, a.dir)

	// A feature branch with an unsigned commit is refused.
	gitc(t, a.dir, "branch", "review/bad", "records")
	tree := gitc(t, a.dir, "rev-parse", "records^{tree}")
	bad := gitc(t, a.dir, "commit-tree", tree, "-p", "records", "-m", "update(concept): nothing\n\nRecord-Op: update\nRecord-Id: "+shared+"\nRecord-Agent: A\nRecord-Format: 1\nEvidence-Fields: title\n")
	gitc(t, a.dir, "update-ref", "refs/heads/review/bad", bad)
	res := rec(t, a.dir, "merge", "review/bad")
	assert.NotEqual(t, 0, res.code)
	assert.Contains(t, res.stderr, "signature")
	assert.Equal(t, tip, a.tip(), "nothing was merged")
}
