// Command git-records keeps signed, linked knowledge records on a git
// branch. Installed on PATH as git-records it also runs as `git records …`.
// The commands live in pkg/cmd; this builds the Factory and runs the root.
package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/git-records/git-records/pkg/cmd/root"
	"github.com/git-records/git-records/pkg/cmdutil"
)

func main() {
	tuneGC()
	f := cmdutil.New(cmdutil.System())
	os.Exit(root.Run(f, root.NewCmdRootFor(f, os.Args[1:]), os.Args[1:]))
}

// tuneGC sets the collector up for a short-lived process. One command
// allocates a few megabytes (a pack index, a few records; the index is
// mapped, not decoded) and exits; with the default GOGC=100 it collects
// several times on the way, from a heap that starts at 4 MiB, and on a busy
// machine those cycles were about a third of a create or a show (make
// bench). So nothing is collected until the heap reaches 64 MiB; an op that
// gets there (list --json or a reindex of a large store, which stream) is a
// long one, and from its first collection on the usual settings apply, so
// its memory stays proportional to its live heap rather than to what it
// read. GOGC or GOMEMLIMIT in the environment win.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(64 << 20)
	sentinel := new([64]byte) // large enough not to share a tiny-allocator block
	runtime.SetFinalizer(sentinel, func(*[64]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
