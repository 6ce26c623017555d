package verbtest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	searchcmd "github.com/git-records/git-records/pkg/cmd/record/search"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdSearch: the arguments are one query; the filter flags and
// --limit land in the options; no query is a usage error.
func TestNewCmdSearch(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *searchcmd.SearchOptions
	r := cmdtest.Run(f, searchcmd.NewCmdSearch(f, func(o *searchcmd.SearchOptions) error { got = o; return nil }), "token", "refresh", "--type", "raw", "--limit", "5", "--live")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "token refresh", got.Query)
	assert.Equal(t, "raw", got.Filter.Type)
	assert.Equal(t, 5, got.Limit)
	assert.True(t, got.Filter.Live)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, searchcmd.NewCmdSearch(f, nil), "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestSearchRun: ranked (a title hit first), with a snippet and its
// highlights, list's filters, phrases, prefixes and fields; query syntax
// errors are usage errors naming the flag to use.
func TestSearchRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	a := st.Create(t, kernel.CreateInput{Type: "concept", Category: "eng.auth", Title: "Token refresh policy", Body: "Sessions end here.", Tags: []string{"auth"}})
	b := st.Create(t, kernel.CreateInput{Type: "raw", Category: "eng", Title: "Sessions", Body: "Every refresh of a token rotates it."})
	search := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, searchcmd.NewCmdSearch(f, nil), args...)
	}
	hits := func(args ...string) []map[string]any {
		var out []map[string]any
		r := search(append([]string{"--json"}, args...)...)
		require.Equal(t, 0, r.Code, r.String())
		r.JSON(t, &out)
		return out
	}

	got := hits("token")
	require.Len(t, got, 2)
	require.Equal(t, a, got[0]["id"], "the title hit first")
	require.Equal(t, b, got[1]["id"])
	require.Equal(t, "Every refresh of a token rotates it.", got[1]["snippet"])
	require.Equal(t, []any{[]any{float64(19), float64(24)}}, got[1]["highlights"])
	require.Equal(t, []any{"body"}, got[1]["matched"])

	require.Equal(t, b, hits("token", "--type", "raw")[0]["id"])
	require.Len(t, hits("token", "--category", "eng", "--prefix"), 2)
	require.Len(t, hits("token", "--category", "eng"), 1)
	require.Len(t, hits(`"refresh policy"`), 1)
	require.Len(t, hits("title:sess*"), 1)
	require.Len(t, hits("token", "--limit", "1"), 1)
	require.Empty(t, hits("nothing-like-it"))

	c := st.Create(t, kernel.CreateInput{Type: "raw", Category: "eng", Title: "Sessions, again", Body: "A token, newer."})
	_, err := st.Service(t).Supersede(c, []string{b}, kernel.Evidence{Agent: cmdtest.Agent, Rationale: "replaced"}, kernel.Approval{})
	require.NoError(t, err)
	require.Len(t, hits("token"), 3)
	live := hits("token", "--live")
	require.Len(t, live, 2)
	for _, h := range live {
		require.NotEqual(t, b, h["id"], "the superseded record is not live")
	}

	out := search("rotates").Stdout
	require.Contains(t, out, b[:8]+"  raw  eng  Sessions\n")
	require.Contains(t, out, "of a token **rotates** it.")

	search("--json", "token", "--status", "bogus").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	e := search("--json", "type:raw").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	require.True(t, strings.Contains(e["message"].(string), "--type"), "names the flag: %v", e)
	search("--json", `"open`).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	e = search("--json", "token", "--limit", "-1").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	require.Equal(t, "--limit", e["flag"])
}

// TestMarked: highlights wrap in **; ranges out of order or out of the
// text are skipped rather than cut the text.
func TestMarked(t *testing.T) {
	assert.Equal(t, "a **tok** b **c**", searchcmd.Marked("a tok b c", [][2]int{{2, 5}, {8, 9}}))
	assert.Equal(t, "abc", searchcmd.Marked("abc", [][2]int{{2, 9}, {2, 1}}))
}
