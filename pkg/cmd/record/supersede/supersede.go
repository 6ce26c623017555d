// Package supersede is `git records supersede <new> <old>…`: mark records
// as superseded by a newer one.
package supersede

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// SupersedeOptions are supersede's inputs.
type SupersedeOptions struct {
	IO           *cmdutil.IOStreams
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	New      string
	Old      []string
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdSupersede is the supersede command; runF (nil: supersedeRun) runs it.
func NewCmdSupersede(f *cmdutil.Factory, runF func(*SupersedeOptions) error) *cobra.Command {
	opts := &SupersedeOptions{IO: f.IOStreams, Service: f.Service, PrintWritten: f.PrintWritten}
	c := &cobra.Command{
		Use:     "supersede <new> <old>... --rationale R --agent A",
		Short:   "Mark records as superseded by a newer one (nothing is deleted)",
		Example: `  git records supersede token-refresh-v2 auth/token-refresh --rationale "rotation replaced sliding expiry" --agent alice`,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.New, opts.Old = args[0], args[1:]
			if runF != nil {
				return runF(opts)
			}
			return supersedeRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Evidence.Rationale, "rationale", "", "why the new record supersedes the old ones")
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	return c
}

func supersedeRun(opts *SupersedeOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Supersede(opts.New, opts.Old, opts.Evidence, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
