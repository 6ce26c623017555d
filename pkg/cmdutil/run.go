package cmdutil

import (
	"errors"
	"fmt"

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
		f.SetCall(CLICall(cmd, args))
		if err := OneOf("--color", f.Color, []string{"auto", "always", "never"}); err != nil {
			return err
		}
		f.StartPager(cmd)
		return nil
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return kernel.Errorf(kernel.CodeUsage, "%v", err)
	})
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
// SilentError has been reported by the command and exits 1.
func Execute(f *Factory, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	root.SetIn(f.IOStreams.In)
	root.SetOut(f.IOStreams.Out)
	root.SetErr(f.IOStreams.ErrOut)
	err := root.Execute()
	f.IOStreams.StopPager()
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, SilentError) {
		return ExitRefused
	}
	ke := AsKernelError(err)
	if !f.JSON {
		f.JSON = JSONRequested(args)
	}
	f.Printer().Error(f.IOStreams.ErrOut, InCLITerms(ke))
	return ExitCode(ke.Code)
}
