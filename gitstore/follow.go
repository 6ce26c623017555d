package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// DefaultFollowPoll is how often WaitTip reads the ref when no filesystem
// notification wakes it: the fallback where notifications are missing
// (another OS, a network filesystem) or lost.
const DefaultFollowPoll = 2 * time.Second

// WaitTip blocks until the records branch points at a commit other than
// seen (the zero hash: the branch does not exist), or ctx ends; it returns
// the new tip. It does not busy-wait: it sleeps on filesystem notifications
// for the ref's loose file and packed-refs (where the platform has them)
// and reads the ref at least every poll as a fallback (≤ 0:
// DefaultFollowPoll). A writer in any process (this tool, git update-ref,
// a fetch, a sync, git pack-refs) wakes it. The branch may have moved more
// than once by the time it returns: the caller reads what lies between.
func (s *Store) WaitTip(ctx context.Context, seen plumbing.Hash, poll time.Duration) (plumbing.Hash, error) {
	if poll <= 0 {
		poll = DefaultFollowPoll
	}
	w := newRefWatcher(s.watchDirs())
	defer w.close()
	return s.waitTip(ctx, seen, poll, w)
}

func (s *Store) waitTip(ctx context.Context, seen plumbing.Hash, poll time.Duration, w *refWatcher) (plumbing.Hash, error) {
	for {
		// The watch is set before the ref is read, so a move after the
		// read is an event the wait below sees.
		tip, err := s.Tip()
		if err != nil || tip != seen {
			return tip, err
		}
		if err := w.wait(ctx, poll); err != nil {
			return seen, err
		}
	}
}

// watchDirs are the directories whose entries change when the ref moves:
// the loose ref's (or its nearest existing ancestor, for a ref whose
// directory does not exist yet) and the one holding packed-refs.
func (s *Store) watchDirs() []string {
	var dirs []string
	for _, f := range s.repo.RefFiles(s.ref) {
		d := filepath.Dir(f)
		for {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				break
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// sleepCtx sleeps for d or until ctx ends (then its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
