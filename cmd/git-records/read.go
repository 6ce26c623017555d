package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

func (a *app) showCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show <handle>",
		Short: "Show a record (by id, alias, or a prefix of 8+ characters)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, r, err := a.record(args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(r)
				return nil
			}
			a.printRecord(r)
			return nil
		},
	}
}

// record resolves a handle at the tip and reads the record, with its body
// links; a handle that resolves to nothing is NOT_FOUND.
func (a *app) record(handle string) (*gitstore.View, *kernel.Record, error) {
	v, err := a.view()
	if err != nil {
		return nil, nil, err
	}
	r, err := v.Get(handle)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", handle)
	}
	return v, r, nil
}

func (a *app) printRecord(r *kernel.Record) {
	w := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "%s\t%s\n", "id", r.ID)
	fmt.Fprintf(w, "%s\t%s\n", "title", oneLine(r.Title))
	fmt.Fprintf(w, "%s\t%s (%s/%s/%s)\n", "type", r.Type, r.Kind, r.Role, r.Authority)
	fmt.Fprintf(w, "%s\t%s\n", "category", r.Category)
	fmt.Fprintf(w, "%s\t%s\n", "status", r.EffectiveStatus())
	if len(r.Tags) > 0 {
		fmt.Fprintf(w, "%s\t%s\n", "tags", strings.Join(r.Tags, ", "))
	}
	if len(r.Aliases) > 0 {
		fmt.Fprintf(w, "%s\t%s\n", "aliases", strings.Join(r.Aliases, ", "))
	}
	fmt.Fprintf(w, "%s\t%s by %s\n", "created", r.CreatedAt, r.Provenance.Agent)
	fmt.Fprintf(w, "%s\t%s\n", "updated", r.UpdatedAt)
	if exp, ok := r.EffectiveExpiry(); ok {
		fmt.Fprintf(w, "%s\t%s\n", "expires", kernel.At(exp))
	}
	for _, l := range r.Links {
		label := ""
		if l.Label != "" {
			label = " (" + l.Label + ")"
		}
		fmt.Fprintf(w, "%s\t%s → %s%s\n", "link", l.Kind, l.TargetID, label)
	}
	w.Flush()
	fmt.Fprintf(a.out, "\n%s", r.Body)
	if !strings.HasSuffix(r.Body, "\n") {
		fmt.Fprintln(a.out)
	}
}

func (a *app) linksCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "links <handle>",
		Short: "Show a record's links and backlinks",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.view()
			if err != nil {
				return err
			}
			if id, err := v.Resolve(args[0]); err != nil {
				return err
			} else if id == "" {
				return kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", args[0])
			}
			l, err := v.Links(args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(l)
				return nil
			}
			for _, e := range l.Forward {
				fmt.Fprintf(a.out, "→ %-12s %s%s\n", e.Kind, e.Target, labelSuffix(e.Label))
			}
			for _, e := range l.Reverse {
				fmt.Fprintf(a.out, "← %-12s %s%s\n", e.Kind, e.Source, labelSuffix(e.Label))
			}
			return nil
		},
	}
}

func labelSuffix(l string) string {
	if l == "" {
		return ""
	}
	return " (" + l + ")"
}

func (a *app) listCommand() *cobra.Command {
	var f gitstore.Filter
	var status, kind, role, authority string
	var live bool
	c := &cobra.Command{
		Use:   "list [--type T] [--category C [--prefix]] [--tag t] [--include-retired]",
		Short: "List records (retired ones only when asked)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, check := range []struct {
				flag, value string
				allowed     []string
			}{
				{"--status", status, names(kernel.Statuses)},
				{"--kind", kind, names(kernel.Kinds)},
				{"--role", role, names(kernel.Roles)},
				{"--authority", authority, names(kernel.Authorities)},
			} {
				if check.value != "" && !slices.Contains(check.allowed, check.value) {
					return kernel.Errorf(kernel.CodeUsage, "%s %q is not one of %s", check.flag, check.value, strings.Join(check.allowed, ", ")).WithExtra("flag", check.flag)
				}
			}
			f.Status, f.Kind, f.Role, f.Authority = kernel.Status(status), kernel.Kind(kind), kernel.Role(role), kernel.Authority(authority)
			v, err := a.view()
			if err != nil {
				return err
			}
			if live {
				return a.listLive(v, f)
			}
			if a.jsonOut {
				rs, err := v.List(f)
				if err != nil {
					return err
				}
				if rs == nil {
					rs = []*kernel.Record{}
				}
				a.writeJSON(rs)
				return nil
			}
			es, err := v.ListEntries(f)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
			for _, e := range es {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", handleFor(v, e.ID), e.Type, e.Category, e.Status, oneLine(e.Title))
			}
			return w.Flush()
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.Type, "type", "", "only this type")
	fl.StringVar(&f.Category, "category", "", "only this category")
	fl.BoolVar(&f.CategoryPrefix, "prefix", false, "with --category: include its descendants")
	fl.StringVar(&f.Tag, "tag", "", "only records with this tag")
	fl.StringVar(&status, "status", "", "only this status: active, implemented, retired")
	fl.StringVar(&kind, "kind", "", "only this kind")
	fl.StringVar(&role, "role", "", "only this role")
	fl.StringVar(&authority, "authority", "", "only this authority")
	fl.BoolVar(&f.IncludeRetired, "include-retired", false, "include retired records")
	fl.BoolVar(&f.StaleOnly, "stale", false, "only records past their expiry")
	fl.BoolVar(&live, "live", false, "leave out records that are stale, superseded or retired (checks scopes against the working tree)")
	return c
}

// names spells a closed vocabulary as strings.
func names[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// oneLine folds a title onto one line for the line-per-record listings: a
// title may hold newlines, which must not start what looks like another
// record (or field) in the output.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// listLive lists the records whose freshness is current or unknown.
func (a *app) listLive(v *gitstore.View, f gitstore.Filter) error {
	rs, err := v.List(f)
	if err != nil {
		return err
	}
	verdicts, err := freshness(v, rs, a.scanner(), time.Now())
	if err != nil {
		return err
	}
	live := []*kernel.Record{}
	for i, r := range rs {
		if s := verdicts[i].State; s != kernel.FreshnessStale && s != kernel.FreshnessSuperseded && r.EffectiveStatus() != kernel.StatusRetired {
			live = append(live, r)
		}
	}
	if a.jsonOut {
		a.writeJSON(live)
		return nil
	}
	w := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
	for _, r := range live {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", handleFor(v, r.ID), r.Type, r.Category, r.EffectiveStatus(), oneLine(r.Title))
	}
	return w.Flush()
}

// handleFor is the handle a listing prints for id: its shortID, lengthened
// as git lengthens short hashes until it resolves to id itself. An 8
// character prefix that several ids share ("payment-api-v1-…",
// "payment-api-v2-…") or that is another record's id or alias would
// otherwise be printed for a record it does not name.
func handleFor(v kernel.View, id string) string {
	short := shortID(id)
	for n := len(short); n < len(id); n++ {
		if got, err := v.Resolve(id[:n]); err == nil && got == id {
			return id[:n]
		}
	}
	return id
}

// shortID is the 8-character handle people cite (Addendum H).
func shortID(id string) string {
	if len(id) > 12 {
		return id[:kernel.MinIDPrefix]
	}
	return id
}

func (a *app) reindexCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the derived index from the records and report drift",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			res, err := s.Reindex(a.graphFile())
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(res)
				return nil
			}
			fmt.Fprintf(a.out, "%d records, %d links (%d sources, %d targets): %s\n", res.Records, res.Links, res.ForwardSources, res.ReverseTargets, indexVerdict(res))
			for _, b := range res.Broken {
				fmt.Fprintf(a.out, "not a valid record: %s (git records verify explains)\n", b)
			}
			return nil
		},
	}
}

// indexVerdict says in words what reindex found; only drift is news.
func indexVerdict(res *gitstore.ReindexResult) string {
	switch res.State {
	case gitstore.IndexBehind:
		return "the index was behind the tip and caught up (normal after a write by another process); no drift"
	case gitstore.IndexMissing:
		return "there was no index; built from the branch"
	case gitstore.IndexDrift:
		if len(res.Drift) == 0 {
			return "the index disagreed with the branch (its tip is not in this history) and was rebuilt"
		}
		return "drift: the index disagreed with the branch on " + strings.Join(res.Drift, ", ") + "; rebuilt from the branch"
	}
	return "the index is current; no drift"
}

func (a *app) initCommand() *cobra.Command {
	var generate bool
	var agent string
	c := &cobra.Command{
		Use:   "init [--generate-key]",
		Short: "Create the records branch (and, with --generate-key, a signing key for it)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			_, email := s.Ident()
			line := ""
			if generate {
				if _, err := s.Signer(); err == nil && !a.keyIsOurs(s) {
					return kernel.Errorf(kernel.CodeUsage, "git already has a signing key configured (user.signingkey); drop --generate-key to use it")
				}
				if email == "" {
					return kernel.Errorf(kernel.CodeUsage, "no committer identity: set git config user.name and user.email first")
				}
				if line, err = s.GenerateSigningKey(email); err != nil {
					return err
				}
			} else if line, err = s.SignerLine(email); err != nil {
				return err // the user's own key is the store's first signer
			}
			if agent == "" {
				agent = email
			}
			w, err := s.Init(agent, line)
			if err != nil {
				return err
			}
			if _, pinned := s.Config.Get("records.trustRoot"); !pinned && !w.Commit.IsZero() && w.Mutation != nil && w.Mutation.Files[gitstore.FormatPath] != nil {
				// The commit that creates the branch is its trust root: pin it.
				if err := s.Repo.SetLocal("records.trustRoot", w.Commit.String()); err != nil {
					return err
				}
			}
			if a.jsonOut {
				out := map[string]any{"ref": s.Ref(), "created": !w.Commit.IsZero()}
				if !w.Commit.IsZero() {
					out["commit"] = w.Commit.String()
				}
				if generate {
					out["signing_key"] = s.SigningKeyPath()
					out["allowed_signers"] = s.AllowedSignersExport()
				}
				a.writeJSON(out)
				return nil
			}
			if w.Commit.IsZero() {
				fmt.Fprintf(a.out, "%s is already set up\n", s.Ref())
				if line != "" {
					if ok, _ := s.SignerAllowed(line); !ok {
						fmt.Fprintf(a.out, "your new key is not an allowed signer yet; ask a maintainer to run:\n  git records signers add %s '%s' --rationale \"…\" --agent …\n",
							email, strings.TrimSpace(line[strings.Index(line, "ssh-"):]))
					}
				}
			} else {
				fmt.Fprintf(a.out, "initialized %s at %s\n", s.Ref(), w.Commit.String()[:12])
			}
			if generate {
				fmt.Fprintf(a.out, "signing key: %s\nallowed signers: %s (git verify-commit reads it)\n", s.SigningKeyPath(), s.AllowedSignersExport())
			}
			return nil
		},
	}
	c.Flags().BoolVar(&generate, "generate-key", false, "generate an ed25519 signing key for this store")
	c.Flags().StringVar(&agent, "agent", "", "agent recorded on the init commit (default: user.email)")
	return c
}

// keyIsOurs reports whether the configured signer is the key init generated.
func (a *app) keyIsOurs(s *gitstore.Store) bool {
	k, ok := s.Config.Get("records.signingKey")
	return ok && k == s.SigningKeyPath()
}
