//go:build unix

package transfer

import (
	"errors"
	"io"
	"io/fs"
	"syscall"
)

// openNote opens a note with plain system calls. os.Open also makes the
// descriptor non-blocking and offers it to the runtime's poller (an fcntl
// and an epoll_ctl that fails for a regular file); for a vault of
// thousands of small notes those cost about as much as the reads.
//
// The walk chose p as a regular file, but what p names may have changed
// since: it must still be one. O_NOFOLLOW refuses a symbolic link put in
// its place (it could name a file outside the vault), O_NONBLOCK keeps a
// FIFO from blocking the open until some writer comes (forever), and the
// fstat refuses what is not a regular file (a FIFO, a device such as
// /dev/zero). O_NONBLOCK changes nothing for a regular file's reads.
func openNote(p string) (io.ReadCloser, int64, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, 0, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, 0, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, 0, &fs.PathError{Op: "open", Path: p, Err: errNotRegular}
	}
	return &noteFile{fd: fd, path: p}, st.Size, nil
}

var errNotRegular = errors.New("not a regular file (it changed since the folder was listed)")

type noteFile struct {
	fd   int
	path string
}

func (f *noteFile) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.path, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *noteFile) Close() error { return syscall.Close(f.fd) }
