package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
)

func (a *app) compactCommand() *cobra.Command {
	var in kernel.CompactInput
	var before string
	var dryRun bool
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if before == "" {
				return kernel.Errorf(kernel.CodeMissingEvidence, "--before is required: compaction rolls up records created before a date (2026-01-01, or an age such as 30d)").WithExtra("flag", "--before")
			}
			t, err := kernel.ParseTimeSpec("--before", before, time.Now())
			if err != nil {
				return err
			}
			in.Before = t
			svc, err := a.service()
			if err != nil {
				return err
			}
			approval, err := a.gateApproval()
			if err != nil {
				return err
			}
			res, err := svc.Compact(in, dryRun, approval)
			if err != nil {
				return err
			}
			if !dryRun {
				a.noteCheckout(res.WriteResult)
			}
			if a.jsonOut {
				a.writeJSON(res)
				return nil
			}
			switch {
			case dryRun:
				fmt.Fprintf(a.out, "dry run: would roll up %d records\n", len(res.Compacted))
			case res.Rollup == "" || res.Unchanged:
				fmt.Fprintln(a.out, "nothing to compact")
			default:
				fmt.Fprintf(a.out, "%s: rolled up %d records (commit %s)\n", res.Rollup, len(res.Compacted), short12(res.Commit))
			}
			for _, v := range res.Compacted {
				fmt.Fprintf(a.out, "  retired %s  %s  [%s]\n", v.ID, v.Title, v.Rule)
			}
			for _, v := range res.Retained {
				fmt.Fprintf(a.out, "  kept    %s  %s  [%s: %s]\n", v.ID, v.Title, v.Rule, v.Reason)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&before, "before", "", "roll up records created before `DATE` (RFC 3339, a date, or an age such as 30d)")
	f.StringArrayVar(&in.Records, "record", nil, "compact only this record (repeatable); a decision-bearing one refuses the compaction")
	f.StringVar(&in.Category, "category", "", "the rollup record's category (default retention)")
	f.StringVar(&in.Rationale, "rationale", "", "why (default: compaction of noise created before DATE)")
	f.StringVar(&in.Note, "note", "", "note; also the commit body")
	f.BoolVar(&dryRun, "dry-run", false, "decide and print, write nothing")
	agentFlag(c, &in.Agent)
	a.approvalFlags(c)
	return c
}

func (a *app) migrateCommand() *cobra.Command {
	var agent string
	c := &cobra.Command{
		Use:   "migrate --agent A",
		Short: "Rewrite the store to the format this git-records writes, in one signed commit (nothing when it is current)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			approval, err := a.gateApproval()
			if err != nil {
				return err
			}
			w, err := s.Migrate(agent, approval)
			if err != nil {
				return err
			}
			v, err := s.View()
			if err != nil {
				return err
			}
			f, err := v.Format()
			if err != nil {
				return err
			}
			out := map[string]any{"format": f, "unchanged": w.Commit.IsZero()}
			if !w.Commit.IsZero() {
				out["commit"] = w.Commit.String()
				out["records"] = len(w.Mutation.Writes)
			}
			if a.jsonOut {
				a.writeJSON(out)
				return nil
			}
			if w.Commit.IsZero() {
				fmt.Fprintf(a.out, "the store is in format %d, the current one: nothing to migrate\n", f)
				return nil
			}
			fmt.Fprintf(a.out, "migrated to format %d: %d records rewritten (commit %s)\n", f, len(w.Mutation.Writes), short12(w.Commit.String()))
			return nil
		},
	}
	agentFlag(c, &agent)
	a.approvalFlags(c)
	return c
}

func short12(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
