// Package graph is `git records graph [<handle>]`.
package graph

import (
	"io"

	"github.com/spf13/cobra"

	rgraph "github.com/git-records/git-records/graph"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// GraphOptions are what graph is asked: the record to draw around (none:
// the whole store), how far to go, and in what form.
type GraphOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Handle string
	Depth  int
	Format string // mermaid, dot or json (--json without --format: json)
}

// NewCmdGraph is the graph command; runF (nil: graphRun) runs it.
func NewCmdGraph(f *cmdutil.Factory, runF func(*GraphOptions) error) *cobra.Command {
	opts := &GraphOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "graph [<handle>] [--depth N] [--format mermaid|dot|json]",
		Short: "Draw the link graph, or a record's neighbourhood, as Mermaid, Graphviz dot or JSON",
		Long: `graph draws the records' links from the graph index: with a handle, the
record's neighbourhood (every record within --depth links of it, following
links and backlinks, and the links among them); without one, the whole
store. A link to no record is drawn dashed, as "(no such record)".
Mermaid renders in GitHub Markdown; dot is for Graphviz (dot -Tsvg).`,
		Example: `  git records graph auth/token-refresh --depth 2
  git records graph --format dot | dot -Tsvg > records.svg
  printf '%s\n' '` + "```mermaid" + `' "$(git records graph rfc-6749)" '` + "```" + `' >> "$GITHUB_STEP_SUMMARY"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Handle = args[0]
			}
			if f.JSON && !cmd.Flags().Changed("format") {
				opts.Format = "json"
			}
			if err := cmdutil.OneOf("--format", opts.Format, rgraph.Formats); err != nil {
				return err
			}
			if opts.Depth < 1 {
				return kernel.Errorf(kernel.CodeUsage, "--depth must be 1 or more, not %d", opts.Depth).WithExtra("flag", "--depth")
			}
			if runF != nil {
				return runF(opts)
			}
			return graphRun(opts)
		},
	}
	c.Flags().IntVar(&opts.Depth, "depth", 1, "with a handle: how many links away to draw (`N` ≥ 1)")
	c.Flags().StringVar(&opts.Format, "format", "mermaid", "mermaid, dot or json")
	return c
}

func graphRun(opts *GraphOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	v, err := svc.View()
	if err != nil {
		return err
	}
	g, err := svc.Graph(v, opts.Handle, opts.Depth)
	if err != nil {
		return err
	}
	p := opts.Printer()
	switch opts.Format {
	case "json":
		return p.JSON(g)
	case "dot":
		return p.Text(func(w io.Writer) error { return rgraph.Dot(w, g) })
	}
	return p.Text(func(w io.Writer) error { return rgraph.Mermaid(w, g) })
}
