package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

func (a *app) freshCommand() *cobra.Command {
	var record, exitCode bool
	var ev kernel.Evidence
	c := &cobra.Command{
		Use:   "fresh [<handle>…] [--record --agent A]",
		Short: "Check records against the working tree as it is now: current, stale, superseded, unknown, unavailable",
		Long: `fresh derives each record's freshness from content, not commit ids: a record
whose scoped files hash as they did when it was written is current, even after
a rebase or unrelated commits; an edit to a scoped file makes it stale at
once, committed or not. Past expires_at / ttl_seconds is stale too, an inbound
supersedes link makes it superseded, no scope is unknown, and a scope that
cannot be read here is unavailable. Without handles it checks every record
that is not retired. --record writes changed verdicts back in one verify
commit (records whose verdict did not change are not rewritten).
--exit-code exits 1 when any record checked is stale, for CI.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var svc *service.Service
			var err error
			if record {
				svc, err = a.service()
			} else {
				svc, err = a.readService()
			}
			if err != nil {
				return err
			}
			q := service.FreshQuery{Handles: args, Record: record, Evidence: ev}
			if record {
				if q.Approval, err = a.gateApproval(); err != nil {
					return err
				}
			}
			res, err := svc.Fresh(q)
			if err != nil {
				return err
			}
			verdicts := res.Verdicts
			if w := res.Written; w != nil {
				a.noteCheckout(w)
				if !a.jsonOut {
					if w.Unchanged {
						fmt.Fprintln(a.err, "no verdict changed: nothing written")
					} else {
						fmt.Fprintf(a.err, "recorded %d verdicts in %s\n", len(w.Written.Mutation.Writes), w.Commit[:12])
					}
				}
			}
			if a.jsonOut {
				a.writeJSON(verdicts)
			} else {
				for _, vd := range verdicts {
					extra := ""
					if len(vd.ChangedPaths) > 0 {
						extra = ": " + strings.Join(vd.ChangedPaths, ", ")
					}
					fmt.Fprintf(a.out, "%-8s %-11s %s%s\n", shortID(vd.ID), vd.State, vd.Reason, extra)
				}
			}
			if exitCode && slices.ContainsFunc(verdicts, func(vd kernel.Verdict) bool { return vd.State == kernel.FreshnessStale }) {
				return errSilent
			}
			return nil
		},
	}
	c.Flags().BoolVar(&record, "record", false, "write changed verdicts back as a verify commit")
	c.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when any record is stale (for CI)")
	a.evidenceFlags(c, &ev)
	return c
}
