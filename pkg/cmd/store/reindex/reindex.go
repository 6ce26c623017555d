// Package reindex is `git records reindex`: rebuild the derived index and
// say whether it had drifted.
package reindex

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ReindexOptions are reindex's inputs.
type ReindexOptions struct {
	IO       *cmdutil.IOStreams
	Service  func() (*service.Service, error)
	Printer  func() cmdutil.Printer
	Progress func(title string) *cmdutil.ProgressMeter
}

// NewCmdReindex is the reindex command; runF (nil: reindexRun) runs it.
func NewCmdReindex(f *cmdutil.Factory, runF func(*ReindexOptions) error) *cobra.Command {
	opts := &ReindexOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer, Progress: f.ProgressMeter}
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the derived index from the records and report drift",
		Example: `  git records reindex
  git records reindex --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return reindexRun(opts)
		},
	}
}

func reindexRun(opts *ReindexOptions) error {
	// A rebuild holds the whole new base in the heap until it is written
	// (95 MB live at 100k records): at the default GC percent the heap
	// grows to twice that before a collection, and the process to 260 MiB.
	cmdutil.PreferGCPercent(50)
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	meter := opts.Progress("Reading records")
	res, err := svc.ReindexProgress(meter.Func())
	meter.Stop()
	if err != nil {
		return err
	}
	return opts.Printer().Result(res, func(out io.Writer) error {
		fmt.Fprintf(out, "%d records, %d links (%d sources, %d targets): %s\n", res.Records, res.Links, res.ForwardSources, res.ReverseTargets, Verdict(res))
		for _, b := range res.Broken {
			fmt.Fprintf(out, "not a valid record: %s (git records verify explains)\n", b)
		}
		return nil
	})
}

// Verdict says in words what reindex found; only drift is news.
func Verdict(res *service.ReindexResult) string {
	switch res.State {
	case service.IndexBehind:
		return "the index was behind the tip and caught up (normal after a write by another process); no drift"
	case service.IndexMissing:
		return "there was no index; built from the branch"
	case service.IndexDrift:
		if len(res.Drift) == 0 {
			return "the index disagreed with the branch (its tip is not in this history) and was rebuilt"
		}
		return "drift: the index disagreed with the branch on " + strings.Join(res.Drift, ", ") + "; rebuilt from the branch"
	}
	return "the index is current; no drift"
}
