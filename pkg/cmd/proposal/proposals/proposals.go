// Package proposals is `git records proposals [<handle>]`: proposals with
// their life-cycle state, read from the records' mutation logs.
package proposals

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ProposalsOptions are proposals' inputs.
type ProposalsOptions struct {
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Handle string // "" for every record
	State  string // --state
}

// NewCmdProposals is the proposals command; runF (nil: proposalsRun) runs it.
func NewCmdProposals(f *cmdutil.Factory, runF func(*ProposalsOptions) error) *cobra.Command {
	opts := &ProposalsOptions{ReadService: f.ReadService, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "proposals [<handle>] [--state pending|applied|rejected]",
		Short: "List proposals (id, state, proposer, agent, text, when) of one record or of all",
		Example: `  git records proposals --state pending
  git records proposals auth/token-refresh --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Handle = args[0]
			}
			if err := cmdutil.OneOf("--state", opts.State, cmdutil.Names(service.ProposalStates)); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return proposalsRun(opts)
		},
	}
	c.Flags().StringVar(&opts.State, "state", "", "only proposals in this state")
	return c
}

func proposalsRun(opts *ProposalsOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	shown, v, err := svc.Proposals(opts.Handle, kernel.ProposalState(opts.State))
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(map[string]any{"proposals": shown})
	}
	if len(shown) == 0 {
		_, err := fmt.Fprintln(p.Out, "no proposals")
		return err
	}
	w := p.Out
	for _, p := range shown {
		fmt.Fprintf(w, "%s  %-8s  on %s%s\n", p.ID, p.State, p.ConceptID, titleSuffix(v, p.ConceptID))
		fmt.Fprintf(w, "    proposer %s%s, agent %s, %s\n", p.ProposerID, titleSuffix(v, p.ProposerID), p.Agent, p.At)
		if p.ResolvedAt != nil {
			fmt.Fprintf(w, "    %s by %s, %s\n", p.State, p.ResolvedBy, p.ResolvedAt)
		}
		for _, line := range strings.Split(strings.TrimRight(p.Text, "\n"), "\n") {
			fmt.Fprintf(w, "    | %s\n", line)
		}
		if p.State == kernel.ProposalPending {
			fmt.Fprintf(w, "    apply: git records apply %s --proposer %s --rationale … --agent …\n", p.ConceptID, p.ID)
		}
	}
	return nil
}

// titleSuffix is " (title)" of the record id names, or " (no such record)".
func titleSuffix(v *service.View, id string) string {
	if title, ok := v.Title(id); ok {
		return " (" + service.OneLine(title) + ")"
	}
	return " (no such record)"
}
