// Package retire is `git records retire <handle>`: retire a record, or
// mark it implemented.
package retire

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// RetireOptions are retire's inputs.
type RetireOptions struct {
	IO           *cmdutil.IOStreams
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	Handle   string
	Status   string // retired or implemented
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdRetire is the retire command; runF (nil: retireRun) runs it.
func NewCmdRetire(f *cmdutil.Factory, runF func(*RetireOptions) error) *cobra.Command {
	opts := &RetireOptions{IO: f.IOStreams, Service: f.Service, PrintWritten: f.PrintWritten}
	c := &cobra.Command{
		Use:   "retire <handle> --rationale R [--status implemented --implemented-by REF] --agent A",
		Short: "Retire a record, or mark it implemented",
		Example: `  git records retire old-note --rationale "the service was shut down" --agent alice
  git records retire adr-12 --status implemented --implemented-by "PR #418" --rationale "shipped" --agent alice`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			if runF != nil {
				return runF(opts)
			}
			return retireRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Status, "status", string(kernel.StatusRetired), "target status: retired or implemented")
	c.Flags().StringVar(&opts.Evidence.Rationale, "rationale", "", "why")
	c.Flags().StringVar(&opts.Evidence.ImplementedByRef, "implemented-by", "", "commit, PR or issue that implements it (for --status implemented)")
	c.Flags().StringVar(&opts.Evidence.SupersededByRef, "superseded-by", "", "what replaces it")
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	return c
}

func retireRun(opts *RetireOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Retire(opts.Handle, kernel.Status(opts.Status), opts.Evidence, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
