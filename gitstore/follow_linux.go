//go:build linux

package gitstore

import (
	"context"
	"time"

	"golang.org/x/sys/unix"
)

// refWatcher sleeps on inotify events in the watched directories.
type refWatcher struct {
	fd int // -1 when inotify is unavailable: polling only
}

func newRefWatcher(dirs []string) *refWatcher {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return &refWatcher{fd: -1}
	}
	const mask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_DELETE | unix.IN_ATTRIB
	watched := 0
	for _, d := range dirs {
		if _, err := unix.InotifyAddWatch(fd, d, mask); err == nil {
			watched++
		}
	}
	if watched == 0 {
		unix.Close(fd)
		return &refWatcher{fd: -1}
	}
	return &refWatcher{fd: fd}
}

// wait returns after an event, after poll, or with ctx's error when it ends.
func (w *refWatcher) wait(ctx context.Context, poll time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// ctx's end must wake the poll: a pipe whose read end is polled too.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return sleepCtx(ctx, poll)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	stop := context.AfterFunc(ctx, func() { unix.Write(p[1], []byte{0}) })
	defer stop()
	fds := []unix.PollFd{{Fd: int32(p[0]), Events: unix.POLLIN}}
	if w.fd >= 0 {
		fds = append(fds, unix.PollFd{Fd: int32(w.fd), Events: unix.POLLIN})
	}
	deadline := time.Now().Add(poll)
	for {
		ms := int(time.Until(deadline) / time.Millisecond)
		if ms <= 0 {
			return nil
		}
		n, err := unix.Poll(fds, ms)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return sleepCtx(ctx, time.Until(deadline))
		}
		if n > 0 {
			w.drain()
			return ctx.Err()
		}
	}
}

// drain reads the queued events: which file changed does not matter, the
// caller reads the ref.
func (w *refWatcher) drain() {
	if w.fd < 0 {
		return
	}
	var buf [4096]byte
	for {
		if n, err := unix.Read(w.fd, buf[:]); n <= 0 || err != nil {
			return
		}
	}
}

func (w *refWatcher) close() {
	if w.fd >= 0 {
		unix.Close(w.fd)
	}
}
