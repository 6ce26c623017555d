// Package serve is `git records serve`: the local, read-only web view
// (package web) on a loopback address.
package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
	"github.com/git-records/git-records/web"
)

// ServeOptions are what serve is asked: where to listen, and whether a
// non-loopback address was meant.
type ServeOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer
	// Context ends the serving: Ctrl-C or SIGTERM.
	Context func() (context.Context, context.CancelFunc)

	Addr        string
	AllowRemote bool
}

// NewCmdServe is the serve command; runF (nil: serveRun) runs it.
func NewCmdServe(f *cmdutil.Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer, Context: func() (context.Context, context.CancelFunc) {
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
so the view follows the branch as it moves.

It listens on loopback only unless --allow-remote is given, answers GET and
HEAD only, serves nothing but the records branch and its own stylesheet, and
runs no script. Stop it with Ctrl-C.`,
		Example: `  git records serve                      # http://127.0.0.1:7070/
  git records serve --addr 127.0.0.1:0   # any free port; the URL is printed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return serveRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:7070", "listen on `HOST:PORT` (port 0: any free port)")
	c.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "allow an --addr other than loopback: anyone who reaches it reads every record")
	return c
}

// serveRun listens on opts.Addr and serves the web view until the context
// ends. It prints the URL once it listens ({"url"} with --json). The
// address is checked before the store is opened.
func serveRun(opts *ServeOptions) error {
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return kernel.Errorf(kernel.CodeUsage, "--addr %q is not HOST:PORT: %v", opts.Addr, err).WithExtra("flag", "--addr")
	}
	if !web.IsLoopback(host) {
		if !opts.AllowRemote {
			return kernel.Errorf(kernel.CodeUsage, "--addr %q is not a loopback address: anyone who reaches it could read every record; use 127.0.0.1:PORT, or pass --allow-remote if that is what you want", opts.Addr).WithExtra("flag", "--addr")
		}
		fmt.Fprintf(opts.IO.ErrOut, "git-records: warning: serving on %s, beyond this machine: anyone who reaches it reads every record\n", opts.Addr)
	}
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	ws := web.New(svc)
	ws.AllowAnyHost = opts.AllowRemote
	ctx, stop := opts.Context()
	defer stop()
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return kernel.Wrap(kernel.CodeUsage, err, "listen on --addr %s", opts.Addr)
	}
	u := "http://" + ln.Addr().String() + "/"
	p := opts.Printer()
	err = p.Result(map[string]string{"url": u}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "serving %s read-only at %s (Ctrl-C stops)\n", svc.Store.Ref(), u)
		return err
	})
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: ws, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return kernel.Wrap(kernel.CodeInternal, err, "serve")
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
		return nil
	}
}
