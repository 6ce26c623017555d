package verbtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	verifycmd "github.com/git-records/git-records/pkg/cmd/store/verify"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdVerify: the revision or range and --strict land in the
// options; at most one argument.
func TestNewCmdVerify(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *verifycmd.VerifyOptions
	r := cmdtest.Run(f, verifycmd.NewCmdVerify(f, func(o *verifycmd.VerifyOptions) error { got = o; return nil }), "origin/records..records", "--strict")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "origin/records..records", got.Spec)
	assert.True(t, got.Strict)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, verifycmd.NewCmdVerify(f, nil), "--json", "a", "b").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestVerifyRun: signed ops pass; --strict makes a dangling link a
// violation; a hand commit (unsigned) fails with its finding and exit 1,
// the report on stdout and nothing on stderr; a range judges only its
// commits.
func TestVerifyRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	st.Create(t, kernel.CreateInput{ID: "note", Type: "concept", Title: "Note", Body: "See [[nowhere]].\n"})
	verify := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, verifycmd.NewCmdVerify(f, nil), args...)
	}
	r := verify()
	require.Equal(t, 0, r.Code, r.String())
	assert.Regexp(t, `verify: 2 commits, 0 violations, \d+ warnings: ok\n$`, r.Stdout)
	r = verify("--strict")
	assert.Equal(t, cmdutil.ExitRefused, r.Code, r.String())
	assert.Contains(t, r.Stdout, "nowhere")

	good := st.Tip(t)
	wt := filepath.Join(t.TempDir(), "wt")
	cmdtest.Git(t, st.Dir, "worktree", "add", "-q", wt, "records")
	matches, _ := filepath.Glob(filepath.Join(wt, "records", "concept", "*", "note.md"))
	require.Len(t, matches, 1)
	f, err := os.OpenFile(matches[0], os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, _ = f.WriteString("more\n")
	require.NoError(t, f.Close())
	cmdtest.Git(t, wt, "commit", "-q", "-a", "-m", "hand edit")

	r = verify()
	assert.Equal(t, cmdutil.ExitRefused, r.Code, r.String())
	assert.Regexp(t, `(?m)^✗ [0-9a-f]{12}: signature: commit is not signed$`, r.Stdout)
	assert.Contains(t, r.Stdout, "    fix: ")
	assert.Regexp(t, `verify: 3 commits, [1-9]\d* violations, .*: FAILED\n$`, r.Stdout)
	assert.Empty(t, r.Stderr, "the report is the answer, not an error message")

	var rep struct {
		OK         bool             `json:"ok"`
		Commits    int              `json:"commits"`
		Violations []map[string]any `json:"violations"`
	}
	verify("--json", good+"..records").JSON(t, &rep)
	assert.False(t, rep.OK)
	assert.Equal(t, 1, rep.Commits, "only the range's commit")
	r = verify(good)
	assert.Equal(t, 0, r.Code, "up to the last signed commit all is well\n%s", r)
}
