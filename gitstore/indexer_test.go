package gitstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestCatchUpDoesNotCacheAnUnreadableRecord: a record blob that cannot be
// read (an I/O error, a missing object) is not a record that fails to
// parse. Catching up past it must fail rather than save a cache for that
// tip without the record: the cache is trusted for its tip from then on.
func TestCatchUpDoesNotCacheAnUnreadableRecord(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	create(t, s, kernel.CreateInput{Title: "first"})
	require.Equal(t, 1, indexOf(t, s).Len())

	r := &kernel.Record{ID: "by-hand", Type: "raw", Title: "by hand", Category: "c",
		CreatedAt: ts("2026-01-01"), UpdatedAt: ts("2026-01-01"), Provenance: kernel.Provenance{Agent: "x"}}
	data, err := EncodeRecord(r)
	require.NoError(t, err)
	tip, err := s.Tip()
	require.NoError(t, err)
	handCommit(t, s, tip, map[string]string{RecordPath(r.Type, r.ID): string(data)}, "by hand")

	h := git(t, gitDir(s), "rev-parse", s.Ref()+":"+RecordPath(r.Type, r.ID))
	loose := filepath.Join(s.repo.CommonDir, "objects", h[:2], h[2:])
	require.NoError(t, os.Rename(loose, loose+".away"))

	v, err := reopen(t, s).View()
	require.NoError(t, err)
	_, err = v.Index()
	requireCode(t, err, kernel.CodeInternal)

	require.NoError(t, os.Rename(loose+".away", loose))
	ix := indexOf(t, reopen(t, s))
	require.NotNil(t, ix.Entry(r.ID), "the record is indexed once it can be read")
}
