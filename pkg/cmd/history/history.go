// Package history holds what the history commands (log, blame, audit,
// watch, diff) share, and what other commands show of a record's history:
// the text of a record diff (edit shows what it changed as diff does).
package history

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

type palette struct{ add, del, head, dim, reset string }

func colors(on bool) palette {
	if !on {
		return palette{}
	}
	return palette{add: "\033[32m", del: "\033[31m", head: "\033[1m", dim: "\033[2m", reset: "\033[0m"}
}

// RenderDiffText writes a record diff for people: records added, changed
// field by field, superseded and retired, links, violations; colour when on.
func RenderDiffText(w io.Writer, d *service.RecordDiff, color bool) {
	p := colors(color)
	if d.Empty() {
		fmt.Fprintln(w, "no record differences")
		return
	}
	for _, r := range d.Added {
		scope := ""
		if r.Scope != nil && len(r.Scope.Paths) > 0 {
			scope = ", scope " + ScopeText(r.Scope, func(s string) string { return s })
		}
		fmt.Fprintf(w, "%s+ added   %s%s %s (%s, %s%s)\n", p.add, r.ID, p.reset, r.Title, r.Type, r.Category, scope)
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
			fmt.Fprintf(w, "    %slog: %s by %s at %s%s%s\n", p.dim, e.Op, e.Agent, e.At, EvidenceText(e), p.reset)
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

// EvidenceText is a mutation-log entry's evidence and note, " (k=v, …)".
func EvidenceText(e kernel.MutationEntry) string {
	if len(e.Evidence) == 0 && e.Note == "" {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(e.Evidence)) {
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

// ScopeText shows where a record applies: its paths, each through quote.
func ScopeText(sc *kernel.Scope, quote func(string) string) string {
	if sc == nil || len(sc.Paths) == 0 {
		return "none"
	}
	paths := make([]string, len(sc.Paths))
	for i, p := range sc.Paths {
		paths[i] = quote(p)
	}
	return strings.Join(paths, ", ")
}
