// Command git-records keeps signed, linked knowledge records on a git
// branch. Installed on PATH as git-records it also runs as `git records …`.
package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

func main() {
	tuneGC()
	os.Exit(newApp(os.Stdin, os.Stdout, os.Stderr).run(os.Args[1:]))
}

// tuneGC sets the collector up for a short-lived process. One command
// allocates some megabytes (the index cache, a pack index, a few records)
// and exits; with the default GOGC=100 it collects several times on the way,
// from a heap that starts at 4 MiB, and on a busy machine those cycles were
// about a third of a create or a show at 10,000 records (make bench). So
// nothing is collected until the heap reaches 256 MiB; an op that gets there
// (a reindex of a very large store) is a long one, and from its first
// collection on the usual settings apply, so its memory stays proportional
// to its live heap. GOGC or GOMEMLIMIT in the environment win.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(256 << 20)
	sentinel := new([64]byte) // large enough not to share a tiny-allocator block
	runtime.SetFinalizer(sentinel, func(*[64]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
