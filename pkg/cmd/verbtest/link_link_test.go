package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	linkcmd "github.com/git-records/git-records/pkg/cmd/link/link"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdLink: the handle, each --to, the kind, label and evidence land
// in the options; without --to or a handle it is a usage error.
func TestNewCmdLink(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *linkcmd.LinkOptions
	r := cmdtest.Run(f, linkcmd.NewCmdLink(f, func(o *linkcmd.LinkOptions) error { got = o; return nil }),
		"a", "--to", "b", "--to", "c", "--kind", "source", "--label", "see", "--agent", "alice", "--approval", "tok")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "a", got.Handle)
	assert.Equal(t, []string{"b", "c"}, got.Targets)
	assert.Equal(t, "source", got.Kind)
	assert.Equal(t, "see", got.Label)
	assert.Equal(t, "alice", got.Evidence.Agent)
	assert.Equal(t, "tok", got.Approval.Token)

	never := func(*linkcmd.LinkOptions) error { t.Fatal("ran"); return nil }
	f, _, _, _ = st.Factory()
	e := cmdtest.Run(f, linkcmd.NewCmdLink(f, never), "--json", "a", "--agent", "x").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, "--to", e["flag"])
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, linkcmd.NewCmdLink(f, never), "--json", "--to", "b").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestLinkRun: a link is one signed commit and the id is printed; the
// same link again changes nothing; a kind the store gives no meaning is
// stored with a note; a missing target or agent is refused with nothing
// written, naming the flag to set.
func TestLinkRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	a := st.Create(t, kernel.CreateInput{Type: "concept", Title: "A"})
	b := st.Create(t, kernel.CreateInput{Type: "concept", Title: "B"})
	link := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, linkcmd.NewCmdLink(f, nil), args...)
	}

	before := st.Tip(t)
	r := link(a, "--to", b, "--kind", "source", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, a+"\n", r.Stdout)
	assert.Equal(t, before, cmdtest.Git(t, st.Dir, "rev-parse", "refs/heads/records^"), "one commit")
	assert.Contains(t, cmdtest.Git(t, st.Dir, "log", "-1", "--format=%B", "refs/heads/records"), "Record-Op: link")

	r = link(a, "--to", b, "--kind", "source", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, a+" unchanged\n", r.Stdout, "idempotent")

	r = link(a, "--to", b, "--kind", "inspired-by", "--agent", "alice", "--json")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stderr, `link kind "inspired-by" is not one the store gives a meaning`)
	var res map[string]any
	r.JSON(t, &res)
	assert.Equal(t, a, res["id"])
	assert.NotEmpty(t, res["commit"])

	tip := st.Tip(t)
	link("--json", a, "--to", "no-such-record", "--agent", "alice").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
	e := link("--json", a, "--to", b, "--kind", "example").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--agent", e["flag"])
	assert.Equal(t, tip, st.Tip(t), "a refused link writes nothing")
}
