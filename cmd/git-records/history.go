package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

func (a *app) logCommand() *cobra.Command {
	var limit int
	var format, since string
	c := &cobra.Command{
		Use:   "log [<handle>] [-n N] [--format text|jsonl|json] [--since-commit REV]",
		Short: "Show the history of a record, or of the store: op, agent, signer, signature, evidence",
		Long: `log lists the commits that changed a record (or every commit of the store),
newest first: the op, the records it names, the agent, the signer (the
principal .records/allowed_signers gives the signing key, as of the parent
commit), the signature status as git's %G? has it (good G, bad B, unknown_key
U, unsigned N, unverifiable E), the time and the evidence trailers.
Signatures are checked in-process, as verify checks them.

--format jsonl prints one JSON object per commit, for other tools:
{"commit","op","records","agent","signer","signature","signature_code",
"time","subject","evidence":{"Rationale":…},"approved_by",…}; --json prints
the same objects as one array. --since-commit REV lists only what REV cannot
reach: poll with the tip you last saw to get what changed since.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.jsonOut && !cmd.Flags().Changed("format") {
				format = "json"
			}
			switch format {
			case "text", "json", "jsonl":
			default:
				return kernel.Errorf(kernel.CodeUsage, "--format is text, jsonl or json, not %q", format)
			}
			svc, err := a.readService()
			if err != nil {
				return err
			}
			q := service.LogQuery{Limit: limit, Since: since}
			if len(args) == 1 {
				q.Handle = args[0]
			}
			entries, err := svc.Log(q)
			if err != nil {
				return err
			}
			switch format {
			case "json":
				a.writeJSON(entries)
			case "jsonl":
				enc := json.NewEncoder(a.out)
				enc.SetEscapeHTML(false)
				for _, e := range entries {
					if err := enc.Encode(e); err != nil {
						return err
					}
				}
			default:
				a.printHistory(entries)
			}
			return nil
		},
	}
	c.Flags().IntVarP(&limit, "max-count", "n", 0, "show at most `N` commits")
	c.Flags().StringVar(&format, "format", "text", "text, jsonl (one object per commit) or json")
	c.Flags().StringVar(&since, "since-commit", "", "only commits `REV` cannot reach (what changed since you saw REV)")
	return c
}

// printHistory prints one line per commit: commit, time, op, signature,
// signer, agent, subject and evidence.
func (a *app) printHistory(entries []service.HistoryEntry) {
	w := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
	for _, e := range entries {
		signer := e.Signer
		if signer == "" {
			signer = "-"
		}
		agent := e.Agent
		if agent == "" {
			agent = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", e.Commit[:12], e.Time.Format(time.DateTime), e.Op, e.Signature,
			oneLine(signer), oneLine(agent), oneLine(e.Subject), evidenceSuffix(e))
	}
	w.Flush()
}

// evidenceSuffix renders the evidence (and approval) on the commit's line.
func evidenceSuffix(e service.HistoryEntry) string {
	var parts []string
	for _, k := range sortedKeys(e.Evidence) {
		switch v := e.Evidence[k].(type) {
		case string:
			parts = append(parts, k+": "+oneLine(v))
		case []string:
			parts = append(parts, k+": "+oneLine(strings.Join(v, ", ")))
		}
	}
	if e.ApprovedBy != "" {
		parts = append(parts, "Approved-By: "+e.ApprovedBy)
	}
	if len(parts) == 0 {
		return ""
	}
	return "  {" + strings.Join(parts, "; ") + "}"
}

func (a *app) blameCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "blame <handle>",
		Short: "Show which commit last set each field of a record",
		Long: `blame walks a record's history and names, for each field (title, body,
category, tags, aliases, status, links, expires_at, ttl_seconds, scope,
freshness, kind, role, authority, source, observed_at), the newest commit
that changed it, with its op, agent and date; a field never changed belongs
to the commit that created the record.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readService()
			if err != nil {
				return err
			}
			b, cur, err := svc.Blame(args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(b)
				return nil
			}
			w := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
			for _, f := range b.Fields {
				agent := f.Agent
				if agent == "" {
					agent = "-"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Field, f.Commit[:12], f.Op, oneLine(agent), f.Time.Format(time.DateOnly), fieldPreview(cur, f.Field))
			}
			return w.Flush()
		},
	}
}

// fieldPreview is a field's current value, on one line and short.
func fieldPreview(r *kernel.Record, field string) string {
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
		v = strings.Join(linkList(r.Links), ", ")
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
	v = oneLine(v)
	if len([]rune(v)) > 48 {
		v = string([]rune(v)[:47]) + "…"
	}
	if v == "" {
		v = "-"
	}
	return v
}

func linkList(ls []kernel.Link) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Kind + ":" + l.TargetID
	}
	return out
}
