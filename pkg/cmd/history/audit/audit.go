// Package audit is `git records audit [--since TIME]`.
package audit

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// AuditOptions are audit's inputs.
type AuditOptions struct {
	IO      *cmdutil.IOStreams
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer
	Now     func() time.Time

	Since string // --since: RFC 3339, a date or an age
}

// NewCmdAudit is the audit command; runF (nil: auditRun) runs it.
func NewCmdAudit(f *cmdutil.Factory, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer, Now: time.Now}
	c := &cobra.Command{
		Use:   "audit [--since TIME]",
		Short: "Read the audit log: one line per op the write path ran, allowed or denied",
		Long: `Read .git/records/audit.jsonl and its rotated parts, oldest first: one line
per op that reached the store's write path (CLI, contract or MCP), allowed or
denied, with op, principal, agent, risk, input and output digests, duration,
approval, evidence references and result code. --since takes an RFC 3339
time, a date or an age (36h, 7d).`,
		Example: `  git records audit --since 7d
  git records audit --since 2026-01-01 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return auditRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Since, "since", "", "only lines written at or after `TIME` (RFC 3339, a date, or an age such as 36h or 7d)")
	return c
}

func auditRun(opts *AuditOptions) error {
	var from time.Time
	if opts.Since != "" {
		var err error
		if from, err = kernel.ParseTimeSpec("--since", opts.Since, opts.Now()); err != nil {
			return err
		}
	}
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	log, err := svc.ReadAudit(from)
	if err != nil {
		return err
	}
	if log.Skipped > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "git-records: note: skipped %d audit line(s) that do not parse (torn by a crash)\n", log.Skipped)
	}
	lines := log.Lines
	if lines == nil {
		lines = []kernel.AuditLine{}
	}
	return opts.Printer().Result(map[string]any{"audit": lines, "skipped": log.Skipped}, func(out io.Writer) error {
		if len(lines) == 0 {
			_, err := fmt.Fprintln(out, "no audit lines")
			return err
		}
		for _, l := range lines {
			fmt.Fprintln(out, Text(l))
		}
		return nil
	})
}

// Text is one audit line for people.
func Text(l kernel.AuditLine) string {
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
		b.WriteString(" commit=" + c[:min(12, len(c))])
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
