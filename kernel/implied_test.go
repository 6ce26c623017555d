package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestImpliedTrailers: the trailers a hand commit implies come from the log
// entries its records append (a hand edit's update names the fields the
// diff changed), one op per commit; a plain git merge names what it writes
// and the conflicts its merge entries resolved.
func TestImpliedTrailers(t *testing.T) {
	v := fixture(t)
	old := get(t, v, conceptID)
	edited := appended(old, kernel.OpUpdate)
	edited.Title = "Renamed by hand"
	file := func(r *kernel.Record) kernel.FileChange {
		return kernel.FileChange{Path: "records/" + r.Type + "/xx/" + r.ID + ".md", IsRecord: true, Type: r.Type, ID: r.ID, Old: old, New: r}
	}

	ts, problem := kernel.ImpliedTrailers([]kernel.FileChange{file(edited)}, "", "")
	require.Empty(t, problem)
	assert.Equal(t, []kernel.Trailer{{Key: kernel.TrailerOp, Value: "update"}, {Key: kernel.TrailerID, Value: conceptID},
		{Key: kernel.TrailerAgent, Value: agent}, {Key: kernel.TrailerFormat, Value: kernel.FormatVersion},
		{Key: kernel.TrailerFields, Value: "title"}}, ts)

	ts, _ = kernel.ImpliedTrailers([]kernel.FileChange{file(edited)}, "", "hand-editor")
	assert.Equal(t, "hand-editor", kernel.TrailerValue(ts, kernel.TrailerAgent), "the agent given names the commit's agent")

	mixed := appended(edited, kernel.OpLink)
	_, problem = kernel.ImpliedTrailers([]kernel.FileChange{file(mixed)}, "", "")
	assert.Equal(t, "the staged records append update and link entries: commit one op at a time", problem)

	_, problem = kernel.ImpliedTrailers([]kernel.FileChange{file(old)}, "", "")
	assert.Contains(t, problem, "changes without a new mutation_log entry")

	merged := old.Clone()
	merged.MutationLog = append(merged.MutationLog, kernel.MutationEntry{Op: string(kernel.OpMerge), At: kernel.At(opAt), Agent: agent,
		Evidence: map[string]any{"field": "title", "kept_from": "abc123"}})
	ts, problem = kernel.ImpliedTrailers([]kernel.FileChange{file(merged)}, "f00d", "merger")
	require.Empty(t, problem)
	assert.Equal(t, []kernel.Trailer{{Key: kernel.TrailerOp, Value: "merge"}, {Key: kernel.TrailerID, Value: conceptID},
		{Key: kernel.TrailerAgent, Value: "merger"}, {Key: kernel.TrailerFormat, Value: kernel.FormatVersion},
		{Key: kernel.TrailerMergedFrom, Value: "f00d"}, {Key: kernel.TrailerConflict, Value: conceptID + " title kept abc123"}}, ts)
}
