package gitstore

import "golang.org/x/sys/unix"

// mapRegion maps n bytes of anonymous memory outside the Go heap and asks
// for huge pages (THP in its common "madvise" mode gives them only where
// asked): a first touch then maps 2 MiB, not 4 KiB. nil when the mapping
// fails; the caller uses the heap.
func mapRegion(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE) // without THP it still maps
	return b
}

func unmapRegion(b []byte) { _ = unix.Munmap(b) }
