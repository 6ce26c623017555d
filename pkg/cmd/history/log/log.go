// Package log is `git records log [<handle>]`.
package log

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/history"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// LogOptions are log's inputs.
type LogOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Handle string // "": every commit of the store
	Limit  int    // -n
	Format string // text, jsonl or json (--json without --format: json)
	Since  string // --since-commit
}

// NewCmdLog is the log command; runF (nil: logRun) runs it.
func NewCmdLog(f *cmdutil.Factory, runF func(*LogOptions) error) *cobra.Command {
	opts := &LogOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "log [<handle>] [-n N] [--format text|jsonl|json] [--since-commit REV]",
		Short: "Show the history of a record, or of the store: op, agent, signer, signature, evidence",
		Long: `log lists the commits that changed a record (or every commit of the store),
newest first: the op, the records it names, the agent, the signer (the
principal .records/allowed_signers gives the signing key, as of the parent
commit), the signature status as git's %G? has it (good G, bad B, unknown_key
U, unsigned N, unverifiable E), the time and the evidence trailers.
Signatures are checked in-process, as verify checks them.

--format jsonl prints one JSON object per commit, for other tools:
{"commit","op","records","agent","signer","signature","signature_code",
"time","subject","evidence":{"Rationale":…},"approved_by",…}; --json prints
the same objects as one array. --since-commit REV lists only what REV cannot
reach: poll with the tip you last saw to get what changed since.`,
		Example: `  git records log auth/token-refresh
  git records log -n 20 --format jsonl
  git records log --since-commit "$last_tip" --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Handle = args[0]
			}
			if f.JSON && !cmd.Flags().Changed("format") {
				opts.Format = "json"
			}
			switch opts.Format {
			case "text", "json", "jsonl":
			default:
				return kernel.Errorf(kernel.CodeUsage, "--format is text, jsonl or json, not %q", opts.Format).WithExtra("flag", "--format")
			}
			if runF != nil {
				return runF(opts)
			}
			return logRun(opts)
		},
	}
	c.Flags().IntVarP(&opts.Limit, "max-count", "n", 0, "show at most `N` commits")
	c.Flags().StringVar(&opts.Format, "format", "text", "text, jsonl (one object per commit) or json")
	c.Flags().StringVar(&opts.Since, "since-commit", "", "only commits `REV` cannot reach (what changed since you saw REV)")
	return c
}

func logRun(opts *LogOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	entries, err := svc.Log(service.LogQuery{Handle: opts.Handle, Limit: opts.Limit, Since: opts.Since})
	if err != nil {
		return err
	}
	p := opts.Printer()
	switch opts.Format {
	case "json":
		return p.JSON(entries)
	case "jsonl":
		for _, e := range entries {
			if err := p.JSONLine(e); err != nil {
				return err
			}
		}
		return nil
	}
	return p.Text(func(out io.Writer) error { return history.WriteHistory(out, entries) })
}
