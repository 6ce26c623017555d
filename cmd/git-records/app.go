package main

import (
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// This file is the adapter that keeps the commands not yet moved into
// pkg/cmd/<noun>/<verb> running on the command layer: app holds what
// they read (streams, global flags, the store) as fields, copied from the
// Factory when one of them runs (see legacyCommands). It goes away with the
// last of them.

// Exit codes, as the tests of this package name them.
const (
	exitOK       = cmdutil.ExitOK
	exitRefused  = cmdutil.ExitRefused
	exitUsage    = cmdutil.ExitUsage
	exitConflict = cmdutil.ExitConflict
	exitDenied   = cmdutil.ExitDenied
	exitSetup    = cmdutil.ExitSetup
	exitInternal = cmdutil.ExitInternal
)

func exitCode(code kernel.Code) int { return cmdutil.ExitCode(code) }

// errSilent is cmdutil.SilentError.
var errSilent = cmdutil.SilentError

// app is what the commands not yet moved share.
type app struct {
	f *cmdutil.Factory

	in       io.Reader
	out, err io.Writer

	jsonOut  bool
	storeDir string
	ref      string

	store *gitstore.Store
	call  gitstore.Call // this run's call, which the audit line of its op names

	approval cmdutil.ApprovalFlags
}

func newApp(f *cmdutil.Factory) *app {
	a := &app{f: f}
	a.sync()
	return a
}

// sync copies the Factory's streams and global flags, as parsed and with
// the pager started, into the fields the commands read.
func (a *app) sync() {
	a.in, a.out, a.err = a.f.IOStreams.In, a.f.IOStreams.Out, a.f.IOStreams.ErrOut
	a.jsonOut, a.storeDir, a.ref = a.f.JSON, a.f.StoreDir, a.f.Ref
	a.call = a.f.Call()
}

// legacyCommands are the commands not yet moved, each run after sync.
func legacyCommands(f *cmdutil.Factory) []*cobra.Command {
	a := newApp(f)
	cmds := a.commands()
	var wrap func(c *cobra.Command)
	wrap = func(c *cobra.Command) {
		if run := c.RunE; run != nil {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				a.sync()
				return run(cmd, args)
			}
		}
		for _, sub := range c.Commands() {
			wrap(sub)
		}
	}
	for _, c := range cmds {
		wrap(c)
	}
	return cmds
}

func (a *app) commands() []*cobra.Command {
	return []*cobra.Command{}
}

// approvalFlags adds the risk gate's approvals to a write command.
func (a *app) approvalFlags(c *cobra.Command) { a.approval.Register(c) }

// gateApproval is the approval this run brings for the store's policy gate.
func (a *app) gateApproval() (kernel.Approval, error) { return a.approval.Approval() }

// open returns the store (cmdutil.Factory.Store) with this run's call.
func (a *app) open() (*gitstore.Store, error) {
	a.f.SetCall(a.call)
	s, err := a.f.Store()
	if s != nil {
		a.store = s
	}
	return s, err
}

// openBranch opens the store for a command that reads the records branch
// (cmdutil.Factory.Branch).
func (a *app) openBranch() (*gitstore.Store, error) {
	a.f.SetCall(a.call)
	s, err := a.f.Branch()
	if s != nil {
		a.store = s
	}
	return s, err
}

func (a *app) service() (*service.Service, error) {
	s, err := a.open()
	if err != nil {
		return nil, err
	}
	return service.New(s, ""), nil
}

func (a *app) readService() (*service.Service, error) {
	s, err := a.openBranch()
	if err != nil {
		return nil, err
	}
	return service.New(s, ""), nil
}

func (a *app) view() (*gitstore.View, error) {
	s, err := a.openBranch()
	if err != nil {
		return nil, err
	}
	return s.View()
}

// write runs one op through the service with this run's approval
// (cmdutil.Factory.Write).
func (a *app) write(op func(*service.Service, kernel.Approval) (*service.WriteResult, error)) (*service.WriteResult, error) {
	a.f.SetCall(a.call)
	res, err := a.f.Write(&a.approval, op)
	if s, _ := a.f.Store(); s != nil {
		a.store = s
	}
	return res, err
}

// mutate commits a decision with no service op of its own.
func (a *app) mutate(handle string, decide gitstore.Decision) (*service.WriteResult, error) {
	a.f.SetCall(a.call)
	return a.f.Mutate(&a.approval, handle, decide)
}

func (a *app) colorOn(cmd *cobra.Command, w io.Writer) bool { return a.f.ColorOn(cmd, w) }

func (a *app) printError(e *kernel.Error) { a.printer().p().Error(a.err, e) }

func (a *app) writeJSON(v any) { _ = a.printer().JSON(v) }

func (a *app) printWritten(res *service.WriteResult) { _ = a.f.PrintWritten(res) }

func (a *app) readBody(body, bodyFile string, dash bool, set bool) (*string, error) {
	return cmdutil.ReadBody(a.in, body, bodyFile, dash, set)
}

func agentFlag(c *cobra.Command, agent *string) { cmdutil.AgentFlag(c, agent) }

func parseLinkFlags(specs []string) []kernel.Link { return cmdutil.ParseLinkFlags(specs) }

func version() string { return cmdutil.Version() }

// printer is cmdutil.Printer as the commands not yet moved spell it.
type printer struct {
	out  io.Writer
	json bool
}

func (a *app) printer() printer { return printer{out: a.out, json: a.jsonOut} }

func (p printer) p() cmdutil.Printer { return cmdutil.Printer{Out: p.out, JSONOn: p.json} }

func (p printer) JSON(v any) error { return p.p().JSON(v) }

func (p printer) JSONArray(each func(emit func(any) error) error) error {
	return p.p().JSONArray(each)
}

func (p printer) Text(write func(io.Writer) error) error { return write(p.out) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (a *app) noteCheckout(res *service.WriteResult) { a.f.NoteCheckout(res) }
