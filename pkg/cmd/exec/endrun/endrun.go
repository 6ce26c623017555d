// Package endrun is `git records exec end-run <run>`: terminate a run's
// open children that clean up on run end, then close the run.
package endrun

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	execcmd "github.com/git-records/git-records/pkg/cmd/exec"
	"github.com/git-records/git-records/pkg/cmd/extension"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// EndRunOptions are exec end-run's inputs.
type EndRunOptions struct {
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	Run      string
	State    string // the run's own state
	Input    kernel.ManageInput
	Bind     service.BindOptions
	Approval cmdutil.ApprovalFlags
}

// NewCmdEndRun is the exec end-run command; runF (nil: endRunRun) runs it.
func NewCmdEndRun(f *cmdutil.Factory, runF func(*EndRunOptions) error) *cobra.Command {
	opts := &EndRunOptions{Service: f.Service, Printer: f.Printer}
	var binds []string
	c := &cobra.Command{
		Use:     "end-run <run> --session S --agent A [--state completed|failed]",
		Short:   "End a run: terminate its open children that clean up on run end (a receipt each), then close the run",
		Example: `  git records exec end-run 01hx3k9m --session s-42 --agent bot --state completed`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts.Bind); err != nil {
				return err
			}
			opts.Run = args[0]
			if runF != nil {
				return runF(opts)
			}
			return endRunRun(opts)
		},
	}
	c.Flags().StringVar(&opts.State, "state", string(kernel.ExecCompleted), "the run's own state: completed or failed")
	execcmd.ManageFlags(c, &opts.Input, &opts.Approval)
	extension.BindFlags(c, &binds, &opts.Bind)
	return c
}

func endRunRun(opts *EndRunOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	cleaned, closed, err := svc.EndRun(opts.Run, kernel.ExecState(opts.State), opts.Input, opts.Bind, approval)
	if err != nil {
		return err
	}
	out := map[string]any{"run": closed.ID, "state": opts.State, "terminated": service.ClosedBy(cleaned).Closed, "commit": closed.Commit}
	if cleaned != nil && cleaned.Commit != "" {
		out["cleanup_commit"] = cleaned.Commit
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(out)
	}
	for _, id := range service.ClosedBy(cleaned).Closed {
		fmt.Fprintf(p.Out, "%s %s\n", id, kernel.ExecTerminated)
	}
	fmt.Fprintf(p.Out, "%s %s\n", closed.ID, opts.State)
	return nil
}
