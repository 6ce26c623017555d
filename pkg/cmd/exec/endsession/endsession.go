// Package endsession is `git records exec end-session`: terminate or
// archive every open record a session owns, in one commit.
package endsession

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	execcmd "github.com/git-records/git-records/pkg/cmd/exec"
	"github.com/git-records/git-records/pkg/cmd/extension"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// EndSessionOptions are exec end-session's inputs.
type EndSessionOptions struct {
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	Input    kernel.ManageInput // State: terminated or archived
	Bind     service.BindOptions
	Approval cmdutil.ApprovalFlags
}

// NewCmdEndSession is the exec end-session command; runF (nil:
// endSessionRun) runs it.
func NewCmdEndSession(f *cmdutil.Factory, runF func(*EndSessionOptions) error) *cobra.Command {
	opts := &EndSessionOptions{Service: f.Service, Printer: f.Printer}
	var binds []string
	var archive, terminate bool
	c := &cobra.Command{
		Use:     "end-session --session S --agent A (--terminate | --archive)",
		Short:   "Close a session: terminate or archive every open record it owns, a receipt each, in one commit",
		Example: `  git records exec end-session --session s-42 --agent bot --terminate`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts.Bind); err != nil {
				return err
			}
			if archive == terminate {
				return kernel.Errorf(kernel.CodeUsage, "say what the session close does with open records: --terminate or --archive").WithExtra("flag", "--terminate")
			}
			opts.Input.State = kernel.ExecTerminated
			if archive {
				opts.Input.State = kernel.ExecArchived
			}
			if runF != nil {
				return runF(opts)
			}
			return endSessionRun(opts)
		},
	}
	c.Flags().BoolVar(&archive, "archive", false, "archive the open records")
	c.Flags().BoolVar(&terminate, "terminate", false, "terminate the open records")
	execcmd.ManageFlags(c, &opts.Input, &opts.Approval)
	extension.BindFlags(c, &binds, &opts.Bind)
	return c
}

func endSessionRun(opts *EndSessionOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.EndSession(opts.Input, opts.Bind, approval)
	if err != nil {
		return err
	}
	return execcmd.PrintClosed(opts.Printer(), service.ClosedBy(res))
}
