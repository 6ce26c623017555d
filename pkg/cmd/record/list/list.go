// Package list is `git records list`.
package list

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ListOptions are list's inputs.
type ListOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Filter record.ListFilter
}

// NewCmdList is the list command; runF (nil: listRun) runs it.
func NewCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "list [--type T] [--category C [--prefix]] [--tag t] [--include-retired]",
		Short: "List records (retired ones only when asked)",
		Example: `  git records list --category auth --prefix
  git records list --live --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return listRun(opts)
		},
	}
	opts.Filter.Register(c)
	return c
}

func listRun(opts *ListOptions) error {
	lq, err := opts.Filter.Resolve()
	if err != nil {
		return err
	}
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	v, err := svc.View()
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		// Streamed: a listing of every record holds one record at a time.
		return p.JSONArray(func(emit func(any) error) error {
			return svc.EachAt(v, lq, func(r *kernel.Record) error { return emit(r) })
		})
	}
	return p.Buffered(func(out io.Writer) error {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		row := func(id, typ, category string, status kernel.Status, title string) {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", service.HandleFor(v, id), typ, category, service.ListedStatus(v, id, status), service.OneLine(title))
		}
		if lq.Live || lq.Stale {
			rs, err := svc.ListAt(v, lq)
			if err != nil {
				return err
			}
			for _, r := range rs {
				row(r.ID, r.Type, r.Category, r.EffectiveStatus(), r.Title)
			}
			return w.Flush()
		}
		// Without freshness, people's listing needs only the index.
		es, err := v.ListEntries(lq.Filter)
		if err != nil {
			return err
		}
		for e := range es.All() {
			row(e.ID, e.Type, e.Category, e.Status, e.Title)
		}
		return w.Flush()
	})
}
