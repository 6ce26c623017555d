// Package merge is `git records merge <branch>`: a reviewed records branch
// merged into the records branch, record by record, after verifying what
// it brings.
package merge

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmd/remote"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// MergeOptions are merge's inputs.
type MergeOptions struct {
	IO            *cmdutil.IOStreams
	Service       func() (*service.Service, error)
	Printer       func() cmdutil.Printer
	ProgressMeter func(title string) *cmdutil.ProgressMeter

	Branch   string
	Agent    string
	Approval cmdutil.ApprovalFlags
}

// NewCmdMerge is the merge command; runF (nil: mergeRun) runs it.
func NewCmdMerge(f *cmdutil.Factory, runF func(*MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer, ProgressMeter: f.ProgressMeter}
	c := &cobra.Command{
		Use:   "merge <branch>",
		Short: "Merge a reviewed records branch into the records branch, record by record",
		Example: `  git records merge origin/records-review
  git records merge refs/pull/42/head --agent ci --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Branch = args[0]
			if runF != nil {
				return runF(opts)
			}
			return mergeRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Agent, "agent", os.Getenv("GIT_RECORDS_AGENT"), "agent recorded on the merge commit")
	opts.Approval.Register(c)
	return c
}

func mergeRun(opts *MergeOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	approval, err := opts.Approval.Approval()
	if err != nil {
		return err
	}
	meter := opts.ProgressMeter("Verifying commits")
	res, refused, err := svc.Merge(opts.Branch, opts.Agent, approval, meter.Func())
	meter.Stop()
	if refused != nil {
		service.WriteRejection(opts.IO.ErrOut, "merge of "+opts.Branch, refused)
	}
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(res.Merge)
	}
	remote.PrintSync(p.Out, res)
	return nil
}
