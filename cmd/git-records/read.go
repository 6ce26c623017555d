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
	"github.com/git-records/git-records/service"
)

func (a *app) showCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show <handle>",
		Short: "Show a record (by id, alias, or a prefix of 8+ characters)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readService()
			if err != nil {
				return err
			}
			v, r, err := svc.Record(args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(r)
				return nil
			}
			return a.printRecord(svc, v, r)
		},
	}
}

// printRecord shows a record for people: its fields, its scope and
// freshness as the working tree stands now, each link and backlink once with
// the title of the record at its other end, then the body.
func (a *app) printRecord(svc *service.Service, v *gitstore.View, r *kernel.Record) error {
	page, err := recordPageOf(svc, v, r)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
	for _, f := range page.Fields {
		fmt.Fprintf(w, "%s\t%s\n", f.Name, f.Value)
	}
	for _, e := range page.Links.Forward {
		fmt.Fprintf(w, "%s\t%s → %s%s\n", "link", e.Kind, e.Target, describeEnd(v, e.Target, e.Label))
	}
	for _, e := range page.Links.Reverse {
		fmt.Fprintf(w, "%s\t%s ← %s%s\n", "backlink", e.Kind, e.Source, describeEnd(v, e.Source, e.Label))
	}
	w.Flush()
	fmt.Fprintf(a.out, "\n%s", r.Body)
	if !strings.HasSuffix(r.Body, "\n") {
		fmt.Fprintln(a.out)
	}
	return nil
}

// field is one line of a record's summary: a name and what it says.
type field struct{ Name, Value string }

// recordPage is what show prints of a record and the web view's record page
// shows: the summary fields (scope and freshness as the working tree stands
// now), the links and backlinks, and the freshness verdict.
type recordPage struct {
	Record    *kernel.Record
	Fields    []field
	Links     gitstore.Links
	Freshness kernel.Verdict
}

// recordPageOf computes a record's page once, for show and for serve.
func recordPageOf(svc *service.Service, v *gitstore.View, r *kernel.Record) (*recordPage, error) {
	links, err := v.Links(r.ID)
	if err != nil {
		return nil, err
	}
	verdicts, err := svc.Verdicts(v, []*kernel.Record{r}, time.Now())
	if err != nil {
		return nil, err
	}
	p := &recordPage{Record: r, Links: links, Freshness: verdicts[0]}
	add := func(name, format string, args ...any) {
		p.Fields = append(p.Fields, field{name, fmt.Sprintf(format, args...)})
	}
	add("id", "%s", r.ID)
	add("title", "%s", oneLine(r.Title))
	add("type", "%s (%s/%s/%s)", r.Type, r.Kind, r.Role, r.Authority)
	add("category", "%s", r.Category)
	add("status", "%s", statusLine(r, links))
	if len(r.Tags) > 0 {
		add("tags", "%s", strings.Join(r.Tags, ", "))
	}
	if len(r.Aliases) > 0 {
		add("aliases", "%s", strings.Join(r.Aliases, ", "))
	}
	add("created", "%s by %s", r.CreatedAt, r.Provenance.Agent)
	add("updated", "%s", r.UpdatedAt)
	if exp, ok := r.EffectiveExpiry(); ok {
		add("expires", "%s", kernel.At(exp))
	}
	if sc := r.Scope; sc != nil {
		at := sc.GitHead
		if len(at) > 12 {
			at = at[:12]
		}
		if sc.Base != "" {
			at += " (" + sc.Base + ")"
		}
		add("scope", "%s at %s", strings.Join(sc.Paths, ", "), at)
	}
	vd := p.Freshness
	fresh := string(vd.State) + ": " + vd.Reason
	if len(vd.ChangedPaths) > 0 {
		fresh += ": " + strings.Join(vd.ChangedPaths, ", ")
	}
	add("freshness", "%s", fresh)
	return p, nil
}

// statusLine is a record's status, and who supersedes it when a record
// does: a superseded record keeps its stored status (B.1) but is not live.
func statusLine(r *kernel.Record, links gitstore.Links) string {
	s := string(r.EffectiveStatus())
	if by := supersededBy(links); len(by) > 0 {
		s += ", superseded by " + strings.Join(by, ", ")
	}
	return s
}

// supersededBy lists the records with a supersedes link to this one.
func supersededBy(links gitstore.Links) []string {
	var by []string
	for _, e := range links.Reverse {
		if e.Kind == kernel.LinkSupersedes {
			by = append(by, e.Source)
		}
	}
	return by
}

// describeEnd is what a link line says of the record at its other end: its
// title, or that no record answers to the handle (a dangling link).
func describeEnd(v *gitstore.View, id, label string) string {
	out := labelSuffix(label)
	ix, err := v.Index()
	if err != nil {
		return out
	}
	if e := ix.Entry(id); e != nil {
		return out + "  " + oneLine(e.Title)
	}
	return out + "  (no such record)"
}

func (a *app) linksCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "links <handle>",
		Short: "Show a record's links and backlinks",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readService()
			if err != nil {
				return err
			}
			v, l, err := svc.Links(args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(l)
				return nil
			}
			for _, e := range l.Forward {
				fmt.Fprintf(a.out, "→ %-12s %s%s\n", e.Kind, e.Target, describeEnd(v, e.Target, e.Label))
			}
			for _, e := range l.Reverse {
				fmt.Fprintf(a.out, "← %-12s %s%s\n", e.Kind, e.Source, describeEnd(v, e.Source, e.Label))
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
	var lf listFilter
	c := &cobra.Command{
		Use:   "list [--type T] [--category C [--prefix]] [--tag t] [--include-retired]",
		Short: "List records (retired ones only when asked)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lq, err := lf.resolve()
			if err != nil {
				return err
			}
			f := lq.Filter
			svc, err := a.readService()
			if err != nil {
				return err
			}
			v, err := svc.Store.View()
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printer().JSONArray(func(emit func(any) error) error {
					return svc.EachAt(v, lq, func(r *kernel.Record) error { return emit(r) })
				})
			}
			if lq.Live || lq.Stale {
				rs, err := svc.ListAt(v, lq)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
				for _, r := range rs {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", handleFor(v, r.ID), r.Type, r.Category, listedStatus(v, r.ID, r.EffectiveStatus()), oneLine(r.Title))
				}
				return w.Flush()
			}
			// Without freshness, people's listing needs only the index.
			es, err := v.ListEntries(f)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
			for _, e := range es {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", handleFor(v, e.ID), e.Type, e.Category, listedStatus(v, e.ID, e.Status), oneLine(e.Title))
			}
			return w.Flush()
		},
	}
	lf.flags(c)
	return c
}

// listFilter is list's filter flags, which every command that selects
// records the way list does shares (list, search).
type listFilter struct {
	gitstore.Filter
	status, kind, role, authority string
	live, stale                   bool
}

func (lf *listFilter) flags(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&lf.Type, "type", "", "only this type")
	fl.StringVar(&lf.Category, "category", "", "only this category")
	fl.BoolVar(&lf.CategoryPrefix, "prefix", false, "with --category: include its descendants")
	fl.StringVar(&lf.Tag, "tag", "", "only records with this tag")
	fl.StringVar(&lf.status, "status", "", "only this status: active, implemented, retired")
	fl.StringVar(&lf.kind, "kind", "", "only this kind")
	fl.StringVar(&lf.role, "role", "", "only this role")
	fl.StringVar(&lf.authority, "authority", "", "only this authority")
	fl.BoolVar(&lf.IncludeRetired, "include-retired", false, "include retired records")
	fl.BoolVar(&lf.stale, "stale", false, "only stale records, as fresh judges them: past their expiry, or their scoped files changed in the working tree")
	fl.BoolVar(&lf.live, "live", false, "leave out records that are stale, superseded or retired (checks scopes against the working tree)")
}

// resolve checks each flag's value against its vocabulary and returns the selection.
func (lf *listFilter) resolve() (service.ListQuery, error) {
	for _, err := range []error{oneOf("--status", lf.status, names(kernel.Statuses)), oneOf("--kind", lf.kind, names(kernel.Kinds)),
		oneOf("--role", lf.role, names(kernel.Roles)), oneOf("--authority", lf.authority, names(kernel.Authorities))} {
		if err != nil {
			return service.ListQuery{}, err
		}
	}
	f := lf.Filter
	f.Status, f.Kind, f.Role, f.Authority = kernel.Status(lf.status), kernel.Kind(lf.kind), kernel.Role(lf.role), kernel.Authority(lf.authority)
	return service.ListQuery{Filter: f, Live: lf.live, Stale: lf.stale}, nil
}

// oneOf refuses a flag value outside its vocabulary with USAGE naming the
// choices; an empty value (the flag not given) passes.
func oneOf(flag, value string, allowed []string) error {
	if value == "" || slices.Contains(allowed, value) {
		return nil
	}
	return kernel.Errorf(kernel.CodeUsage, "%s %q is not one of %s", flag, value, strings.Join(allowed, ", ")).WithExtra("flag", flag)
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

// listedStatus is the status column of a listing: "superseded" for a
// record another supersedes, else its stored status.
func listedStatus(v *gitstore.View, id string, status kernel.Status) string {
	if l, err := v.Links(id); err == nil && len(supersededBy(l)) > 0 {
		return "superseded"
	}
	return string(status)
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
			svc, err := a.service()
			if err != nil {
				return err
			}
			res, err := svc.Reindex()
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
	k, ok := s.ConfigValue("records.signingKey")
	return ok && k == s.SigningKeyPath()
}
