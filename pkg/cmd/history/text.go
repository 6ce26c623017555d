package history

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

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
	if text := e.EvidenceText(); text != "" {
		return "  {" + text + "}"
	}
	return ""
}

// WriteReport is verify's report for people; diff --verify shows the same.
func WriteReport(w io.Writer, rep *service.Report) {
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

func writeFinding(w io.Writer, mark string, f service.Finding) {
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
