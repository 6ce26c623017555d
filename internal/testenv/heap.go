package testenv

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// PeakLiveHeap runs fn and returns the most heap that was live while it
// ran, above what was live before: what fn holds at once, not what it
// allocates over time. The garbage collector runs often meanwhile (at
// every 5% of growth), each collection counting the heap then live, and a
// reader of the runtime's metrics keeps the largest count; fn must run
// long enough to see collections (tens of milliseconds).
func PeakLiveHeap(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() uint64 {
		metrics.Read(live)
		return live[0].Value.Uint64()
	}
	// Twice: the first moves what sync.Pools hold to their victim
	// caches, the second drops it, so it does not count as before.
	runtime.GC()
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	var done atomic.Bool
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for !done.Load() {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			time.Sleep(500 * time.Microsecond)
		}
	}()
	fn()
	done.Store(true)
	<-stopped
	return max(peak.Load(), base) - base
}
