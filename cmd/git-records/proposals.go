package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// proposalsCommand lists proposals with their life-cycle state, read from
// the records' mutation logs (kernel.Proposals).
func (a *app) proposalsCommand() *cobra.Command {
	var state string
	c := &cobra.Command{
		Use:   "proposals [<handle>] [--state pending|applied|rejected]",
		Short: "List proposals (id, state, proposer, agent, text, when) of one record or of all",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("--state", state, names(service.ProposalStates)); err != nil {
				return err
			}
			svc, err := a.readService()
			if err != nil {
				return err
			}
			handle := ""
			if len(args) == 1 {
				handle = args[0]
			}
			shown, v, err := svc.Proposals(handle, kernel.ProposalState(state))
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(map[string]any{"proposals": shown})
				return nil
			}
			if len(shown) == 0 {
				fmt.Fprintln(a.out, "no proposals")
				return nil
			}
			for _, p := range shown {
				fmt.Fprintf(a.out, "%s  %-8s  on %s%s\n", p.ID, p.State, p.ConceptID, titleSuffix(v, p.ConceptID))
				fmt.Fprintf(a.out, "    proposer %s%s, agent %s, %s\n", p.ProposerID, titleSuffix(v, p.ProposerID), p.Agent, p.At)
				if p.ResolvedAt != nil {
					fmt.Fprintf(a.out, "    %s by %s, %s\n", p.State, p.ResolvedBy, p.ResolvedAt)
				}
				for _, line := range strings.Split(strings.TrimRight(p.Text, "\n"), "\n") {
					fmt.Fprintf(a.out, "    | %s\n", line)
				}
				if p.State == kernel.ProposalPending {
					fmt.Fprintf(a.out, "    apply: git records apply %s --proposer %s --rationale … --agent …\n", p.ConceptID, p.ID)
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&state, "state", "", "only proposals in this state")
	return c
}

// titleSuffix is " (title)" of the record id names, or " (no such record)".
func titleSuffix(v *gitstore.View, id string) string {
	return " (" + strings.TrimSpace(describeEnd(v, id, "")) + ")"
}
