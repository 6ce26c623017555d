// Package links is `git records links <handle>`.
package links

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// LinksOptions are links' inputs.
type LinksOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Handle string
}

// NewCmdLinks is the links command; runF (nil: linksRun) runs it.
func NewCmdLinks(f *cmdutil.Factory, runF func(*LinksOptions) error) *cobra.Command {
	opts := &LinksOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer}
	return &cobra.Command{
		Use:   "links <handle>",
		Short: "Show a record's links and backlinks",
		Example: `  git records links auth/token-refresh
  git records links 3f2a9c1e --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			if runF != nil {
				return runF(opts)
			}
			return linksRun(opts)
		},
	}
}

func linksRun(opts *LinksOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	v, l, err := svc.Links(opts.Handle)
	if err != nil {
		return err
	}
	return opts.Printer().Result(l, func(out io.Writer) error {
		for _, e := range l.Forward {
			fmt.Fprintf(out, "→ %-12s %s%s\n", e.Kind, e.Target, record.DescribeEnd(v, e.Target, e.Label))
		}
		for _, e := range l.Reverse {
			fmt.Fprintf(out, "← %-12s %s%s\n", e.Kind, e.Source, record.DescribeEnd(v, e.Source, e.Label))
		}
		return nil
	})
}
