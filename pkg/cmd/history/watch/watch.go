// Package watch is `git records watch`: the records branch's commits as
// they land.
package watch

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/history"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// WatchOptions are watch's inputs.
type WatchOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer
	// Context is what stops the watch (besides -n): Ctrl-C or SIGTERM.
	Context func() (context.Context, context.CancelFunc)

	Since  string        // --since COMMIT
	Format string        // text or jsonl (--json without --format: jsonl)
	Count  int           // -n: stop after this many commits (0: follow)
	Poll   time.Duration // --poll
}

// NewCmdWatch is the watch command; runF (nil: watchRun) runs it.
func NewCmdWatch(f *cmdutil.Factory, runF func(*WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer, Context: func() (context.Context, context.CancelFunc) {
		return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	}}
	c := &cobra.Command{
		Use:   "watch [--since <commit>] [--format jsonl|text]",
		Short: "Print each commit as it lands on the records branch (a change stream)",
		Long: `watch follows the records branch and prints every new commit as log prints
it: op, records, agent, signer, signature status, time, evidence. It sleeps
until the branch moves (filesystem notification where the system has it,
reading the ref every --poll in any case), whoever moves it: another
git-records process, git records sync, a fetch, git update-ref, a hand edit.

--format jsonl (the default with --json) prints one JSON object per commit,
the objects of log --format jsonl. --since <commit> first prints what that
commit cannot reach: restart with the last commit you printed to miss and
repeat nothing. A merge (a sync that merged) is one commit naming the records
it touched; a fast-forward prints each commit. Stop it with Ctrl-C, or
let -n stop it after N commits.`,
		Example: `  git records watch
  git records watch --format jsonl --since "$last_commit" | my-indexer`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.JSON && !cmd.Flags().Changed("format") {
				opts.Format = "jsonl"
			}
			if opts.Format != "text" && opts.Format != "jsonl" {
				return kernel.Errorf(kernel.CodeUsage, "--format is text or jsonl, not %q", opts.Format).WithExtra("flag", "--format")
			}
			if opts.Poll < 0 {
				return kernel.Errorf(kernel.CodeUsage, "--poll %s is negative: give how often to read the ref, such as 2s", opts.Poll).WithExtra("flag", "--poll")
			}
			if opts.Count < 0 {
				return kernel.Errorf(kernel.CodeUsage, "-n %d is negative: give a count of commits, or 0 to follow until stopped", opts.Count).WithExtra("flag", "--max-count")
			}
			if runF != nil {
				return runF(opts)
			}
			return watchRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Since, "since", "", "first print what `COMMIT` cannot reach (resume from the last commit printed)")
	c.Flags().StringVar(&opts.Format, "format", "text", "text or jsonl (one object per commit, as log --format jsonl)")
	c.Flags().IntVarP(&opts.Count, "max-count", "n", 0, "stop after `N` commits (0: follow until stopped)")
	c.Flags().DurationVar(&opts.Poll, "poll", 0, "read the ref at least this often when no filesystem notification comes (default 2s)")
	return c
}

// errEnough ends a watch that printed the commits it was asked for.
var errEnough = errors.New("enough")

func watchRun(opts *WatchOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	ctx, stop := opts.Context()
	defer stop()
	p := opts.Printer()
	printed := 0
	err = svc.Watch(ctx, service.WatchQuery{Since: opts.Since, Poll: opts.Poll}, func(e service.HistoryEntry) error {
		if opts.Format == "jsonl" {
			if err := p.JSONLine(e); err != nil {
				return err
			}
		} else if err := p.Text(func(out io.Writer) error { return history.WriteHistory(out, []service.HistoryEntry{e}) }); err != nil {
			return err
		}
		if printed++; opts.Count > 0 && printed >= opts.Count {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}
