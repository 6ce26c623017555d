package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// historyEntry is one op as an auditor reads it: one line of
// `log --format jsonl`, one element of `log --json`. The field names are a
// public format (README, "Audit").
type historyEntry struct {
	Commit          string           `json:"commit"`
	Op              string           `json:"op"`
	Records         []string         `json:"records"`
	Agent           string           `json:"agent"`
	Session         string           `json:"session,omitempty"`
	Signer          string           `json:"signer"`         // principal from allowed_signers; "" unless the signature is good
	Signature       string           `json:"signature"`      // good, bad, unknown_key, unsigned, unverifiable
	SignatureCode   string           `json:"signature_code"` // git's %G?: G, B, U, N, E
	SignatureKey    string           `json:"signature_key,omitempty"`
	SignatureDetail string           `json:"signature_detail,omitempty"`
	Signed          bool             `json:"signed"`
	Committer       string           `json:"committer"`
	Time            kernel.Timestamp `json:"time"`
	Subject         string           `json:"subject"`
	Evidence        map[string]any   `json:"evidence"` // Evidence-* trailers by name without the prefix
	ApprovedBy      string           `json:"approved_by,omitempty"`
}

// listEvidence are the evidence trailers an op writes once per item (one
// per link, per superseded id, per freshness state): always arrays in JSON,
// so a reader never has to ask whether it got one value or several.
var listEvidence = map[string]bool{"Link": true, "Supersedes": true, "Freshness": true}

func newHistoryEntry(e gitstore.HistoryEntry, sig hooks.Signature) historyEntry {
	h := historyEntry{Commit: e.Commit, Op: e.Op, Records: []string{}, Agent: e.Agent, Signer: sig.Principal,
		Signature: sig.Status, SignatureCode: sig.Code, SignatureKey: sig.Key, SignatureDetail: sig.Detail,
		Signed: e.Signed, Committer: e.Committer, Time: e.Time, Subject: e.Subject, Evidence: map[string]any{}}
	for _, t := range e.Trailers {
		switch {
		case t.Key == kernel.TrailerID:
			h.Records = append(h.Records, t.Value)
		case t.Key == kernel.TrailerSession:
			h.Session = t.Value
		case t.Key == kernel.TrailerApprovedBy:
			h.ApprovedBy = t.Value
		case strings.HasPrefix(t.Key, "Evidence-"):
			name := strings.TrimPrefix(t.Key, "Evidence-")
			switch prev := h.Evidence[name].(type) {
			case nil:
				if listEvidence[name] {
					h.Evidence[name] = []string{t.Value}
				} else {
					h.Evidence[name] = t.Value
				}
			case []string:
				h.Evidence[name] = append(prev, t.Value)
			case string: // a hand-made commit repeating a single-valued trailer: keep both
				h.Evidence[name] = []string{prev, t.Value}
			}
		}
	}
	return h
}

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
			s, err := a.openBranch()
			if err != nil {
				return err
			}
			path := ""
			if len(args) == 1 {
				_, r, err := a.record(args[0])
				if err != nil {
					return err
				}
				path = gitstore.RecordPath(r.Type, r.ID)
			}
			var from plumbing.Hash
			if since != "" {
				if from, err = s.ResolveRev(since); err != nil {
					return err
				}
			}
			h, err := s.HistorySince(path, from, limit)
			if err != nil {
				return err
			}
			checker := hooks.NewSignatureChecker(s)
			entries := make([]historyEntry, 0, len(h))
			for _, e := range h {
				sig, err := checker.Check(plumbing.NewHash(e.Commit))
				if err != nil {
					return err
				}
				entries = append(entries, newHistoryEntry(e, sig))
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
func (a *app) printHistory(entries []historyEntry) {
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
func evidenceSuffix(e historyEntry) string {
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
			s, err := a.openBranch()
			if err != nil {
				return err
			}
			v, r, err := a.record(args[0])
			if err != nil {
				return err
			}
			b, err := s.Blame(r.Type, r.ID)
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(b)
				return nil
			}
			cur, err := v.Record(r.ID)
			if err != nil {
				return err
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
