package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/graph"
	"github.com/git-records/git-records/kernel"
)

// graphOptions are what `graph` is asked: the record to draw around (none:
// the whole store), how far to go, and in what form.
type graphOptions struct {
	Handle string
	Depth  int
	Format string
}

// graphCommand parses the command line into graphOptions and hands them to
// runGraph with the view it reads.
func (a *app) graphCommand() *cobra.Command {
	opts := graphOptions{}
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
			if a.jsonOut && !cmd.Flags().Changed("format") {
				opts.Format = "json"
			}
			v, err := a.view()
			if err != nil {
				return err
			}
			return runGraph(opts, v, a.printer())
		},
	}
	c.Flags().IntVar(&opts.Depth, "depth", 1, "with a handle: how many links away to draw (`N` ≥ 1)")
	c.Flags().StringVar(&opts.Format, "format", "mermaid", "mermaid, dot or json")
	return c
}

// runGraph draws the graph opts ask for from the view's index.
func runGraph(opts graphOptions, v *gitstore.View, p printer) error {
	if err := oneOf("--format", opts.Format, graph.Formats); err != nil {
		return err
	}
	if opts.Depth < 1 {
		return kernel.Errorf(kernel.CodeUsage, "--depth must be 1 or more, not %d", opts.Depth).WithExtra("flag", "--depth")
	}
	g, err := graphOf(v, opts.Handle, opts.Depth)
	if err != nil {
		return err
	}
	switch opts.Format {
	case "json":
		return p.JSON(g)
	case "dot":
		return p.Text(func(w io.Writer) error { return graph.Dot(w, g) })
	}
	return p.Text(func(w io.Writer) error { return graph.Mermaid(w, g) })
}

// graphOf is the graph `graph` and the web view draw: the whole store, or
// the neighbourhood of the record handle names.
func graphOf(v *gitstore.View, handle string, depth int) (*graph.Graph, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	if handle == "" {
		return graph.Whole(ix), nil
	}
	id, err := v.Resolve(handle)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", handle)
	}
	return graph.Around(ix, id, depth), nil
}
