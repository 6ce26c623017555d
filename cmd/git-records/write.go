package main

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

func (a *app) evidenceFlags(c *cobra.Command, ev *kernel.Evidence) {
	agentFlag(c, &ev.Agent)
	a.approvalFlags(c)
	c.Flags().StringVar(&ev.Note, "note", "", "why: recorded in the mutation log and the commit body")
	c.Flags().StringVar(&ev.SessionID, "session", "", "session id")
}

// runOp runs an op and prints the record's id.
func (a *app) runOp(op func(*service.Service, kernel.Approval) (*service.WriteResult, error)) error {
	res, err := a.write(op)
	if err != nil {
		return err
	}
	a.printWritten(res)
	return nil
}

// proposerHelp says what --proposer takes: propose names the proposer
// record; apply and reject also take a proposal id (git records proposals).
const proposerHelp = "record handle (id, alias or 8+ character prefix) of the proposer; apply and reject also take a proposal id from git records proposals, and otherwise act on the proposer's latest pending proposal"

// proposalCommand builds propose, apply and reject: they share their shape.
func (a *app) proposalCommand(use, short string, extra func(*cobra.Command, *kernel.Evidence, *string, *string),
	op func(*service.Service, service.ProposalInput, kernel.Approval) (*service.WriteResult, error)) *cobra.Command {
	var ev kernel.Evidence
	var proposer, body, bodyFile string
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Lookup("body") != nil {
				b, err := a.readBody(body, bodyFile, false, cmd.Flags().Changed("body"))
				if err != nil {
					return err
				}
				if b != nil {
					ev.NewBody = *b
				}
			}
			// apply without --body applies the proposed text.
			takeProposed := cmd.Flags().Lookup("body") != nil && ev.NewBody == "" && bodyFile == "" && !cmd.Flags().Changed("body")
			in := service.ProposalInput{Concept: args[0], Proposer: proposer, Evidence: ev, UseProposedText: takeProposed}
			return a.runOp(func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
				return op(svc, in, approval)
			})
		},
	}
	c.Flags().StringVar(&proposer, "proposer", "", proposerHelp)
	extra(c, &ev, &body, &bodyFile)
	a.evidenceFlags(c, &ev)
	return c
}

func (a *app) proposeCommand() *cobra.Command {
	return a.proposalCommand("propose <concept> --proposer H --proposal TEXT --agent A", "Propose a change to a concept",
		func(c *cobra.Command, ev *kernel.Evidence, _, _ *string) {
			c.Flags().StringVar(&ev.Proposal, "proposal", "", "the proposed change")
		}, (*service.Service).Propose)
}

func (a *app) applyCommand() *cobra.Command {
	return a.proposalCommand("apply <concept> --proposer H|PROPOSAL-ID --rationale R [--body TEXT | --body-file F] --agent A", "Apply a pending proposal: replace the concept's body (by default with the proposed text)",
		func(c *cobra.Command, ev *kernel.Evidence, body, bodyFile *string) {
			c.Flags().StringVar(&ev.Rationale, "rationale", "", "why the proposal is accepted")
			c.Flags().StringVar(body, "body", "", "the concept's new body (default: the proposed text)")
			c.Flags().StringVar(bodyFile, "body-file", "", "read the new body from `FILE` (- for stdin)")
		}, (*service.Service).Apply)
}

func (a *app) rejectCommand() *cobra.Command {
	return a.proposalCommand("reject <concept> --proposer H|PROPOSAL-ID --reason R --agent A", "Reject a pending proposal (the concept is unchanged)",
		func(c *cobra.Command, ev *kernel.Evidence, _, _ *string) {
			c.Flags().StringVar(&ev.Reason, "reason", "", "why the proposal is declined")
		}, (*service.Service).Reject)
}
