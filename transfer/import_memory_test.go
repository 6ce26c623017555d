package transfer_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/transfer"
)

// maxLiveBytesPerNote bounds what an import holds for each note at its
// peak: the note's names, its record's path and blob, its claims on ids
// and aliases, its line in the report (an import that held every note,
// its record, its blob and the blob read back held about 16 KiB a note).
const maxLiveBytesPerNote = 3 << 10

// An import streams: it reads its notes twice, a chunk at a time, holds
// only a compact table of their names between the readings, and writes
// each record as it is decided. Twice the notes take less than twice the
// memory at the peak, and each note adds at most maxLiveBytesPerNote.
func TestImportMemoryIsBoundedByItsNames(t *testing.T) {
	const n = 1000
	peak := func(notes int) uint64 {
		vault := filepath.Join(t.TempDir(), "vault")
		writeMixedVault(t, vault, notes)
		svc := svcOf(t, storeWithFixedClockAndKey(t))
		var rep *transfer.Report
		var err error
		live := testenv.PeakLiveHeap(func() {
			rep, err = svc.Import(vault, transfer.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
		})
		require.NoError(t, err)
		require.Len(t, rep.Created, notes+1, "the notes and the chart they embed")
		return live
	}
	small, large := peak(n), peak(2*n)
	t.Logf("peak live heap: %d notes %d KiB, %d notes %d KiB: %d bytes a note", n, small>>10, 2*n, large>>10, int64(large-small)/n)
	assert.Less(t, large, 2*small, "twice the notes take less than twice the memory")
	assert.Less(t, int64(large)-int64(small), int64(n*maxLiveBytesPerNote), "each note adds at most %d bytes", maxLiveBytesPerNote)
}
