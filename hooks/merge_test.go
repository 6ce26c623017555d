package hooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/hooks"
)

// violationsOf verifies HEAD~1..HEAD in dir and returns "rule: message" for
// each violation.
func violationsOf(t *testing.T, dir string) []string {
	t.Helper()
	rep := verifyJSON(t, dir, 1, "HEAD~1..HEAD")
	var got []string
	for _, v := range rep.Violations {
		got = append(got, v.Rule+": "+v.Message)
	}
	return got
}

// TestMergeWritesOnlyWhatASideHas: a merge commit decides between the
// sides; it may not give a record a title, body or category that neither
// side has. Otherwise anyone allowed to merge (a contributor) rewrites any
// record a side changed since the merge base, whatever op and category
// rules say, since the merge is judged as one store-level op.
func TestMergeWritesOnlyWhatASideHas(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	// The concept changed on the branch (propose) after the commit that
	// created the finding: merging that older commit back in is a merge
	// whose base is the older commit, with the concept changed on ours.
	old := revParse(t, dir, "HEAD~3")
	ours := revParse(t, dir, "HEAD")
	edit(t, recordFile(t, dir, w.concept), func(s string) string {
		s = replace(t, s, "title: Token refresh", "title: Smuggled title")
		return appendLog(t, s, "  - op: merge\n    at: \"2030-01-02T03:04:05.000Z\"\n    agent: carol") + "\nSmuggled body."
	})
	git(t, dir, "add", "-A")
	tree := strings.TrimSpace(git(t, dir, "write-tree"))
	msg := handMsg("merge(store): "+old[:12], "Record-Op: merge", "Record-Id: "+w.concept, "Record-Agent: carol",
		"Record-Format: 1", "Evidence-Merged-From: "+old)
	r := run(t, dir, msg, nil, "git", "-c", "gpg.format=ssh", "-c", "user.signingkey="+w.key,
		"commit-tree", "-S", "-p", ours, "-p", old, tree)
	require.Equal(t, 0, r.code, "%s", r)
	git(t, dir, "reset", "-q", "--hard", strings.TrimSpace(r.stdout))

	got := violationsOf(t, dir)
	assert.Contains(t, got, hooks.RuleOpMatches+": merge gives the title of "+w.concept+" a value neither side has")
	assert.Contains(t, got, hooks.RuleOpMatches+": merge gives the body of "+w.concept+" a value neither side has")
}
