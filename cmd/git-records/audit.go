package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
)

func (a *app) auditCommand() *cobra.Command {
	var since string
	c := &cobra.Command{
		Use:   "audit [--since TIME]",
		Short: "Read the audit log: one line per op the write path ran, allowed or denied",
		Long: `Read .git/records/audit.jsonl and its rotated parts, oldest first: one line
per op that reached the store's write path (CLI, contract or MCP), allowed or
denied, with op, principal, agent, risk, input and output digests, duration,
approval, evidence references and result code. --since takes an RFC 3339
time, a date or an age (36h, 7d).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var from time.Time
			if since != "" {
				var err error
				if from, err = kernel.ParseTimeSpec("--since", since, time.Now()); err != nil {
					return err
				}
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			log, err := s.ReadAudit(from)
			if err != nil {
				return err
			}
			if log.Skipped > 0 {
				fmt.Fprintf(a.err, "git-records: note: skipped %d audit line(s) that do not parse (torn by a crash)\n", log.Skipped)
			}
			if a.jsonOut {
				lines := log.Lines
				if lines == nil {
					lines = []kernel.AuditLine{}
				}
				a.writeJSON(map[string]any{"audit": lines, "skipped": log.Skipped})
				return nil
			}
			if len(log.Lines) == 0 {
				fmt.Fprintln(a.out, "no audit lines")
				return nil
			}
			for _, l := range log.Lines {
				fmt.Fprintln(a.out, auditText(l))
			}
			return nil
		},
	}
	c.Flags().StringVar(&since, "since", "", "only lines written at or after `TIME` (RFC 3339, a date, or an age such as 36h or 7d)")
	return c
}

// auditText is one audit line for people.
func auditText(l kernel.AuditLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-9s %-10s %s", l.Time, l.Result, l.Op, l.Principal)
	if l.Agent != "" {
		b.WriteString(" agent=" + l.Agent)
	}
	if l.Front != "" {
		b.WriteString(" via=" + l.Front)
	}
	fmt.Fprintf(&b, " %s %.1fms", l.Code, l.DurationMS)
	if c := l.EvidenceRefs.Commit; c != "" {
		b.WriteString(" commit=" + short12(c))
	}
	if len(l.EvidenceRefs.Records) > 0 {
		b.WriteString(" records=" + strings.Join(l.EvidenceRefs.Records, ","))
	}
	if l.ApprovedBy != "" {
		b.WriteString(" approved-by=" + l.ApprovedBy + " (" + l.Approval + ")")
	}
	if l.Result != kernel.AuditAllowed && l.Result != kernel.AuditUnchanged {
		if l.Rule != "" {
			b.WriteString(" rule=" + l.Rule)
		}
		if l.Reason != "" {
			b.WriteString(": " + strings.Join(strings.Fields(l.Reason), " "))
		}
	}
	return b.String()
}
