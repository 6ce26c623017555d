// Package manage is `git records exec cancel` and `exec close`: the
// manage ops on an open execution record you own.
package manage

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	execcmd "github.com/git-records/git-records/pkg/cmd/exec"
	"github.com/git-records/git-records/pkg/cmd/extension"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ManageOptions are exec cancel's and exec close's inputs.
type ManageOptions struct {
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	Op       kernel.Op // OpCancel or OpClose
	Handle   string
	Input    kernel.ManageInput
	Bind     service.BindOptions
	Approval cmdutil.ApprovalFlags
}

// NewCmdCancel is the exec cancel command; runF (nil: manageRun) runs it.
func NewCmdCancel(f *cmdutil.Factory, runF func(*ManageOptions) error) *cobra.Command {
	return newCmdManage(f, kernel.OpCancel, "Cancel an open execution record you own (receipt keeps the creator lineage)", runF)
}

// NewCmdClose is the exec close command; runF (nil: manageRun) runs it.
func NewCmdClose(f *cmdutil.Factory, runF func(*ManageOptions) error) *cobra.Command {
	return newCmdManage(f, kernel.OpClose, "Close an open execution record you own as completed or failed", runF)
}

func newCmdManage(f *cmdutil.Factory, op kernel.Op, short string, runF func(*ManageOptions) error) *cobra.Command {
	opts := &ManageOptions{Service: f.Service, Printer: f.Printer, Op: op}
	var binds []string
	var state string
	c := &cobra.Command{
		Use:     string(op) + " <handle> --session S --agent A",
		Short:   short,
		Example: "  git records exec " + string(op) + " 01hx3k9m --session s-42 --agent bot",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts.Bind); err != nil {
				return err
			}
			opts.Handle = args[0]
			opts.Input.State = kernel.ExecState(state)
			if runF != nil {
				return runF(opts)
			}
			return manageRun(opts)
		},
	}
	if op == kernel.OpClose {
		c.Flags().StringVar(&state, "state", string(kernel.ExecCompleted), "completed or failed")
	}
	execcmd.ManageFlags(c, &opts.Input, &opts.Approval)
	extension.BindFlags(c, &binds, &opts.Bind)
	return c
}

func manageRun(opts *ManageOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.ManageExecution(opts.Op, opts.Handle, opts.Input, opts.Bind, approval)
	if err != nil {
		return err
	}
	return execcmd.PrintClosed(opts.Printer(), service.ClosedBy(res))
}
