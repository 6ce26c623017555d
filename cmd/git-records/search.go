package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/service"
)

func (a *app) searchCommand() *cobra.Command {
	var lf listFilter
	var limit int
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
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lq, err := lf.resolve()
			if err != nil {
				return err
			}
			svc, err := a.readService()
			if err != nil {
				return err
			}
			hits, v, err := svc.Search(service.SearchQuery{Query: strings.Join(args, " "), ListQuery: lq, Limit: limit})
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(hits)
				return nil
			}
			for _, h := range hits {
				fmt.Fprintf(a.out, "%s  %s  %s  %s\n", handleFor(v, h.ID), h.Type, h.Category, oneLine(h.Title))
				if h.Text != "" {
					fmt.Fprintf(a.out, "    %s\n", marked(h.Text, h.Highlights))
				}
			}
			return nil
		},
	}
	lf.flags(c)
	c.Flags().IntVar(&limit, "limit", 20, "at most this many results (0: all)")
	return c
}

// marked wraps the highlighted ranges of a snippet in ** for a terminal.
func marked(text string, highlights [][2]int) string {
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
