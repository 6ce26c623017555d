// Package cmdutil is what every command of the CLI shares: the Factory of
// its dependencies (streams, the store and the service, opened lazily so
// `--help` and usage errors never touch a repository), the Printer, the
// exit codes and the CLI wording of kernel errors, and the flag helpers.
// Commands live in pkg/cmd/<noun>/<verb>; see docs/design.md.
package cmdutil

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// Factory holds what a command needs, built on first use. The root command
// binds the global flags to its fields; a command copies the parts it uses
// into its options (as func fields, so a test can swap one).
type Factory struct {
	IOStreams *IOStreams

	// Global flags.
	JSON     bool   // --json
	StoreDir string // --store DIR
	Ref      string // --ref
	Color    string // --color: auto, always, never
	NoPager  bool   // --no-pager

	// WorkDir is where the repository is looked for ("" is the working
	// directory); in-process tests set it instead of changing directory.
	WorkDir string
	// StoreOptions are the options every store is opened with (Ref is
	// --ref's); tests set a clock.
	StoreOptions service.Options

	call service.Call
	svc  *service.Service
}

// New is the Factory of a run over streams.
func New(streams *IOStreams) *Factory { return &Factory{IOStreams: streams, Color: "auto"} }

// SetCall names the run's call (front, op, input) that the audit line of
// its op records.
func (f *Factory) SetCall(c service.Call) {
	f.call = c
	if f.svc != nil {
		f.svc.SetCall(c)
	}
}

// Call is the run's call.
func (f *Factory) Call() service.Call { return f.call }

// CLICall is a command line as the audit names it: the command, and as its
// input the arguments and the flags given.
func CLICall(cmd *cobra.Command, args []string) service.Call {
	flags := map[string]string{}
	cmd.Flags().Visit(func(f *pflag.Flag) { flags[f.Name] = f.Value.String() })
	agent := ""
	if f := cmd.Flags().Lookup("agent"); f != nil {
		agent = f.Value.String()
	}
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return service.Call{Front: "cli", Op: name, Agent: agent, Input: map[string]any{"command": name, "args": args, "flags": flags}}
}

// Service is the one implementation of the ops over the store of this
// run: the standalone one with --store (created on first use), else the
// repository around the working directory. It is opened once.
func (f *Factory) Service() (*service.Service, error) {
	if f.svc != nil {
		return f.svc, nil
	}
	svc, err := f.open()
	if err != nil {
		return nil, err
	}
	f.svc = svc
	return svc, nil
}

// ReadService is the service for a command that reads the records branch.
// A fresh clone whose remote has a records branch must not look like an
// empty store: the reader is told to pull. Without a records branch
// anywhere the store is simply empty.
func (f *Factory) ReadService() (*service.Service, error) {
	svc, err := f.Service()
	if err != nil || f.StoreDir != "" {
		return svc, err
	}
	if err := svc.RequireBranch(); err != nil {
		if e, ok := err.(*kernel.Error); ok && e.Extra["remote"] == nil {
			return svc, nil // no branch here or on the default remote: an empty store
		}
		return nil, err
	}
	return svc, nil
}

// AnotherReadService opens the store again, apart from Service's, for a
// server that serves requests at once, each with a service of its own.
func (f *Factory) AnotherReadService() (*service.Service, error) { return f.open() }

// OpenedService is the service this run opened; nil when it opened none.
func (f *Factory) OpenedService() *service.Service { return f.svc }

func (f *Factory) open() (*service.Service, error) {
	opts := f.StoreOptions
	opts.Ref = f.Ref
	var (
		svc *service.Service
		err error
	)
	if f.StoreDir != "" {
		svc, err = service.OpenStandalone(f.StoreDir, opts, f.WorkDir)
		if c := kernel.CodeOf(err); c == kernel.CodeUsage || c == kernel.CodeNotAStore {
			err = AboutFlag("--store", err) // the directory cannot hold a store
		}
	} else {
		wd := f.WorkDir
		if wd == "" {
			wd, err = os.Getwd()
		}
		if err == nil {
			svc, err = service.Open(wd, opts)
		}
	}
	if err != nil {
		return nil, err
	}
	svc.SetCall(f.call)
	svc.CheckoutMoved = f.noteCheckout
	return svc, nil
}

// noteCheckout says, like git update-ref would not, that a write moved the
// branch under a checkout of it, so a later hand commit does not undo it.
func (f *Factory) noteCheckout(ref string, worktrees []string, commit string) {
	c := commit[:min(12, len(commit))]
	fmt.Fprintf(f.IOStreams.ErrOut, "git-records: note: %s is checked out in %s and moved to %s; bring that checkout along (git read-tree -m -u %s^ %s) before committing there by hand\n",
		ref, strings.Join(worktrees, ", "), c, c, c)
}

// Config reads the repository's git configuration, or nothing outside a
// repository.
func (f *Factory) Config() func(string) (string, bool) {
	if svc, err := f.Service(); err == nil {
		return svc.ConfigValue
	}
	return nil
}

// Printer prints the command's result to stdout (the pager when one runs).
func (f *Factory) Printer() Printer { return Printer{Out: f.IOStreams.Out, JSONOn: f.JSON} }

// ColorOn reports whether cmd colours what it writes to w: --color, the
// repository's color.ui, a terminal, NO_COLOR.
func (f *Factory) ColorOn(cmd *cobra.Command, w io.Writer) bool {
	mode := f.Color
	changed := cmd.Flags().Changed("color")
	if f.IOStreams.colorForced && mode == "auto" && !changed {
		mode = "always"
	}
	return UseColor(ColorMode(mode, changed, f.Config()), w)
}

// PagedCommands print what can run past a screen.
var PagedCommands = map[string]bool{"show": true, "list": true, "log": true, "links": true, "graph": true, "diff": true,
	"blame": true, "search": true, "proposals": true, "conflicts": true, "audit": true}

// StartPager sends the rest of cmd's output through the pager, as git does
// for long output: only for a paged command on a terminal, never with
// --json or --no-pager.
func (f *Factory) StartPager(cmd *cobra.Command) {
	if f.NoPager || f.JSON || !PagedCommands[cmd.Name()] || cmd.Parent() != cmd.Root() || !f.IOStreams.IsStdoutTTY() {
		return
	}
	f.IOStreams.StartPager(PagerCommand(f.Config()))
}

// PrintWritten reports a mutation: the id (and commit) for people, JSON for machines.
func (f *Factory) PrintWritten(res *service.WriteResult) error {
	p := f.Printer()
	if p.JSONOn {
		return p.JSON(res)
	}
	if res.Unchanged {
		_, err := fmt.Fprintf(p.Out, "%s unchanged\n", res.ID)
		return err
	}
	_, err := fmt.Fprintln(p.Out, res.ID)
	return err
}

// Version is the module version the binary was built from (go install
// …@v1.2.3), or "devel" for a build from a checkout.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
