package gitstore

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// A store opened before git gc or repack moved its objects into a new pack
// (and deleted the old pack) still reads every record: the object reader
// lists the packs again on a miss and keeps reading a deleted pack through
// its open descriptor.
func TestReadsSurviveRepacks(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, create(t, s, kernel.CreateInput{Title: "r"}).ID)
	}
	read := func() {
		t.Helper()
		v, err := s.View()
		require.NoError(t, err)
		for _, id := range ids {
			r, err := v.Record(id)
			require.NoError(t, err)
			require.NotNil(t, r, id)
		}
	}
	read() // objects are loose; the reader has listed no pack yet
	git(t, gitDir(s), "repack", "-a", "-d", "-q")
	git(t, gitDir(s), "prune-packed")
	read() // loose objects gone: found in the new pack
	ids = append(ids, create(t, s, kernel.CreateInput{Title: "after"}).ID)
	git(t, gitDir(s), "repack", "-a", "-d", "-q") // replaces the pack the reader holds open
	git(t, gitDir(s), "prune-packed")
	read()
}

// MergeBase tells "no common history" (zero, no error) from a failure
// (an error): a missing object must not read as unrelated histories.
func TestMergeBaseTellsUnrelatedFromBroken(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	tip, err := s.Tip()
	require.NoError(t, err)
	orphan := handCommit(t, s, plumbing.ZeroHash, map[string]string{"x": "y\n"}, "unrelated root")
	base, err := s.MergeBase(tip, orphan)
	require.NoError(t, err)
	require.True(t, base.IsZero(), "unrelated histories have no base")
	_, err = s.MergeBase(tip, plumbing.NewHash("1234567890123456789012345678901234567890"))
	require.Error(t, err, "a missing commit is an error")
}
