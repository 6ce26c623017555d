// Package search is `git records search <query>`.
package search

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// SearchOptions are search's inputs.
type SearchOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Query  string
	Filter record.ListFilter
	Limit  int
}

// NewCmdSearch is the search command; runF (nil: searchRun) runs it.
func NewCmdSearch(f *cmdutil.Factory, runF func(*SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "search <query>",
		Short: "Find records by their words, best first, with a snippet of each",
		Long: `Search the title, body, tags, aliases and category of every record, ranked
(a title hit above a body hit), with list's filters.

  token refresh         both words, anywhere
  '"refresh token"'     the phrase (quote it for the shell too)
  tok*                  a word beginning with tok
  title:token           in one field: title, alias, tag, category or body
  tag:team-1            a whole tag (alias and category too)

The search index is kept beside the graph index, caught up from the
branch's changes when search runs and rebuilt by reindex.`,
		Example: `  git records search token refresh
  git records search 'title:token' --type concept --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if runF != nil {
				return runF(opts)
			}
			return searchRun(opts)
		},
	}
	opts.Filter.Register(c)
	c.Flags().IntVar(&opts.Limit, "limit", 20, "at most this many results (0: all)")
	return c
}

func searchRun(opts *SearchOptions) error {
	lq, err := opts.Filter.Resolve()
	if err != nil {
		return err
	}
	// A search in a store with no index yet (a new clone) reads every
	// record to build the graph and search indexes, as reindex does: keep
	// its heap as reindex keeps it. Nothing changes for a search whose
	// index is current (it never collects).
	cmdutil.PreferGCPercent(50)
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	hits, v, err := svc.Search(service.SearchQuery{Query: opts.Query, ListQuery: lq, Limit: opts.Limit})
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		// Hit by hit through one buffer: the bytes JSON writes for the
		// slice, without encoding/json growing the whole document and
		// then its indented copy (about 25 page faults for 20 hits).
		return p.JSONArray(func(emit func(any) error) error {
			for i := range hits {
				if err := emit(&hits[i]); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return p.Result(hits, func(out io.Writer) error {
		for _, h := range hits {
			fmt.Fprintf(out, "%s  %s  %s  %s\n", service.HandleFor(v, h.ID), h.Type, h.Category, service.OneLine(h.Title))
			if h.Text != "" {
				fmt.Fprintf(out, "    %s\n", Marked(h.Text, h.Highlights))
			}
		}
		return nil
	})
}

// Marked wraps the highlighted ranges of a snippet in ** for a terminal.
func Marked(text string, highlights [][2]int) string {
	var b strings.Builder
	at := 0
	for _, h := range highlights {
		if h[0] < at || h[1] > len(text) || h[0] > h[1] {
			continue
		}
		b.WriteString(text[at:h[0]])
		b.WriteString("**" + text[h[0]:h[1]] + "**")
		at = h[1]
	}
	b.WriteString(text[at:])
	return b.String()
}
