package transfer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestReadBounded: a note is read whole whatever its size relative to the
// read buffer, and a file over the bound is refused with invalid_record.
func TestReadBounded(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 70_000, maxInputFile} {
		data := bytes.Repeat([]byte("abcdefg\n"), n/8+1)[:n]
		p := filepath.Join(dir, "note.md")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		got, err := readBounded(p)
		require.NoError(t, err, "size %d", n)
		assert.Equal(t, data, got, "size %d", n)
	}
	p := filepath.Join(dir, "big.md")
	require.NoError(t, os.WriteFile(p, make([]byte, maxInputFile+1), 0o644))
	_, err := readBounded(p)
	var kerr *kernel.Error
	require.True(t, errors.As(err, &kerr), "got %v", err)
	assert.Equal(t, kernel.CodeInvalidRecord, kerr.Code)
}

// TestReadBoundedPastItsStatSize: a file longer than fstat said (it grew
// in between; /proc files say 0) is still read to its end.
func TestReadBoundedPastItsStatSize(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	fi, err := os.Stat("/proc/self/status")
	require.NoError(t, err)
	require.Zero(t, fi.Size())
	got, err := readBounded("/proc/self/status")
	require.NoError(t, err)
	assert.Contains(t, string(got), "Name:")
	assert.Contains(t, string(got), "VmPeak:") // well past the first byte
}
