package verbtest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	reindexcmd "github.com/git-records/git-records/pkg/cmd/store/reindex"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestReindexSaysBehindIsNotDrift: a missing index is built; a current one
// is left; an index behind the tip (another process wrote) catches up
// without crying drift; --json says the state; no arguments.
func TestReindexSaysBehindIsNotDrift(t *testing.T) {
	st := cmdtest.NewStore(t)
	st.Create(t, kernel.CreateInput{Type: "raw", Title: "one"})
	first := st.Tip(t)
	st.Create(t, kernel.CreateInput{Type: "raw", Title: "two"})
	second := st.Tip(t)
	reindex := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		r := cmdtest.Run(f, reindexcmd.NewCmdReindex(f, nil), args...)
		require.Equal(t, 0, r.Code, r.String())
		return r
	}
	assert.Contains(t, reindex().Stdout, "there was no index; built from the branch", "writes keep only the small handles file")
	assert.Equal(t, "2 records, 0 links (0 sources, 0 targets): the index is current; no drift\n", reindex().Stdout)

	cmdtest.Git(t, st.Dir, "update-ref", "refs/heads/records", first)
	reindex()
	cmdtest.Git(t, st.Dir, "update-ref", "refs/heads/records", second)
	out := reindex().Stdout
	assert.Contains(t, out, "the index was behind the tip and caught up")
	assert.False(t, strings.Contains(out, "drift:"), out)
	var ri map[string]any
	reindex("--json").JSON(t, &ri)
	assert.Equal(t, "current", ri["state"])
	assert.Equal(t, false, ri["changed"])

	f, _, _, _ := st.Factory()
	cmdtest.Run(f, reindexcmd.NewCmdReindex(f, nil), "--json", "stray").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
