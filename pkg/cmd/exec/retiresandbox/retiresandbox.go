// Package retiresandbox is `git records exec retire-sandbox <sandbox>`:
// retire a sandbox record, refused while it owns open records unless
// --force closes each with a receipt.
package retiresandbox

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	execcmd "github.com/git-records/git-records/pkg/cmd/exec"
	"github.com/git-records/git-records/pkg/cmd/extension"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// RetireSandboxOptions are exec retire-sandbox's inputs.
type RetireSandboxOptions struct {
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	Sandbox  string
	Force    bool
	Input    kernel.ManageInput
	Bind     service.BindOptions
	Approval cmdutil.ApprovalFlags
}

// NewCmdRetireSandbox is the exec retire-sandbox command; runF (nil:
// retireSandboxRun) runs it.
func NewCmdRetireSandbox(f *cmdutil.Factory, runF func(*RetireSandboxOptions) error) *cobra.Command {
	opts := &RetireSandboxOptions{Service: f.Service, Printer: f.Printer}
	var binds []string
	c := &cobra.Command{
		Use:     "retire-sandbox <sandbox> --agent A --reason R [--force]",
		Short:   "Retire a sandbox record; refused while it owns open records, unless --force closes each with a receipt",
		Example: `  git records exec retire-sandbox sb-7 --agent bot --reason "job finished"`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts.Bind); err != nil {
				return err
			}
			opts.Sandbox = args[0]
			if runF != nil {
				return runF(opts)
			}
			return retireSandboxRun(opts)
		},
	}
	c.Flags().BoolVar(&opts.Force, "force", false, "force-close the open records it owns, a receipt each (needs the force-close right)")
	execcmd.ManageFlags(c, &opts.Input, &opts.Approval)
	extension.BindFlags(c, &binds, &opts.Bind)
	return c
}

func retireSandboxRun(opts *RetireSandboxOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.RetireSandbox(opts.Sandbox, opts.Force, opts.Input, opts.Bind, approval)
	if err != nil {
		return err
	}
	closed := service.ClosedBy(res)
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(map[string]any{"id": res.ID, "commit": res.Commit, "force_closed": closed.Closed})
	}
	if len(closed.Closed) > 0 {
		if err := execcmd.PrintClosed(p, closed); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(p.Out, "%s retired\n", res.ID)
	return err
}
