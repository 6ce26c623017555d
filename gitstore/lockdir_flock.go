//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package gitstore

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive flock on the directory dir, waiting for any
// holder, and returns its release. The kernel drops the lock when the
// process dies, so a crash during setup never leaves the store locked.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
