package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
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
			states := []string{string(kernel.ProposalPending), string(kernel.ProposalApplied), string(kernel.ProposalRejected), string(kernel.ProposalWithdrawn)}
			if err := oneOf("--state", state, states); err != nil {
				return err
			}
			v, err := a.view()
			if err != nil {
				return err
			}
			ps, err := listProposals(v, args)
			if err != nil {
				return err
			}
			shown := []kernel.Proposal{}
			for _, p := range ps {
				if state == "" || string(p.State) == state {
					shown = append(shown, p)
				}
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

// listProposals reads the proposals of the record args names, or of every
// record, in id order and then log order.
func listProposals(v *gitstore.View, args []string) ([]kernel.Proposal, error) {
	var ids []string
	if len(args) == 1 {
		id, err := v.Resolve(args[0])
		if err != nil {
			return nil, err
		}
		if id == "" {
			return nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", args[0])
		}
		ids = []string{id}
	} else {
		all, err := v.IDs()
		if err != nil {
			return nil, err
		}
		ids = all
	}
	var out []kernel.Proposal
	for _, id := range ids {
		r, err := v.Record(id)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		ps, _ := kernel.Proposals(r)
		out = append(out, ps...)
	}
	return out, nil
}

// titleSuffix is " (title)" of the record id names, or " (no such record)".
func titleSuffix(v *gitstore.View, id string) string {
	return " (" + strings.TrimSpace(describeEnd(v, id, "")) + ")"
}
