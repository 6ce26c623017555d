package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	diffcmd "github.com/git-records/git-records/pkg/cmd/history/diff"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdDiff: the revisions, --format, --exit-code and --verify land
// in the options; --json is json (whatever --format says); one or two
// revisions only; an unknown format is a usage error.
func TestNewCmdDiff(t *testing.T) {
	st := cmdtest.NewRepo(t)
	parse := func(args ...string) (*diffcmd.DiffOptions, cmdtest.Result) {
		f, _, _, _ := st.Factory()
		var got *diffcmd.DiffOptions
		r := cmdtest.Run(f, diffcmd.NewCmdDiff(f, func(o *diffcmd.DiffOptions) error { got = o; return nil }), args...)
		return got, r
	}
	o, r := parse("a...b", "--format", "markdown", "--exit-code", "--verify")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, []string{"a...b"}, o.Revs)
	assert.Equal(t, "markdown", o.Format)
	assert.True(t, o.ExitCode)
	assert.True(t, o.Verify)
	o, _ = parse("--json", "a", "b")
	assert.Equal(t, "json", o.Format)
	_, r = parse("a", "--format", "html")
	assert.Equal(t, cmdutil.ExitUsage, r.Code)
	assert.Contains(t, r.Stderr, "git-records: USAGE: --format is text, markdown or json")
	_, r = parse("--json", "a", "b", "c")
	r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	_, r = parse("--json")
	r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestDiffRun: a record added between two tips is shown (text, markdown,
// JSON); --exit-code exits 1 on a difference, silently, and 0 on none; a
// missing revision is NOT_FOUND.
func TestDiffRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	cmdtest.Git(t, st.Dir, "branch", "before", "refs/heads/records")
	id := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Added later"})
	diff := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, diffcmd.NewCmdDiff(f, nil), args...)
	}

	r := diff("before", "records")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, id)
	assert.Contains(t, r.Stdout, "Added later")
	assert.NotContains(t, r.Stdout, "\033[", "no colour in a pipe")

	r = diff("--exit-code", "--format", "markdown", "before..records")
	assert.Equal(t, cmdutil.ExitRefused, r.Code, r.String())
	assert.Contains(t, r.Stdout, "## Record changes")
	assert.Contains(t, r.Stdout, "**1 added, 0 changed")
	assert.Empty(t, r.Stderr, "a difference is not an error message")

	var res struct {
		Added []map[string]any `json:"added"`
	}
	diff("--json", "before", "records").JSON(t, &res)
	require.Len(t, res.Added, 1)
	assert.Equal(t, id, res.Added[0]["id"])

	r = diff("--exit-code", "records", "records")
	assert.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "no record differences\n", r.Stdout)
	assert.Contains(t, diff("--color", "always", "before", "records").Stdout, "\033[", "--color always colours")

	diff("--json", "records...no-such-branch").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
}
