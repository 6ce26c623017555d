package cmdutil

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// The collector's settings for one CLI process: TuneGC sets them up,
// PreferGCPercent lets a command lower the target its heap grows to.
var gc struct {
	mu      sync.Mutex
	tuned   bool // TuneGC's settings are in force (the CLI, GOGC and GOMEMLIMIT unset)
	settled bool // the first collection ran: percent is in force
	percent int  // the GC percent from the first collection on
}

// TuneGC sets the collector up for a short-lived process. One command
// allocates a few megabytes (a pack index, a few records; the index is
// mapped, not decoded) and exits; with the default GOGC=100 it collects
// several times on the way, from a heap that starts at 4 MiB, and on a busy
// machine those cycles were about a third of a create or a show (make
// bench). So nothing is collected until the heap reaches 64 MiB; an op that
// gets there (list --json or a reindex of a large store, which stream) is a
// long one, and from its first collection on the usual settings apply (GC
// percent 100, or what the command asked for with PreferGCPercent), so its
// memory stays proportional to its live heap rather than to what it read.
// GOGC or GOMEMLIMIT in the environment win. main calls it once, first.
func TuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	gc.mu.Lock()
	gc.tuned, gc.settled, gc.percent = true, false, 100
	gc.mu.Unlock()
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(64 << 20)
	sentinel := new([64]byte) // large enough not to share a tiny-allocator block
	runtime.SetFinalizer(sentinel, func(*[64]byte) {
		gc.mu.Lock()
		defer gc.mu.Unlock()
		gc.settled = true
		debug.SetGCPercent(gc.percent)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

// PreferGCPercent asks for percent in place of 100 once the first
// collection has run (at once if it has). A command whose live heap is
// large to the end (reindex builds the whole base in memory) trades some
// collections for a peak of about (1+percent/100)× that heap rather than 2×.
// It does nothing where TuneGC did not set the collector up: GOGC or
// GOMEMLIMIT in the environment, or a command run in-process by a test.
func PreferGCPercent(percent int) {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	if !gc.tuned {
		return
	}
	gc.percent = percent
	if gc.settled {
		debug.SetGCPercent(percent)
	}
}
