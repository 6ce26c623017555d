// Package show is `git records show <handle>`.
package show

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ShowOptions are show's inputs.
type ShowOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Handle string
}

// NewCmdShow is the show command; runF (nil: showRun) runs it.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer}
	return &cobra.Command{
		Use:   "show <handle>",
		Short: "Show a record (by id, alias, or a prefix of 8+ characters)",
		Example: `  git records show 3f2a9c1e
  git records show auth/token-refresh --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
}

func showRun(opts *ShowOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	v, r, err := svc.Record(opts.Handle)
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(r)
	}
	page, err := svc.RecordPage(v, r)
	if err != nil {
		return err
	}
	// Through Result's buffer: the tab writer writes each cell on its own,
	// about 150 write calls for a record with a few dozen links.
	return p.Result(page, func(out io.Writer) error {
		// Its fields, its scope and freshness as the working tree stands
		// now, each link and backlink once with the title of the record
		// at its other end, then the body.
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		for _, f := range page.Fields {
			fmt.Fprintf(w, "%s\t%s\n", f.Name, f.Value)
		}
		l := page.Links
		for _, line := range service.LinkLines(l.Forward, func(e service.Edge) string { return e.Target }) {
			fmt.Fprintf(w, "%s\t%s → %s%s\n", "link", line.Kind(), line.End, record.DescribeEnd(l.ForwardTitles[line.First], line))
		}
		for _, line := range service.LinkLines(l.Reverse, func(e service.Edge) string { return e.Source }) {
			fmt.Fprintf(w, "%s\t%s ← %s%s\n", "backlink", line.Kind(), line.End, record.DescribeEnd(l.ReverseTitles[line.First], line))
		}
		w.Flush()
		fmt.Fprintf(out, "\n%s", r.Body)
		if !strings.HasSuffix(r.Body, "\n") {
			fmt.Fprintln(out)
		}
		return nil
	})
}
