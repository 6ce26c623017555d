package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/hooks"
)

func (a *app) verifyCommand() *cobra.Command {
	var opts hooks.Options
	c := &cobra.Command{
		Use:   "verify [<rev> | <range>]",
		Short: "Check record commits: signatures, evidence, invariants and policy",
		Long: `verify judges every commit of the records branch (or of <range>, e.g.
origin/records..records) against its parent: a valid signature by a principal
in .records/allowed_signers as of the parent, trailers with the evidence the
op requires, records that parse and sit at the right path, immutable fields
unchanged, mutation logs only appended to, no record deleted, changes that
match the op, and a signer whose policy profile allowed the op.
Exit status 0 means every commit passed; 1 means violations were found.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			spec := ""
			if len(args) == 1 {
				spec = args[0]
			}
			meter := a.progressMeter("Verifying commits")
			opts.Progress = meter.Func()
			rep, err := svc.Verify(spec, opts)
			meter.Stop()
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(rep)
			} else {
				a.printReport(rep)
			}
			if !rep.OK {
				return errSilent
			}
			return nil
		},
	}
	c.Flags().BoolVar(&opts.Strict, "strict", false, "treat dangling links as violations")
	return c
}

func (a *app) printReport(rep *hooks.Report) { writeReport(a.out, rep) }

// writeReport is verify's human report; diff --verify shows the same.
func writeReport(w io.Writer, rep *hooks.Report) {
	for _, f := range rep.Violations {
		writeFinding(w, "✗", f)
	}
	for _, f := range rep.Warnings {
		writeFinding(w, "!", f)
	}
	verdict := "ok"
	if !rep.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "verify: %d commits, %d violations, %d warnings: %s\n", rep.Commits, len(rep.Violations), len(rep.Warnings), verdict)
}

func writeFinding(w io.Writer, mark string, f hooks.Finding) {
	where := []string{f.Commit[:12]}
	if f.Record != "" {
		where = append(where, "record "+f.Record)
	} else if f.Path != "" {
		where = append(where, f.Path)
	}
	fmt.Fprintf(w, "%s %s: %s: %s\n    fix: %s\n", mark, strings.Join(where, " "), f.Rule, f.Message, f.Fix)
}
