// A process of this binary lives milliseconds (reindex, verify and an
// import of a large store seconds): the runtime goroutine that re-reads
// the cgroup's CPU limit every second to move GOMAXPROCS (Go 1.25) is
// started in every one of them for nothing, so it is off. The
// container-aware default itself stays on: a CPU-limited container still
// starts with GOMAXPROCS at its limit, by which reindex's and list's
// parallel decode, verify's signature checks and import size their
// workers. (containermaxprocs=0 would save nothing at start: the runtime
// reads /proc/self/cgroup and mountinfo either way, golang/go#77911.)
// git-records-server, which runs for hours, keeps the update.

//go:debug updatemaxprocs=0

// Command git-records keeps signed, linked knowledge records on a git
// branch. Installed on PATH as git-records it also runs as `git records …`.
// The commands live in pkg/cmd; this builds the Factory and runs the root.
package main

import (
	"os"

	"github.com/git-records/git-records/pkg/cmd/root"
	"github.com/git-records/git-records/pkg/cmdutil"
)

func main() {
	cmdutil.TuneGC()
	f := cmdutil.New(cmdutil.System())
	os.Exit(root.Main(f, os.Args[1:]))
}
