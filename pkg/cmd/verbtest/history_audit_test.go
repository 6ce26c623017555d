package verbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	auditcmd "github.com/git-records/git-records/pkg/cmd/history/audit"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

type auditOut struct {
	Audit   []kernel.AuditLine `json:"audit"`
	Skipped int                `json:"skipped"`
}

// TestAuditRun: one line per op of the write path, allowed or refused,
// oldest first; --since a time, date or age; a torn line is skipped with
// a note; a bad --since is a usage error naming it.
func TestAuditRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	id := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Audited"})
	_, err := st.Service(t).Create(kernel.CreateInput{Type: "concept", Category: "eng", Body: "b", Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{})
	require.Error(t, err, "no title")
	audit := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, auditcmd.NewCmdAudit(f, nil), args...)
	}
	var out auditOut
	audit("--json").JSON(t, &out)
	require.Len(t, out.Audit, 3, "init, create, the refused create")
	assert.Equal(t, "init", out.Audit[0].Op)
	assert.Equal(t, []string{id}, out.Audit[1].EvidenceRefs.Records)
	assert.Equal(t, kernel.AuditAllowed, out.Audit[1].Result)
	assert.Equal(t, kernel.AuditFailed, out.Audit[2].Result)
	assert.Equal(t, "MISSING_EVIDENCE", out.Audit[2].Code)

	r := audit()
	require.Equal(t, 0, r.Code, r.String())
	text := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	require.Len(t, text, 3)
	assert.Contains(t, text[1], "commit="+st.Tip(t)[:12])
	assert.Regexp(t, `failed\s+seed .* via=test MISSING_EVIDENCE .*: title is required`, text[2], "a refusal says why")

	audit("--json", "--since", "2999-01-01").JSON(t, &out)
	assert.Empty(t, out.Audit)
	assert.Equal(t, "no audit lines\n", audit("--since", "2999-01-01").Stdout)
	audit("--json", "--since", "1h").JSON(t, &out)
	assert.Len(t, out.Audit, 3, "the store's clock is in 2026; the audit's is the wall clock")
	assert.Equal(t, "--since", audit("--json", "--since", "yesterday-ish").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)["flag"])

	log := filepath.Join(st.Dir, ".git", "records", "audit.jsonl")
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2026-01-01T00:00:00Z","op":"cre`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	r = audit("--json")
	r.JSON(t, &out)
	assert.Equal(t, 1, out.Skipped)
	assert.Len(t, out.Audit, 3)
	assert.Contains(t, r.Stderr, "skipped 1 audit line(s) that do not parse")
}
