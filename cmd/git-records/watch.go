package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// errEnough ends a watch that printed the commits it was asked for.
var errEnough = errors.New("enough")

func (a *app) watchCommand() *cobra.Command {
	var since, format string
	var count int
	var poll time.Duration
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.jsonOut && !cmd.Flags().Changed("format") {
				format = "jsonl"
			}
			if format != "text" && format != "jsonl" {
				return kernel.Errorf(kernel.CodeUsage, "--format is text or jsonl, not %q", format).WithExtra("flag", "--format")
			}
			if count < 0 {
				return kernel.Errorf(kernel.CodeUsage, "-n %d is negative: give a count of commits, or 0 to follow until stopped", count).WithExtra("flag", "--max-count")
			}
			svc, err := a.readService()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			enc := json.NewEncoder(a.out)
			enc.SetEscapeHTML(false)
			printed := 0
			err = svc.Watch(ctx, service.WatchQuery{Since: since, Poll: poll}, func(e service.HistoryEntry) error {
				if format == "jsonl" {
					if err := enc.Encode(e); err != nil {
						return err
					}
				} else {
					a.printHistory([]service.HistoryEntry{e})
				}
				if printed++; count > 0 && printed >= count {
					return errEnough
				}
				return nil
			})
			if errors.Is(err, errEnough) {
				return nil
			}
			return err
		},
	}
	c.Flags().StringVar(&since, "since", "", "first print what `COMMIT` cannot reach (resume from the last commit printed)")
	c.Flags().StringVar(&format, "format", "text", "text or jsonl (one object per commit, as log --format jsonl)")
	c.Flags().IntVarP(&count, "max-count", "n", 0, "stop after `N` commits (0: follow until stopped)")
	c.Flags().DurationVar(&poll, "poll", 0, "read the ref at least this often when no filesystem notification comes (default 2s)")
	return c
}
