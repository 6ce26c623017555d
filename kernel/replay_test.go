package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// A replay puts what a commit did to a record (base → change) on the
// record as the new parent has it (onto). These rows hold its result to
// the rules the judgment applies to the replayed commit: the log only
// appended to on the new parent, the fields the op changed named.

// rpJudge is what CheckCommit says of the replayed record written by an
// update naming fields, on onto.
func rpJudge(onto, replayed *kernel.Record, fields string) []kernel.Violation {
	ts := []kernel.Trailer{{Key: kernel.TrailerOp, Value: "update"}, {Key: kernel.TrailerID, Value: replayed.ID}, {Key: kernel.TrailerFields, Value: fields}}
	return kernel.CheckCommit(kernel.OpUpdate, ts, []kernel.RecordChange{{Type: replayed.Type, ID: replayed.ID, Old: onto, New: replayed}}, nil)
}

func TestReplayOfDisjointFieldsKeepsBothAndAppendsTheLog(t *testing.T) {
	t.Parallel()
	base := mgBase()
	// The remote's title came later than the local category: the local
	// entry still goes after the remote's, where the new parent's log ends.
	onto := mgEdit(base, 10, "remote", func(r *kernel.Record) { r.Title = "Remote title" })
	change := mgEdit(base, 5, "local", func(r *kernel.Record) { r.Category = "eng.local" })
	res, err := kernel.ReplayRecord(base, kernel.Side{Record: onto, Commit: mgOursCommit}, kernel.Side{Record: change, Commit: mgTheirCommit}, mgInfo())
	require.NoError(t, err)
	require.NotNil(t, res.Record)
	r := res.Record
	assert.Equal(t, "Remote title", r.Title)
	assert.Equal(t, "eng.local", r.Category)
	assert.Empty(t, res.Conflicts)
	require.Len(t, r.MutationLog, 3)
	assert.Equal(t, onto.MutationLog, r.MutationLog[:2], "the new parent's log is kept as it is")
	assert.Equal(t, change.MutationLog[1], r.MutationLog[2], "the commit's entry is appended")
	assert.Empty(t, rpJudge(onto, r, "category"), "the replayed update is judged an update of the category")
}

func TestReplayOfOneFieldKeepsTheLosingValueInTheLog(t *testing.T) {
	t.Parallel()
	base := mgBase()
	for _, tc := range []struct {
		name               string
		ontoAt, changeAt   int
		want, lost, wantBy string
	}{
		{"the remote's later value wins", 10, 5, "Remote title", "Local title", mgOursCommit},
		{"the commit's later value wins", 5, 10, "Local title", "Remote title", mgTheirCommit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onto := mgEdit(base, tc.ontoAt, "remote", func(r *kernel.Record) { r.Title = "Remote title" })
			change := mgEdit(base, tc.changeAt, "local", func(r *kernel.Record) { r.Title = "Local title" })
			res, err := kernel.ReplayRecord(base, kernel.Side{Record: onto, Commit: mgOursCommit}, kernel.Side{Record: change, Commit: mgTheirCommit}, mgInfo())
			require.NoError(t, err)
			require.NotNil(t, res.Record, "the log changes whoever wins")
			r := res.Record
			assert.Equal(t, tc.want, r.Title)
			require.Len(t, res.Conflicts, 1)
			assert.Equal(t, "title", res.Conflicts[0].Field)
			assert.Equal(t, tc.wantBy, res.Conflicts[0].Kept)
			logged := kernel.LoggedConflicts(r)
			require.Len(t, logged, 1, "conflicts lists it")
			assert.Equal(t, tc.lost, logged[0].Lost)
			assert.Equal(t, tc.want, logged[0].Kept)
			assert.Equal(t, onto.MutationLog, r.MutationLog[:len(onto.MutationLog)], "append-only on the new parent")
			assert.Equal(t, "update", r.MutationLog[len(onto.MutationLog)].Op, "the commit's own entry, then the merge entry")
			assert.Empty(t, rpJudge(onto, r, "title"))
		})
	}
}

func TestReplayThatCannotBeMadeIsAConflict(t *testing.T) {
	t.Parallel()
	base := mgBase()
	created := base.Clone()
	taken := base.Clone()
	taken.Type = "decision"
	edited := mgEdit(base, 5, "local", func(r *kernel.Record) { r.Title = "Local" })
	for name, tc := range map[string]struct{ base, onto, change *kernel.Record }{
		"an id another writer created": {nil, taken, created},
		"a record the remote lacks":    {base, nil, edited},
		"a deletion":                   {base, base, nil},
	} {
		_, err := kernel.ReplayRecord(tc.base, kernel.Side{Record: tc.onto, Commit: mgOursCommit}, kernel.Side{Record: tc.change, Commit: mgTheirCommit}, mgInfo())
		assert.Equal(t, kernel.CodeConflict, kernel.CodeOf(err), "%s: %v", name, err)
	}
}

func TestReplayOfWhatTheRemoteHoldsWritesNothing(t *testing.T) {
	t.Parallel()
	base := mgBase()
	change := mgEdit(base, 5, "local", func(r *kernel.Record) { r.Title = "Local" })
	res, err := kernel.ReplayRecord(base, kernel.Side{Record: change.Clone(), Commit: mgOursCommit}, kernel.Side{Record: change, Commit: mgTheirCommit}, mgInfo())
	require.NoError(t, err)
	assert.Nil(t, res.Record)

	res, err = kernel.ReplayRecord(nil, kernel.Side{Commit: mgOursCommit}, kernel.Side{Record: base, Commit: mgTheirCommit}, mgInfo())
	require.NoError(t, err)
	assert.Same(t, base, res.Record, "a record the commit creates is written as it is")
	onto := mgEdit(base, 3, "remote", func(r *kernel.Record) { r.Tags = append(r.Tags, "remote") })
	res, err = kernel.ReplayRecord(base, kernel.Side{Record: base.Clone(), Commit: mgOursCommit}, kernel.Side{Record: onto, Commit: mgTheirCommit}, mgInfo())
	require.NoError(t, err)
	assert.Same(t, onto, res.Record, "a record only the commit changed is written as the commit wrote it")
}
