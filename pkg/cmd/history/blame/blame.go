// Package blame is `git records blame <handle>`.
package blame

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// BlameOptions are blame's inputs.
type BlameOptions struct {
	IO          *cmdutil.IOStreams
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Handle string
}

// NewCmdBlame is the blame command; runF (nil: blameRun) runs it.
func NewCmdBlame(f *cmdutil.Factory, runF func(*BlameOptions) error) *cobra.Command {
	opts := &BlameOptions{IO: f.IOStreams, ReadService: f.ReadService, Printer: f.Printer}
	return &cobra.Command{
		Use:   "blame <handle>",
		Short: "Show which commit last set each field of a record",
		Long: `blame walks a record's history and names, for each field (title, body,
category, tags, aliases, status, links, expires_at, ttl_seconds, scope,
freshness, kind, role, authority, source, observed_at), the newest commit
that changed it, with its op, agent and date; a field never changed belongs
to the commit that created the record.`,
		Example: `  git records blame auth/token-refresh
  git records blame 3f2a9c1e --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			if runF != nil {
				return runF(opts)
			}
			return blameRun(opts)
		},
	}
}

func blameRun(opts *BlameOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	b, cur, err := svc.Blame(opts.Handle)
	if err != nil {
		return err
	}
	return opts.Printer().Result(b, func(out io.Writer) error {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		for _, f := range b.Fields {
			agent := service.OneLine(f.Agent)
			if agent == "" {
				agent = "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Field, f.Commit[:12], f.Op, agent, f.Time.Format(time.DateOnly), FieldPreview(cur, f.Field))
		}
		return w.Flush()
	})
}

// FieldPreview is a field's current value, on one line and short.
func FieldPreview(r *kernel.Record, field string) string {
	var v string
	switch field {
	case "title":
		v = r.Title
	case "body":
		v = r.Body
	case "category":
		v = r.Category
	case "tags":
		v = strings.Join(r.Tags, ", ")
	case "aliases":
		v = strings.Join(r.Aliases, ", ")
	case "status":
		v = string(r.EffectiveStatus())
	case "links":
		links := make([]string, len(r.Links))
		for i, l := range r.Links {
			links[i] = l.Kind + ":" + l.TargetID
		}
		v = strings.Join(links, ", ")
	case "expires_at":
		if r.ExpiresAt != nil {
			v = r.ExpiresAt.String()
		}
	case "ttl_seconds":
		if r.TTLSeconds != nil {
			v = fmt.Sprint(*r.TTLSeconds)
		}
	case "scope":
		if r.Scope != nil {
			v = strings.Join(r.Scope.Paths, ", ")
		}
	case "freshness":
		if r.Freshness != nil {
			v = string(r.Freshness.State) + " at " + r.Freshness.CheckedAt.String()
		}
	case "kind":
		v = string(r.Kind)
	case "role":
		v = string(r.Role)
	case "authority":
		v = string(r.Authority)
	case "source":
		if r.Source != nil {
			v = strings.TrimSpace(r.Source.Extension + " " + r.Source.ExternalID)
		}
	case "observed_at":
		if r.ObservedAt != nil {
			v = r.ObservedAt.String()
		}
	}
	v = service.OneLine(v)
	if len([]rune(v)) > 48 {
		v = string([]rune(v)[:47]) + "…"
	}
	if v == "" {
		v = "-"
	}
	return v
}
