// Package diff is `git records diff <a> <b>`: what changed between two
// record branches, record by record.
package diff

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/history"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// DiffOptions are diff's inputs.
type DiffOptions struct {
	IO      *cmdutil.IOStreams
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer
	ColorOn func(io.Writer) bool

	Revs     []string // <a> <b>, or one range
	Format   string   // text, markdown (md) or json (--json: json)
	ExitCode bool     // --exit-code
	Verify   bool     // --verify
}

// NewCmdDiff is the diff command; runF (nil: diffRun) runs it.
func NewCmdDiff(f *cmdutil.Factory, runF func(*DiffOptions) error) *cobra.Command {
	opts := &DiffOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "diff <a> <b> | <a>..<b> | <a>...<b>",
		Short: "Show what changed between two record branches, record by record",
		Long: `diff compares the records of two revisions: records added, changed (field by
field, the body as a unified diff, new mutation-log entries with their
evidence), superseded and retired, link-graph changes, and violations such as
a deleted record. <a>...<b> compares b with its merge base with a, as git does.
--format markdown suits a pull-request comment; --exit-code exits 1 when the
branches differ. --verify also judges every commit <b> has and <a> lacks, as
git records verify <a>..<b> does: the output's violation count and its
verification block come from that one run, and a violation exits 1.`,
		Example: `  git records diff origin/records records
  git records diff origin/records...HEAD --format markdown --verify >> "$GITHUB_STEP_SUMMARY"`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Revs = args
			opts.ColorOn = func(w io.Writer) bool { return f.ColorOn(cmd, w) }
			// A bad --format is refused with --json too, which prints JSON.
			switch opts.Format {
			case "json", "markdown", "md", "text", "":
			default:
				return kernel.Errorf(kernel.CodeUsage, "--format is text, markdown or json, not %q", opts.Format).WithExtra("flag", "--format")
			}
			if f.JSON {
				opts.Format = "json"
			}
			if runF != nil {
				return runF(opts)
			}
			return diffRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "text", "text, markdown or json")
	c.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit 1 when there are differences")
	c.Flags().BoolVar(&opts.Verify, "verify", false, "also verify the commits <b> has and <a> lacks; exit 1 on a violation")
	return c
}

func diffRun(opts *DiffOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	res, err := svc.Diff(opts.Revs, opts.Verify)
	if err != nil {
		return err
	}
	d, rep := res.RecordDiff, res.Verification
	p := opts.Printer()
	switch opts.Format {
	case "json":
		err = p.JSON(res)
	case "markdown", "md":
		err = p.Text(func(out io.Writer) error { renderDiffMarkdown(out, d, rep); return nil })
	default:
		err = p.Text(func(out io.Writer) error {
			history.RenderDiffText(out, d, opts.ColorOn(out))
			if rep != nil {
				history.WriteReport(out, rep)
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	if (opts.ExitCode && !d.Empty()) || (rep != nil && !rep.OK) {
		return cmdutil.SilentError
	}
	return nil
}

// renderDiffMarkdown writes the pull-request summary. With rep (diff
// --verify) the header's violation count, the violations listed and the
// verification block are all that one verification; without it they are
// the diff's own findings.
func renderDiffMarkdown(w io.Writer, d *service.RecordDiff, rep *service.Report) {
	fmt.Fprintf(w, "## Record changes\n\n")
	if d.Empty() && (rep == nil || rep.OK) {
		fmt.Fprintln(w, "No record differences.")
		writeVerificationBlock(w, rep)
		return
	}
	violations := len(d.Violations)
	if rep != nil {
		violations = len(rep.Violations)
	}
	fmt.Fprintf(w, "**%d added, %d changed, %d superseded, %d retired, %d violations**\n\n",
		len(d.Added), len(d.Changed), len(d.Superseded), len(d.Retired), violations)
	if violations > 0 {
		fmt.Fprintf(w, "### ❌ Violations\n\n")
		if rep != nil {
			for _, f := range rep.Violations {
				where := "`" + f.Commit[:12] + "`"
				if f.Record != "" {
					where += " record `" + f.Record + "`"
				}
				fmt.Fprintf(w, "- **%s** %s: %s (fix: %s)\n", f.Rule, where, mdEscape(f.Message), mdEscape(f.Fix))
			}
		} else {
			for _, v := range d.Violations {
				fmt.Fprintf(w, "- **%s**: %s (`%s`)\n", v.Rule, mdEscape(v.Message), v.Path)
			}
		}
		fmt.Fprintln(w)
	}
	if len(d.Added) > 0 {
		fmt.Fprintf(w, "### Added\n\n")
		for _, r := range d.Added {
			fmt.Fprintf(w, "#### `%s` %s\n\n%s · %s · scope: %s\n\n", r.ID, mdEscape(r.Title), r.Type, r.Category, history.ScopeText(r.Scope, codeSpan))
			if r.Excerpt != "" {
				fmt.Fprintf(w, "```\n%s\n```\n\n", fence(r.Excerpt))
			}
			if r.MoreLines > 0 {
				fmt.Fprintf(w, "_… %d more lines_\n\n", r.MoreLines)
			}
		}
	}
	if len(d.Changed) > 0 {
		fmt.Fprintf(w, "### Changed\n\n")
		for _, c := range d.Changed {
			fmt.Fprintf(w, "#### `%s` %s\n\n", c.ID, mdEscape(c.Title))
			for _, f := range c.Fields {
				switch {
				case f.Diff != "":
					fmt.Fprintf(w, "- **%s**:\n\n```diff\n%s```\n\n", f.Field, fence(f.Diff))
				case f.Added != nil || f.Removed != nil:
					fmt.Fprintf(w, "- **%s**: %s\n", f.Field, mdList(f.Added, f.Removed))
				default:
					fmt.Fprintf(w, "- **%s**: `%s` → `%s`\n", f.Field, f.From, f.To)
				}
			}
			for _, e := range c.Log {
				fmt.Fprintf(w, "- log: **%s** by %s at %s%s\n", e.Op, mdEscape(e.Agent), e.At, mdEscape(history.EvidenceText(e)))
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
	writeVerificationBlock(w, rep)
}

// writeVerificationBlock is git records verify's report, as it prints it.
func writeVerificationBlock(w io.Writer, rep *service.Report) {
	if rep == nil {
		return
	}
	var b strings.Builder
	history.WriteReport(&b, rep)
	fmt.Fprintf(w, "\n### Verification\n\n```\n%s```\n", fence(b.String()))
}

func codeSpan(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

// fence keeps text from closing the code block it is shown in.
func fence(s string) string { return strings.ReplaceAll(s, "```", "`\u200b``") }

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
