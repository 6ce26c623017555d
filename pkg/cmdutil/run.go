package cmdutil

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/git-records/git-records/kernel"
)

// BindGlobalFlags adds the flags every command takes to root, bound to f,
// and what runs before any command: the call the audit names, the --color
// check, the pager. The root command and the in-process tests (cmdtest)
// use the same.
func (f *Factory) BindGlobalFlags(root *cobra.Command) {
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.PersistentFlags().BoolVar(&f.JSON, "json", false, "print JSON (errors as {\"error\":{\"code\",\"message\"}})")
	root.PersistentFlags().StringVar(&f.StoreDir, "store", "", "use the standalone store in `DIR` (created on first use)")
	root.PersistentFlags().StringVar(&f.Ref, "ref", "", "records branch (default: git config records.ref, else refs/heads/records)")
	root.PersistentFlags().StringVar(&f.Color, "color", "auto", "colour on a terminal: auto (not in a pipe, not with NO_COLOR; git's color.ui decides when set), always, never")
	root.PersistentFlags().BoolVar(&f.NoPager, "no-pager", false, "do not page long output (GIT_PAGER, core.pager, PAGER, less)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := checkUTF8Input(cmd, args); err != nil {
			return err
		}
		// Given empty, they would silently mean "not given": another store.
		for _, fl := range []struct{ name, value, wants string }{{"store", f.StoreDir, "a directory"}, {"ref", f.Ref, "a branch"}} {
			if fl.value == "" && cmd.Flags().Changed(fl.name) {
				return kernel.Errorf(kernel.CodeUsage, "--%s is empty: give %s, or leave the flag out", fl.name, fl.wants).WithExtra("flag", "--"+fl.name)
			}
		}
		f.SetCall(CLICall(cmd, args))
		if err := OneOf("--color", f.Color, []string{"auto", "always", "never"}); err != nil {
			return err
		}
		f.StartPager(cmd)
		return nil
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return flagError(err)
	})
}

// flagError is a flag that did not parse as a usage error, naming the
// flag when it exists (a value it cannot take, a value left out).
func flagError(err error) error {
	e := kernel.Errorf(kernel.CodeUsage, "%v", err)
	var invalid *pflag.InvalidValueError
	var required *pflag.ValueRequiredError
	switch {
	case errors.As(err, &invalid):
		return e.WithExtra("flag", "--"+invalid.GetFlag().Name)
	case errors.As(err, &required):
		return e.WithExtra("flag", "--"+required.GetFlag().Name)
	}
	return e
}

// GitInvoked annotates a command that git runs (a hook, the merge driver):
// its arguments are what git hands it, paths and ref names, which git
// lets hold any byte, so they are not held to UTF-8.
const GitInvoked = "git-invoked"

// checkUTF8Input refuses a flag value or an argument that is not UTF-8
// (kernel.CheckUTF8, as the contract and MCP check their requests),
// naming the flag, before any of it is decoded or stored.
func checkUTF8Input(cmd *cobra.Command, args []string) error {
	if _, ok := cmd.Annotations[GitInvoked]; ok {
		return nil
	}
	var err error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		values := []string{fl.Value.String()}
		if s, ok := fl.Value.(pflag.SliceValue); ok {
			values = s.GetSlice()
		}
		for _, v := range values {
			if err == nil {
				err = kernel.CheckUTF8("--"+fl.Name, v)
			}
		}
	})
	for i, a := range args {
		if err == nil {
			err = kernel.CheckUTF8(fmt.Sprintf("argument %d of %s", i+1, cmd.Name()), a)
		}
	}
	return err
}

// Execute runs root with args and returns the exit status: an error is
// reported (as the JSON envelope with --json) and mapped to its code; a
// SilentError has been reported by the command and exits 1. A panic is a
// bug: INTERNAL (exit 70) with its trace on stderr, never the runtime's
// exit 2, which would read as a usage error.
func Execute(f *Factory, root *cobra.Command, args []string) (exit int) {
	prepare(root)
	root.SetArgs(args)
	root.SetIn(f.IOStreams.In)
	root.SetOut(f.IOStreams.Out)
	root.SetErr(f.IOStreams.ErrOut)
	var cmd *cobra.Command
	defer func() {
		if p := recover(); p != nil {
			f.IOStreams.StopPager()
			fmt.Fprintf(f.IOStreams.ErrOut, "git-records: panic: %v\n%s", p, debug.Stack())
			exit = report(f, cmd, args, kernel.Errorf(kernel.CodeInternal, "git-records failed: %v (a bug: the trace is on stderr)", p))
		}
	}()
	cmd, err := root.ExecuteC()
	f.IOStreams.StopPager()
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, SilentError) {
		return ExitRefused
	}
	if errors.Is(err, SkippedError) {
		return ExitSkipped
	}
	return report(f, cmd, args, AsKernelError(err))
}

// report prints the error a run of cmd (nil: unknown) ended with and
// returns its exit status.
func report(f *Factory, cmd *cobra.Command, args []string, ke *kernel.Error) int {
	if !f.JSON {
		f.JSON = JSONRequested(args)
	}
	f.Printer().Error(f.IOStreams.ErrOut, InCLITermsOf(cmd, ke))
	return ExitCode(ke.Code)
}

// prepare readies the command tree under c for a run. A parent command
// refuses an unknown subcommand as a usage error (cobra would print its
// help and exit 0, so a typo in a script passes). An error a command
// returns without a code is INTERNAL: what reaches Execute uncoded
// otherwise is cobra's own (arguments, flags, unknown commands), a usage
// error, and a failure of the command itself must not read as one.
func prepare(c *cobra.Command) {
	if c.HasParent() && c.HasSubCommands() && !c.Runnable() {
		c.RunE = unknownSubcommand
	}
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error { return coded(run(cmd, args)) }
	}
	for _, sub := range c.Commands() {
		prepare(sub)
	}
}

// unknownSubcommand runs a parent command: its help without arguments,
// else a usage error naming the unknown subcommand.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q: one of %s", args[0], cmd.CommandPath(), strings.Join(names, ", "))
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default for the root
	}
	if guess := cmd.SuggestionsFor(args[0]); len(guess) > 0 {
		msg += "; did you mean " + strings.Join(guess, " or ") + "?"
	}
	return kernel.Errorf(kernel.CodeUsage, "%s", msg)
}

// coded is err with a code: INTERNAL when it carries none.
func coded(err error) error {
	var ke *kernel.Error
	if err == nil || errors.Is(err, SilentError) || errors.As(err, &ke) {
		return err
	}
	return &kernel.Error{Code: kernel.CodeInternal, Message: err.Error(), Err: err}
}
