//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package testenv

import (
	"fmt"
	"os"
	"syscall"
)

// canLock says lock waits for whoever holds the lock.
const canLock = true

// lock takes an exclusive flock on path, waiting for whoever holds it,
// and returns its release. The kernel drops the lock when the process
// dies, so a killed test run leaves nothing held.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %v", path, err)
	}
	return func() { f.Close() }, nil
}
