// Package propose is `git records propose <concept>`: propose a change to
// a concept.
package propose

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/proposal"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ProposeOptions are propose's inputs.
type ProposeOptions struct {
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	Concept  string
	Proposer string
	Evidence kernel.Evidence // Proposal: the proposed text
	Approval cmdutil.ApprovalFlags
}

// NewCmdPropose is the propose command; runF (nil: proposeRun) runs it.
func NewCmdPropose(f *cmdutil.Factory, runF func(*ProposeOptions) error) *cobra.Command {
	opts := &ProposeOptions{Service: f.Service, PrintWritten: f.PrintWritten}
	c := &cobra.Command{
		Use:     "propose <concept> --proposer H --proposal TEXT --agent A",
		Short:   "Propose a change to a concept",
		Example: `  git records propose auth/token-refresh --proposer 9f3k2m1x --proposal "Rotate on every refresh." --agent review-bot`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Concept = args[0]
			if runF != nil {
				return runF(opts)
			}
			return proposeRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Proposer, "proposer", "", proposal.ProposerHelp)
	c.Flags().StringVar(&opts.Evidence.Proposal, "proposal", "", "the proposed change")
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	return c
}

func proposeRun(opts *ProposeOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Propose(service.ProposalInput{Concept: opts.Concept, Proposer: opts.Proposer, Evidence: opts.Evidence}, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
