// Package links is `git records links <handle>`.
package links

import (
	"bufio"
	"unicode/utf8"

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
	p := opts.Printer()
	if p.JSONOn {
		l, err := svc.Links(opts.Handle)
		if err != nil {
			return err
		}
		return p.JSON(l)
	}
	// A hub's 10,000 lines (1 MB) in 16 writes, not 10,000 (or 250), each
	// written as the index gives its backlink: no slice of them.
	w := bufio.NewWriterSize(p.Out, 64<<10)
	err = svc.EachLinkLineOf(opts.Handle, func(line service.LinkLine, title service.EndTitle) {
		WriteLine(w, "→ ", line, title)
	}, func(line service.LinkLine, title service.EndTitle) {
		WriteLine(w, "← ", line, title)
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// WriteLine writes one link line, what fmt.Fprintf(w, "%s%-12s %s%s\n",
// arrow, line.Kind(), line.End, record.DescribeEnd(title, line)) would,
// without formatting it: the kind padded to 12 runes, as fmt pads.
// Exported for its test, which lives with the other command tests in
// pkg/cmd/verbtest.
func WriteLine(w *bufio.Writer, arrow string, line service.LinkLine, title service.EndTitle) {
	w.WriteString(arrow)
	width := 0
	for i, k := range line.Kinds {
		if i > 0 {
			w.WriteByte(',')
			width++
		}
		w.WriteString(k)
		width += utf8.RuneCountInString(k)
	}
	for ; width < 12; width++ {
		w.WriteByte(' ')
	}
	w.WriteByte(' ')
	w.WriteString(line.End)
	record.WriteEnd(w, title, line)
	w.WriteByte('\n')
}
