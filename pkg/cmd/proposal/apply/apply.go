// Package apply is `git records apply <concept>`: accept a pending
// proposal, replacing the concept's body (by default with the proposed
// text).
package apply

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/proposal"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ApplyOptions are apply's inputs.
type ApplyOptions struct {
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error
	In           io.Reader // --body-file -

	Concept  string
	Proposer string // the proposer's handle, or a proposal id
	Body     string
	BodySet  bool // --body given (an empty one too)
	BodyFile string
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdApply is the apply command; runF (nil: applyRun) runs it.
func NewCmdApply(f *cmdutil.Factory, runF func(*ApplyOptions) error) *cobra.Command {
	opts := &ApplyOptions{Service: f.Service, PrintWritten: f.PrintWritten, In: f.IOStreams.In}
	c := &cobra.Command{
		Use:   "apply <concept> --proposer H|PROPOSAL-ID --rationale R [--body TEXT | --body-file F] --agent A",
		Short: "Apply a pending proposal: replace the concept's body (by default with the proposed text)",
		Example: `  git records apply auth/token-refresh --proposer 3c9d0e1f2a4b --rationale "agreed in review" --agent alice
  git records apply auth/token-refresh --proposer 9f3k2m1x --body-file merged.md --rationale "merged by hand" --agent alice`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Concept = args[0]
			opts.BodySet = cmd.Flags().Changed("body")
			if runF != nil {
				return runF(opts)
			}
			return applyRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Proposer, "proposer", "", proposal.ProposerHelp)
	c.Flags().StringVar(&opts.Evidence.Rationale, "rationale", "", "why the proposal is accepted")
	c.Flags().StringVar(&opts.Body, "body", "", "the concept's new body (default: the proposed text)")
	c.Flags().StringVar(&opts.BodyFile, "body-file", "", "read the new body from `FILE` (- for stdin)")
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	return c
}

func applyRun(opts *ApplyOptions) error {
	ev := opts.Evidence
	b, err := cmdutil.ReadBody(opts.In, opts.Body, opts.BodyFile, false, opts.BodySet)
	if err != nil {
		return err
	}
	if b != nil {
		ev.NewBody = *b
	}
	// Without a body of its own, apply takes the proposed text.
	takeProposed := ev.NewBody == "" && opts.BodyFile == "" && !opts.BodySet
	in := service.ProposalInput{Concept: opts.Concept, Proposer: opts.Proposer, Evidence: ev, UseProposedText: takeProposed}
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Apply(in, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
