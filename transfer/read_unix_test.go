//go:build unix

package transfer

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReadBoundedRefusesWhatIsNotARegularFile: the walk lists regular
// files only, but a note may be replaced before it is opened. A FIFO must
// not block the import (an open for reading waits for a writer), a
// symbolic link must not be followed out of the vault, a device must not
// be read.
func TestReadBoundedRefusesWhatIsNotARegularFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mkfifo and /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.md")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	outside := filepath.Join(t.TempDir(), "secret.md")
	require.NoError(t, os.WriteFile(outside, []byte("secret\n"), 0o644))
	link := filepath.Join(dir, "link.md")
	require.NoError(t, os.Symlink(outside, link))
	zero := filepath.Join(dir, "zero.md")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for _, p := range []string{fifo, link, zero, "/dev/zero"} {
		done := make(chan error, 1)
		go func() {
			_, err := readBounded(p)
			done <- err
		}()
		select {
		case err := <-done:
			require.Error(t, err, p)
		case <-time.After(10 * time.Second):
			// Let the blocked open return so the test can end.
			if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			t.Fatalf("reading %s blocked", p)
		}
	}
}
