// Command git-records keeps signed, linked knowledge records on a git
// branch. Installed on PATH as git-records it also runs as `git records …`.
// The commands live in pkg/cmd; this builds the Factory and runs the root.
package main

import (
	"os"

	_ "github.com/git-records/git-records/internal/mainstack" // the stack package init needs, grown at once
	"github.com/git-records/git-records/pkg/cmd/root"
	"github.com/git-records/git-records/pkg/cmdutil"
)

func main() {
	cmdutil.TuneGC()
	f := cmdutil.New(cmdutil.System())
	os.Exit(root.Run(f, root.NewCmdRootFor(f, os.Args[1:]), os.Args[1:]))
}
