package verbtest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	watchcmd "github.com/git-records/git-records/pkg/cmd/history/watch"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdWatch: --since, --format, -n and --poll land in the options;
// --json means jsonl; a bad format or a negative count is a usage error
// naming its flag.
func TestNewCmdWatch(t *testing.T) {
	st := cmdtest.NewRepo(t)
	parse := func(args ...string) (*watchcmd.WatchOptions, cmdtest.Result) {
		f, _, _, _ := st.Factory()
		var got *watchcmd.WatchOptions
		r := cmdtest.Run(f, watchcmd.NewCmdWatch(f, func(o *watchcmd.WatchOptions) error { got = o; return nil }), args...)
		return got, r
	}
	o, r := parse("--since", "abc", "-n", "2", "--poll", "100ms")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "abc", o.Since)
	assert.Equal(t, 2, o.Count)
	assert.Equal(t, "text", o.Format)
	assert.Equal(t, "100ms", o.Poll.String())
	o, _ = parse("--json")
	assert.Equal(t, "jsonl", o.Format)
	_, r = parse("--json", "--format", "xml")
	assert.Equal(t, "--format", r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)["flag"])
	_, r = parse("--json", "-n", "-1")
	assert.Equal(t, "--max-count", r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)["flag"])
}

// TestWatchRun: --since prints what that commit cannot reach, oldest
// first, as log's jsonl objects (or its text lines), and -n stops it.
func TestWatchRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	start := st.Tip(t)
	a := st.Create(t, kernel.CreateInput{Type: "concept", Title: "One"})
	b := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Two"})
	watch := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		r := cmdtest.Run(f, watchcmd.NewCmdWatch(f, nil), args...)
		require.Equal(t, 0, r.Code, r.String())
		return r
	}
	lines := strings.Split(strings.TrimSpace(watch("--json", "--since", start, "-n", "2").Stdout), "\n")
	require.Len(t, lines, 2)
	var records []string
	for _, l := range lines {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &e))
		assert.Equal(t, "create", e["op"])
		records = append(records, e["records"].([]any)[0].(string))
	}
	assert.Equal(t, []string{a, b}, records, "oldest first")
	text := watch("--since", start, "-n", "1").Stdout
	assert.Regexp(t, `^[0-9a-f]{12}\s+\S+ \S+\s+create\s+good\s+`, text)
	assert.Equal(t, 1, strings.Count(text, "\n"), "-n 1 stops after one")
}
