// Package fresh is `git records fresh [<handle>…]`.
package fresh

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// FreshOptions are fresh's inputs.
type FreshOptions struct {
	IO          *cmdutil.IOStreams
	Service     func() (*service.Service, error) // --record writes
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Handles  []string
	Record   bool // --record
	ExitCode bool // --exit-code
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdFresh is the fresh command; runF (nil: freshRun) runs it.
func NewCmdFresh(f *cmdutil.Factory, runF func(*FreshOptions) error) *cobra.Command {
	opts := &FreshOptions{IO: f.IOStreams, Service: f.Service, ReadService: f.ReadService, Printer: f.Printer}
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
		Example: `  git records fresh --exit-code
  git records fresh auth/token-refresh --record --agent ci`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handles = args
			if runF != nil {
				return runF(opts)
			}
			return freshRun(opts)
		},
	}
	c.Flags().BoolVar(&opts.Record, "record", false, "write changed verdicts back as a verify commit")
	c.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit 1 when any record is stale (for CI)")
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	return c
}

func freshRun(opts *FreshOptions) error {
	open := opts.ReadService
	if opts.Record {
		open = opts.Service
	}
	svc, err := open()
	if err != nil {
		return err
	}
	q := service.FreshQuery{Handles: opts.Handles, Record: opts.Record, Evidence: opts.Evidence}
	if opts.Record {
		if q.Approval, err = opts.Approval.Approval(); err != nil {
			return err
		}
	}
	res, err := svc.Fresh(q)
	if err != nil {
		return err
	}
	p := opts.Printer()
	if w := res.Written; w != nil {
		if !p.JSONOn {
			if w.Unchanged {
				fmt.Fprintln(opts.IO.ErrOut, "no verdict changed: nothing written")
			} else {
				fmt.Fprintf(opts.IO.ErrOut, "recorded %d verdicts in %s\n", len(w.Mutation.Writes), w.Commit[:12])
			}
		}
	}
	err = p.Result(res.Verdicts, func(out io.Writer) error {
		for _, vd := range res.Verdicts {
			extra := ""
			if len(vd.ChangedPaths) > 0 {
				extra = ": " + strings.Join(vd.ChangedPaths, ", ")
			}
			fmt.Fprintf(out, "%-8s %-11s %s%s\n", service.ShortID(vd.ID), vd.State, vd.Reason, extra)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if opts.ExitCode && slices.ContainsFunc(res.Verdicts, func(vd kernel.Verdict) bool { return vd.State == kernel.FreshnessStale }) {
		return cmdutil.SilentError
	}
	return nil
}
