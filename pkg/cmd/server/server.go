// Package server runs the long-running commands, mcp and serve, for
// git-records-server: the MCP server on stdio and the read-only web view.
// Their commands (flags, help) live in packages mcp and serve, which
// git-records links; git-records execs git-records-server to run them, so
// the MCP SDK, net/http and html/template initialise only in a server.
package server

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

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/mcpserver"
	"github.com/git-records/git-records/pkg/cmd/agent/mcp"
	"github.com/git-records/git-records/pkg/cmd/store/serve"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/web"
)

// Install makes the mcp and serve commands run here rather than exec
// git-records-server: what git-records-server's main does first. Each
// first refuses a git-records of another build that exec'd it
// (cmdutil.CheckClientBuild).
func Install() {
	mcp.Run = func(opts *mcp.MCPOptions) error {
		if err := cmdutil.CheckClientBuild(); err != nil {
			return err
		}
		return MCP(opts)
	}
	serve.Run = func(opts *serve.ServeOptions) error {
		if err := cmdutil.CheckClientBuild(); err != nil {
			return err
		}
		return Serve(opts)
	}
}

// MCP serves the store over the Model Context Protocol on stdin and
// stdout until the client hangs up or a signal ends it.
func MCP(opts *mcp.MCPOptions) error {
	return mcpRun(opts, mcpserver.StdioTransport(os.Stdin, os.Stdout))
}

// Serve is serveRun.
func Serve(opts *serve.ServeOptions) error { return serveRun(opts) }

func mcpRun(opts *mcp.MCPOptions, transport sdk.Transport) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	server := mcpserver.Options{Agent: opts.Agent, Poll: opts.Poll, Version: cmdutil.Version()}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = mcpserver.New(svc, server).Run(ctx, transport)
	// Close waits for an index merge the server started off the write path
	// and removes its file when nothing installed it: a server that exits
	// mid-merge must not leave a temporary file the size of the index.
	closeErr := svc.Close()
	if err != nil && ctx.Err() == nil {
		return kernel.Wrap(kernel.CodeInternal, err, "mcp")
	}
	if closeErr != nil {
		return kernel.Wrap(kernel.CodeInternal, closeErr, "mcp: close the store")
	}
	return nil
}

// serveRun listens on opts.Addr and serves the web view until the context
// ends. It prints the URL once it listens ({"url"} with --json). The
// address is checked before the store is opened.
func serveRun(opts *serve.ServeOptions) error {
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
	ws := web.New(svc, opts.AnotherReadService)
	defer ws.Close()
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
		_, err := fmt.Fprintf(w, "serving %s read-only at %s (Ctrl-C stops)\n", svc.Ref(), u)
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
