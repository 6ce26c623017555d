package verbtest

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	logcmd "github.com/git-records/git-records/pkg/cmd/history/log"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdLog: the handle, -n, --format and --since-commit land in the
// options; --json means --format json unless --format says otherwise; a
// format outside text, jsonl, json is a usage error.
func TestNewCmdLog(t *testing.T) {
	st := cmdtest.NewRepo(t)
	parse := func(args ...string) (*logcmd.LogOptions, cmdtest.Result) {
		f, _, _, _ := st.Factory()
		var got *logcmd.LogOptions
		r := cmdtest.Run(f, logcmd.NewCmdLog(f, func(o *logcmd.LogOptions) error { got = o; return nil }), args...)
		return got, r
	}
	o, r := parse("note", "-n", "3", "--format", "jsonl", "--since-commit", "abc")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, logcmd.LogOptions{Handle: "note", Limit: 3, Format: "jsonl", Since: "abc"}, logcmd.LogOptions{Handle: o.Handle, Limit: o.Limit, Format: o.Format, Since: o.Since})
	o, _ = parse("--json")
	assert.Equal(t, "json", o.Format)
	o, _ = parse("--json", "--format", "jsonl")
	assert.Equal(t, "jsonl", o.Format)
	_, r = parse("--json", "--format", "xml")
	assert.Equal(t, "--format", r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)["flag"])
}

// TestLogRun: one entry per commit, newest first, each signed and
// verified in-process, with the op, records, agent, signer and evidence
// (a per-item trailer always a list); --json is the same objects as one
// array; a record's log is its commits only; --since-commit lists what a
// seen tip cannot reach; text is one line per commit.
func TestLogRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	svc := st.Service(t)
	a := st.Create(t, kernel.CreateInput{ID: "token-refresh", Type: "concept", Title: "Token refresh", Provenance: kernel.Provenance{Agent: "alice"}})
	b := st.Create(t, kernel.CreateInput{ID: "session-policy", Type: "concept", Title: "Session policy", Provenance: kernel.Provenance{Agent: "alice"}})
	seen := st.Tip(t)
	_, err := svc.Link(a, []kernel.Link{{Kind: "related", TargetID: b}}, kernel.Evidence{Agent: "bob"}, kernel.Approval{})
	require.NoError(t, err)
	_, err = svc.Retire(b, kernel.StatusImplemented, kernel.Evidence{Agent: "bob", Rationale: "shipped", ImplementedByRef: "PR-43"}, kernel.Approval{})
	require.NoError(t, err)
	log := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		r := cmdtest.Run(f, logcmd.NewCmdLog(f, nil), args...)
		require.Equal(t, 0, r.Code, r.String())
		return r
	}
	lines := func(args ...string) []map[string]any {
		var out []map[string]any
		sc := bufio.NewScanner(strings.NewReader(log(append([]string{"--format", "jsonl"}, args...)...).Stdout))
		for sc.Scan() {
			var o map[string]any
			require.NoError(t, json.Unmarshal(sc.Bytes(), &o), "not one JSON object per line: %q", sc.Text())
			out = append(out, o)
		}
		return out
	}

	all := lines()
	require.Len(t, all, 5, "one line per commit of the store")
	var ops []string
	for _, e := range all {
		ops = append(ops, e["op"].(string))
		assert.Regexp(t, `^[0-9a-f]{40}$`, e["commit"])
		assert.Equal(t, "good", e["signature"], "%v", e)
		assert.Equal(t, "G", e["signature_code"])
		assert.Equal(t, cmdtest.UserEmail, e["signer"], "the principal allowed_signers names")
		assert.IsType(t, map[string]any{}, e["evidence"], "evidence is always an object")
		assert.IsType(t, []any{}, e["records"], "records is always a list")
	}
	assert.Equal(t, []string{"retire", "link", "create", "create", "init"}, ops)
	retire, link := all[0], all[1]
	assert.Equal(t, []any{b}, retire["records"])
	assert.Equal(t, "bob", retire["agent"])
	assert.Equal(t, map[string]any{"Target-Status": "implemented", "Rationale": "shipped", "Implemented-By": "PR-43"}, retire["evidence"])
	assert.Equal(t, map[string]any{"Link": []any{"related " + b}}, link["evidence"], "a per-item trailer is always a list")
	assert.NotContains(t, link, "approved_by")

	var arr []map[string]any
	log("--json", "-n", "2").JSON(t, &arr)
	require.Len(t, arr, 2)
	assert.Equal(t, all[0], arr[0], "--json is the jsonl objects as one array")
	mine := lines(b)
	require.Len(t, mine, 2, "the link changed token-refresh, not its target")
	assert.Equal(t, "retire", mine[0]["op"])
	assert.Len(t, lines("--since-commit", seen), 2)
	assert.Empty(t, lines("--since-commit", "records"), "nothing new since the tip")

	text := strings.Split(strings.TrimSpace(log().Stdout), "\n")
	require.Len(t, text, 5)
	assert.Regexp(t, `^[0-9a-f]{12}\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+retire\s+good\s+test@example\.com\s+bob\s+retire\(concept\): Session policy\s+\{Implemented-By: PR-43; Rationale: shipped; Target-Status: implemented\}$`, text[0])

	f, _, _, _ := st.Factory()
	cmdtest.Run(f, logcmd.NewCmdLog(f, nil), "--json", "--since-commit", "no-such-rev").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, logcmd.NewCmdLog(f, nil), "--json", "no-such-record").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
}
