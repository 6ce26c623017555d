// Package serve is `git records serve`: the local, read-only web view
// (package web) on a loopback address. This package is the command as
// help, completion and the man pages show it; the server itself runs in
// git-records-server (package server), which git-records execs, so that
// net/http and html/template are not linked into every other command.
package serve

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ServeOptions are what serve is asked: where to listen, and whether a
// non-loopback address was meant.
type ServeOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	// AnotherReadService opens the store again: the view serves requests
	// at once, each with a service of its own.
	AnotherReadService func() (*service.Service, error)
	Printer            func() cmdutil.Printer
	// Context ends the serving: Ctrl-C or SIGTERM.
	Context func() (context.Context, context.CancelFunc)

	Addr        string
	AllowRemote bool
}

// Run serves opts. git-records-server sets it (package server); where it
// is nil, as in git-records, the command execs git-records-server on this
// process's arguments.
var Run func(*ServeOptions) error

// NewCmdServe is the serve command; runF (nil: Run, else exec
// git-records-server) runs it.
func NewCmdServe(f *cmdutil.Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IOStreams, ReadService: f.ReadService, AnotherReadService: f.AnotherReadService, Printer: f.Printer, Context: func() (context.Context, context.CancelFunc) {
		return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	}}
	c := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:PORT]",
		Short: "Browse the records in a local, read-only web view",
		Long: `serve runs a read-only web view of the records branch: the list with the
list filters, each record (its body rendered, wikilinks as links, its fields,
scope and freshness, links and backlinks, its neighbourhood as a picture and
its history with op, agent, signer and signature status), the proposals and
the conflicts. Every page reads the branch at its tip when it is asked for,
so the view follows the branch as it moves. Requests are served at once, so a
slow page holds up no other.

It listens on loopback only unless --allow-remote is given, answers GET and
HEAD only, serves nothing but the records branch and its own stylesheet, and
runs no script. Stop it with Ctrl-C.`,
		Example: `  git records serve                      # http://127.0.0.1:7070/
  git records serve --addr 127.0.0.1:0   # any free port; the URL is printed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case runF != nil:
				return runF(opts)
			case Run != nil:
				return Run(opts)
			}
			return cmdutil.ExecServer(os.Args[1:])
		},
	}
	c.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:7070", "listen on `HOST:PORT` (port 0: any free port)")
	c.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "allow an --addr other than loopback: anyone who reaches it reads every record")
	return c
}
