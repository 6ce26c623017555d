//go:build !linux

package gitstore

import (
	"context"
	"time"
)

// refWatcher polls: no filesystem notification is used on this platform.
type refWatcher struct{}

func newRefWatcher([]string) *refWatcher { return &refWatcher{} }

func (w *refWatcher) wait(ctx context.Context, poll time.Duration) error { return sleepCtx(ctx, poll) }

func (w *refWatcher) close() {}
