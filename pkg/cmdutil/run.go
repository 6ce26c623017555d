package cmdutil

import (
	"errors"

	"github.com/spf13/cobra"

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
