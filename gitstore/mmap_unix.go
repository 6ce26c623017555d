//go:build unix

package gitstore

import (
	"os"

	"golang.org/x/sys/unix"
)

// readIndexFile maps a pack index read-only: a lookup touches a few pages,
// not the whole file. Pack files are immutable once named, so the mapping
// stays valid even if git deletes the file after a repack.
func readIndexFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil, err
	}
	return unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
}

// mapIndexFile maps an index base as readIndexFile does and keeps the
// file open for the reads that copy a row rather than fault its pages in
// (baseFile.pointRow). The os.File closes itself once unreachable.
func mapIndexFile(path string) ([]byte, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		f.Close()
		return nil, nil, err
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return data, f, nil
}

// adviseRandom tells the kernel a mapping is read at random places (the
// index base: a lookup reads a few rows): no read-ahead around a fault, so
// a point read maps the pages it reads, not the neighbourhood.
func adviseRandom(b []byte) { _ = unix.Madvise(b, unix.MADV_RANDOM) }

// releaseIndexFile unmaps what readIndexFile mapped; nothing may read it after.
func releaseIndexFile(b []byte) { _ = unix.Munmap(b) }

// mapsPacks: packs are mapped too, for the pack reader.
const mapsPacks = true

// dropMappedPages takes a read-only mapping's pages out of this process's
// resident set: they stay in the page cache, and a later read faults
// them in again. A full read touches the whole pack once.
func dropMappedPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
