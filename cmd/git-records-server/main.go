// Command git-records-server runs git-records' long-running commands, mcp
// (the store over the Model Context Protocol on stdio) and serve (the
// read-only web view). `git records mcp …` and `git records serve …` exec
// it with their own arguments, environment and open files, as git runs
// git-remote-https: its dependencies (the MCP SDK, net/http,
// html/template) are then initialised by servers only, never by a show or
// a --version. Installed next to git-records (go install …/cmd/...).
//
// It takes git-records' whole command line, so it runs every other
// command as git-records does.
package main

import (
	"os"

	"github.com/git-records/git-records/pkg/cmd/root"
	"github.com/git-records/git-records/pkg/cmd/server"
	"github.com/git-records/git-records/pkg/cmdutil"
)

func main() {
	server.Install()
	cmdutil.TuneGC()
	f := cmdutil.New(cmdutil.System())
	os.Exit(root.Main(f, os.Args[1:]))
}
