package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

func (a *app) diffCommand() *cobra.Command {
	var format, color string
	var exitCode bool
	c := &cobra.Command{
		Use:   "diff <a> <b> | <a>..<b> | <a>...<b>",
		Short: "Show what changed between two record branches, record by record",
		Long: `diff compares the records of two revisions: records added, changed (field by
field, the body as a unified diff, new mutation-log entries with their
evidence), superseded and retired, link-graph changes, and violations such as
a deleted record. <a>...<b> compares b with its merge base with a, as git does.
--format markdown suits a pull-request comment; --exit-code exits 1 when the
branches differ.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			from, to, err := resolveDiffArgs(s, args)
			if err != nil {
				return err
			}
			d, err := s.Diff(from, to)
			if err != nil {
				return err
			}
			if a.jsonOut {
				format = "json"
			}
			switch format {
			case "json":
				a.writeJSON(d)
			case "markdown", "md":
				renderDiffMarkdown(a.out, d)
			case "text", "":
				renderDiffText(a.out, d, useColor(color, a.out))
			default:
				return kernel.Errorf(kernel.CodeUsage, "--format is text, markdown or json, not %q", format)
			}
			if exitCode && !d.Empty() {
				return errSilent
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "text", "text, markdown or json")
	c.Flags().StringVar(&color, "color", "auto", "colour the text output: auto, always, never")
	c.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when there are differences")
	return c
}

func resolveDiffArgs(s *gitstore.Store, args []string) (from, to plumbing.Hash, err error) {
	var a, b string
	mergeBase := false
	switch {
	case len(args) == 2:
		a, b = args[0], args[1]
	case strings.Contains(args[0], "..."):
		a, b, _ = strings.Cut(args[0], "...")
		mergeBase = true
	case strings.Contains(args[0], ".."):
		a, b, _ = strings.Cut(args[0], "..")
	default:
		return from, to, kernel.Errorf(kernel.CodeUsage, "diff needs two revisions: <a> <b>, <a>..<b> or <a>...<b>")
	}
	if a == "" {
		a = "HEAD"
	}
	if b == "" {
		b = "HEAD"
	}
	if from, err = s.ResolveRev(a); err != nil {
		return from, to, err
	}
	if to, err = s.ResolveRev(b); err != nil {
		return from, to, err
	}
	if mergeBase {
		from, err = s.MergeBase(from, to)
	}
	return from, to, err
}

func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

type palette struct{ add, del, head, dim, reset string }

func colors(on bool) palette {
	if !on {
		return palette{}
	}
	return palette{add: "\033[32m", del: "\033[31m", head: "\033[1m", dim: "\033[2m", reset: "\033[0m"}
}

func renderDiffText(w io.Writer, d *gitstore.RecordDiff, color bool) {
	p := colors(color)
	if d.Empty() {
		fmt.Fprintln(w, "no record differences")
		return
	}
	for _, r := range d.Added {
		fmt.Fprintf(w, "%s+ added   %s%s %s (%s, %s)\n", p.add, r.ID, p.reset, r.Title, r.Type, r.Category)
	}
	for _, c := range d.Changed {
		fmt.Fprintf(w, "%s~ changed %s%s %s\n", p.head, c.ID, p.reset, c.Title)
		for _, f := range c.Fields {
			switch {
			case f.Diff != "":
				fmt.Fprintf(w, "    %s:\n", f.Field)
				for _, line := range strings.Split(strings.TrimSuffix(f.Diff, "\n"), "\n") {
					col := ""
					switch {
					case strings.HasPrefix(line, "+"):
						col = p.add
					case strings.HasPrefix(line, "-"):
						col = p.del
					case strings.HasPrefix(line, "@@"):
						col = p.dim
					}
					fmt.Fprintf(w, "      %s%s%s\n", col, line, p.reset)
				}
			case f.Added != nil || f.Removed != nil:
				fmt.Fprintf(w, "    %s:", f.Field)
				for _, x := range f.Added {
					fmt.Fprintf(w, " %s+%s%s", p.add, x, p.reset)
				}
				for _, x := range f.Removed {
					fmt.Fprintf(w, " %s-%s%s", p.del, x, p.reset)
				}
				fmt.Fprintln(w)
			default:
				fmt.Fprintf(w, "    %s: %s%q%s → %s%q%s\n", f.Field, p.del, f.From, p.reset, p.add, f.To, p.reset)
			}
		}
		for _, e := range c.Log {
			fmt.Fprintf(w, "    %slog: %s by %s at %s%s%s\n", p.dim, e.Op, e.Agent, e.At, evidenceText(e), p.reset)
		}
	}
	for _, s := range d.Superseded {
		fmt.Fprintf(w, "%s» superseded %s%s %s by %s\n", p.dim, s.ID, p.reset, s.Title, s.By)
	}
	for _, r := range d.Retired {
		fmt.Fprintf(w, "%s» %s %s%s %s\n", p.dim, r.Status, r.ID, p.reset, r.Title)
	}
	for _, e := range d.Links.Added {
		fmt.Fprintf(w, "%s+ link    %s -%s-> %s%s\n", p.add, e.Source, e.Kind, e.Target, p.reset)
	}
	for _, e := range d.Links.Removed {
		fmt.Fprintf(w, "%s- link    %s -%s-> %s%s\n", p.del, e.Source, e.Kind, e.Target, p.reset)
	}
	for _, v := range d.Violations {
		fmt.Fprintf(w, "%s✗ %s: %s (%s)%s\n", p.del, v.Rule, v.Message, v.Path, p.reset)
	}
	fmt.Fprintf(w, "%d added, %d changed, %d superseded, %d retired, %d violations\n",
		len(d.Added), len(d.Changed), len(d.Superseded), len(d.Retired), len(d.Violations))
}

func evidenceText(e kernel.MutationEntry) string {
	if len(e.Evidence) == 0 && e.Note == "" {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(e.Evidence) {
		parts = append(parts, k+"="+evidenceValue(e.Evidence[k]))
	}
	if e.Note != "" {
		parts = append(parts, "note="+e.Note)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// evidenceValue shows a string as it is and anything else (lists, link
// objects) as compact JSON, never in Go's %v notation.
func evidenceValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

func renderDiffMarkdown(w io.Writer, d *gitstore.RecordDiff) {
	fmt.Fprintf(w, "## Record changes\n\n")
	if d.Empty() {
		fmt.Fprintln(w, "No record differences.")
		return
	}
	fmt.Fprintf(w, "**%d added, %d changed, %d superseded, %d retired, %d violations**\n\n",
		len(d.Added), len(d.Changed), len(d.Superseded), len(d.Retired), len(d.Violations))
	if len(d.Violations) > 0 {
		fmt.Fprintf(w, "### ❌ Violations\n\n")
		for _, v := range d.Violations {
			fmt.Fprintf(w, "- **%s**: %s (`%s`)\n", v.Rule, mdEscape(v.Message), v.Path)
		}
		fmt.Fprintln(w)
	}
	if len(d.Added) > 0 {
		fmt.Fprintf(w, "### Added\n\n| id | type | category | title |\n|---|---|---|---|\n")
		for _, r := range d.Added {
			fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", r.ID, r.Type, r.Category, mdEscape(r.Title))
		}
		fmt.Fprintln(w)
	}
	if len(d.Changed) > 0 {
		fmt.Fprintf(w, "### Changed\n\n")
		for _, c := range d.Changed {
			fmt.Fprintf(w, "#### `%s` %s\n\n", c.ID, mdEscape(c.Title))
			for _, f := range c.Fields {
				switch {
				case f.Diff != "":
					fmt.Fprintf(w, "- **%s**:\n\n```diff\n%s```\n\n", f.Field, strings.ReplaceAll(f.Diff, "```", "`\u200b``"))
				case f.Added != nil || f.Removed != nil:
					fmt.Fprintf(w, "- **%s**: %s\n", f.Field, mdList(f.Added, f.Removed))
				default:
					fmt.Fprintf(w, "- **%s**: `%s` → `%s`\n", f.Field, f.From, f.To)
				}
			}
			for _, e := range c.Log {
				fmt.Fprintf(w, "- log: **%s** by %s at %s%s\n", e.Op, mdEscape(e.Agent), e.At, mdEscape(evidenceText(e)))
			}
			fmt.Fprintln(w)
		}
	}
	if len(d.Superseded)+len(d.Retired) > 0 {
		fmt.Fprintf(w, "### Superseded and retired\n\n")
		for _, s := range d.Superseded {
			fmt.Fprintf(w, "- `%s` %s: superseded by `%s`\n", s.ID, mdEscape(s.Title), s.By)
		}
		for _, r := range d.Retired {
			fmt.Fprintf(w, "- `%s` %s: %s\n", r.ID, mdEscape(r.Title), r.Status)
		}
		fmt.Fprintln(w)
	}
	if len(d.Links.Added)+len(d.Links.Removed) > 0 {
		fmt.Fprintf(w, "### Links\n\n")
		for _, e := range d.Links.Added {
			fmt.Fprintf(w, "- ➕ `%s` —%s→ `%s`\n", e.Source, e.Kind, e.Target)
		}
		for _, e := range d.Links.Removed {
			fmt.Fprintf(w, "- ➖ `%s` —%s→ `%s`\n", e.Source, e.Kind, e.Target)
		}
	}
}

func mdList(added, removed []string) string {
	var parts []string
	for _, x := range added {
		parts = append(parts, "+`"+x+"`")
	}
	for _, x := range removed {
		parts = append(parts, "−`"+x+"`")
	}
	return strings.Join(parts, " ")
}

// mdEscape keeps user text from breaking the table or the markup.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "'")
	return r.Replace(s)
}
