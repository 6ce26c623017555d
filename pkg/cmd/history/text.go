package history

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/service"
)

// WriteHistory prints one line per commit, as log and watch print them:
// commit, time, op, signature, signer, agent, subject and evidence.
func WriteHistory(out io.Writer, entries []service.HistoryEntry) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, e := range entries {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", e.Commit[:12], e.Time.Format(time.DateTime), e.Op, e.Signature,
			orDash(service.OneLine(e.Signer)), orDash(service.OneLine(e.Agent)), service.OneLine(e.Subject), EvidenceSuffix(e))
	}
	return w.Flush()
}

// EvidenceSuffix renders a commit's evidence (and approval) on its line:
// "  {Rationale: …; Approved-By: …}", or nothing.
func EvidenceSuffix(e service.HistoryEntry) string {
	var parts []string
	keys := make([]string, 0, len(e.Evidence))
	for k := range e.Evidence {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := e.Evidence[k].(type) {
		case string:
			parts = append(parts, k+": "+service.OneLine(v))
		case []string:
			parts = append(parts, k+": "+service.OneLine(strings.Join(v, ", ")))
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

// WriteReport is verify's report for people; diff --verify shows the same.
func WriteReport(w io.Writer, rep *hooks.Report) {
	for _, f := range rep.Violations {
		writeFinding(w, "✗", f)
	}
	for _, f := range rep.Warnings {
		writeFinding(w, "!", f)
	}
	verdict := "ok"
	if !rep.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "verify: %d commits, %d violations, %d warnings: %s\n", rep.Commits, len(rep.Violations), len(rep.Warnings), verdict)
}

func writeFinding(w io.Writer, mark string, f hooks.Finding) {
	where := []string{f.Commit[:12]}
	if f.Record != "" {
		where = append(where, "record "+f.Record)
	} else if f.Path != "" {
		where = append(where, f.Path)
	}
	fmt.Fprintf(w, "%s %s: %s: %s\n    fix: %s\n", mark, strings.Join(where, " "), f.Rule, f.Message, f.Fix)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
