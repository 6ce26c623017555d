// Package reject is `git records reject <concept>`: decline a pending
// proposal; the concept is unchanged.
package reject

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/proposal"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// RejectOptions are reject's inputs.
type RejectOptions struct {
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	Concept  string
	Proposer string // the proposer's handle, or a proposal id
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdReject is the reject command; runF (nil: rejectRun) runs it.
func NewCmdReject(f *cmdutil.Factory, runF func(*RejectOptions) error) *cobra.Command {
	opts := &RejectOptions{Service: f.Service, PrintWritten: f.PrintWritten}
	c := &cobra.Command{
		Use:     "reject <concept> --proposer H|PROPOSAL-ID --reason R --agent A",
		Short:   "Reject a pending proposal (the concept is unchanged)",
		Example: `  git records reject auth/token-refresh --proposer 3c9d0e1f2a4b --reason "breaks offline clients" --agent alice`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Concept = args[0]
			if runF != nil {
				return runF(opts)
			}
			return rejectRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Proposer, "proposer", "", proposal.ProposerHelp)
	c.Flags().StringVar(&opts.Evidence.Reason, "reason", "", "why the proposal is declined")
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	return c
}

func rejectRun(opts *RejectOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Reject(service.ProposalInput{Concept: opts.Concept, Proposer: opts.Proposer, Evidence: opts.Evidence}, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
