package verbtest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	listcmd "github.com/git-records/git-records/pkg/cmd/record/list"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdList: the filter flags land in the options; a value outside
// its vocabulary is a usage error naming the flag; list takes no
// arguments.
func TestNewCmdList(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *listcmd.ListOptions
	r := cmdtest.Run(f, listcmd.NewCmdList(f, func(o *listcmd.ListOptions) error { got = o; return nil }),
		"--type", "concept", "--category", "eng", "--prefix", "--tag", "t", "--status", "retired", "--include-retired", "--live")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "concept", got.Filter.Type)
	assert.Equal(t, "eng", got.Filter.Category)
	assert.True(t, got.Filter.CategoryPrefix)
	assert.Equal(t, "t", got.Filter.Tag)
	assert.Equal(t, "retired", got.Filter.Status)
	assert.True(t, got.Filter.IncludeRetired)
	assert.True(t, got.Filter.Live)

	f, _, _, _ = st.Factory()
	r = cmdtest.Run(f, listcmd.NewCmdList(f, nil), "--json", "--kind", "nope")
	e := r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, "--kind", e["flag"])
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, listcmd.NewCmdList(f, nil), "--json", "stray").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestListRun: one row per record (short handle, type, category, status,
// title on one line), retired ones only when asked, superseded ones
// marked; --stale is what fresh calls stale; --json is the records;
// without a records branch anywhere the store is empty, not an error.
func TestListRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	st.WriteFile(t, "auth.go", "package auth\n")
	st.Commit(t, "code")
	old := st.Create(t, kernel.CreateInput{Type: "raw", Title: "RFC 6749", Category: "auth"})
	scoped := st.Create(t, kernel.CreateInput{Type: "review.finding", Title: "Reuse\naccepted", Category: "auth.tokens",
		Scope: &kernel.Scope{Paths: []string{"auth.go"}}})
	newer := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Tokens", Category: "eng"})
	svc := st.Service(t)
	_, err := svc.Supersede(newer, []string{old}, kernel.Evidence{Agent: cmdtest.Agent, Rationale: "replaced"}, kernel.Approval{})
	require.NoError(t, err)
	retired := st.Create(t, kernel.CreateInput{Type: "raw", Title: "Gone", Category: "auth"})
	_, err = svc.Retire(retired, kernel.StatusRetired, kernel.Evidence{Agent: cmdtest.Agent, Rationale: "obsolete"}, kernel.Approval{})
	require.NoError(t, err)
	list := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		r := cmdtest.Run(f, listcmd.NewCmdList(f, nil), args...)
		require.Equal(t, 0, r.Code, r.String())
		return r
	}

	out := list().Stdout
	assert.Regexp(t, `(?m)^`+old[:8]+`\s+raw\s+auth\s+superseded\s+RFC 6749$`, out)
	assert.Regexp(t, `(?m)^`+scoped[:8]+`\s+review.finding\s+auth.tokens\s+active\s+Reuse accepted$`, out, "a title stays on its line")
	assert.NotContains(t, out, "Gone")
	assert.Contains(t, list("--include-retired").Stdout, "Gone")
	assert.Equal(t, 2, strings.Count(list("--category", "auth", "--prefix").Stdout, "\n"))
	assert.Empty(t, list("--stale").Stdout)

	st.WriteFile(t, "auth.go", "package auth // changed\n")
	var stale []map[string]any
	list("--json", "--stale").JSON(t, &stale)
	require.Len(t, stale, 1)
	assert.Equal(t, scoped, stale[0]["id"])
	live := list("--live").Stdout
	assert.Contains(t, live, "Tokens")
	assert.NotContains(t, live, "RFC 6749", "superseded is not live")
	assert.NotContains(t, live, "Reuse", "stale is not live")

	var all []map[string]any
	list("--json").JSON(t, &all)
	assert.Len(t, all, 3)

	empty := cmdtest.NewRepo(t)
	f, _, _, _ := empty.Factory()
	r := cmdtest.Run(f, listcmd.NewCmdList(f, nil), "--json")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "[]\n", r.Stdout)
}
