// Package compact is `git records compact`: noise (event and snapshot
// records) rolled up into a rollup record and retired; decision-bearing
// records are kept.
package compact

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// CompactOptions are compact's inputs.
type CompactOptions struct {
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer
	Now     func() time.Time // what an age in --before counts back from

	Input    kernel.CompactInput
	Before   string // --before: a date or an age
	DryRun   bool
	Approval cmdutil.ApprovalFlags
}

// NewCmdCompact is the compact command; runF (nil: compactRun) runs it.
func NewCmdCompact(f *cmdutil.Factory, runF func(*CompactOptions) error) *cobra.Command {
	opts := &CompactOptions{Service: f.Service, Printer: f.Printer, Now: time.Now}
	c := &cobra.Command{
		Use:   "compact --before DATE --agent A [--record H]… [--rationale R] [--dry-run]",
		Short: "Roll noise (event and snapshot records) created before DATE up into a rollup record and retire it; decision-bearing records are kept",
		Long: `compact judges every active event and snapshot record created before DATE
(or only the --record ones) with the retention rule kernel.DecisionBearing:
a decision-bearing record (rules decision, workflow-state, marks-state,
external-mutation, contradicts, cited) is kept, the rest is noise, listed in
one new retention.rollup record and retired, in one signed commit whose
evidence names the rule that decided each record. Naming a decision-bearing
record with --record refuses the whole compaction.`,
		Example: `  git records compact --before 30d --agent ci --dry-run
  git records compact --before 2026-01-01 --agent ci --rationale "quarterly cleanup"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Before == "" {
				return kernel.Errorf(kernel.CodeMissingEvidence, "--before is required: compaction rolls up records created before a date (2026-01-01, or an age such as 30d)").WithExtra("flag", "--before")
			}
			t, err := kernel.ParseTimeSpec("--before", opts.Before, opts.Now())
			if err != nil {
				return err
			}
			opts.Input.Before = t
			if runF != nil {
				return runF(opts)
			}
			return compactRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Before, "before", "", "roll up records created before `DATE` (RFC 3339, a date, or an age such as 30d)")
	fl.StringArrayVar(&opts.Input.Records, "record", nil, "compact only this record (repeatable); a decision-bearing one refuses the compaction")
	fl.StringVar(&opts.Input.Category, "category", "", "the rollup record's category (default retention)")
	fl.StringVar(&opts.Input.Rationale, "rationale", "", "why (default: compaction of noise created before DATE)")
	fl.StringVar(&opts.Input.Note, "note", "", "note; also the commit body")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "decide and print, write nothing")
	cmdutil.AgentFlag(c, &opts.Input.Agent)
	opts.Approval.Register(c)
	return c
}

func compactRun(opts *CompactOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Compact(opts.Input, opts.DryRun, approval)
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(res)
	}
	w := p.Out
	switch {
	case opts.DryRun:
		fmt.Fprintf(w, "dry run: would roll up %d records\n", len(res.Compacted))
	case res.Rollup == "" || res.Unchanged:
		fmt.Fprintln(w, "nothing to compact")
	default:
		fmt.Fprintf(w, "%s: rolled up %d records (commit %s)\n", res.Rollup, len(res.Compacted), res.Commit[:min(12, len(res.Commit))])
	}
	for _, v := range res.Compacted {
		fmt.Fprintf(w, "  retired %s  %s  [%s]\n", v.ID, v.Title, v.Rule)
	}
	for _, v := range res.Retained {
		fmt.Fprintf(w, "  kept    %s  %s  [%s: %s]\n", v.ID, v.Title, v.Rule, v.Reason)
	}
	return nil
}
