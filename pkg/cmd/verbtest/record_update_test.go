package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	updatecmd "github.com/git-records/git-records/pkg/cmd/record/update"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdUpdate: only the flags given become fields; an empty
// --ttl-seconds clears it; a ttl that is not a number, two bodies or no
// handle are refused.
func TestNewCmdUpdate(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *updatecmd.UpdateOptions
	r := cmdtest.Run(f, updatecmd.NewCmdUpdate(f, func(o *updatecmd.UpdateOptions) error { got = o; return nil }),
		"k7m2qxw4", "--title", "New", "--tag", "a", "--tag", "b", "--alias", "x/y", "--ttl-seconds", "", "--expires-at", "", "--agent", "alice", "--note", "n")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "k7m2qxw4", got.Handle)
	assert.Equal(t, "New", *got.Fields.Title)
	assert.Nil(t, got.Fields.Body, "not given")
	assert.Nil(t, got.Fields.Category, "not given")
	assert.Equal(t, []string{"a", "b"}, *got.Fields.Tags)
	assert.Equal(t, []string{"x/y"}, got.Fields.Aliases)
	assert.Equal(t, kernel.TTLInput{Set: true}, got.Fields.TTLSeconds, "an empty ttl clears it")
	assert.Equal(t, kernel.ExpiryInput{Set: true}, got.Fields.ExpiresAt, "an empty expiry clears it")
	assert.Equal(t, kernel.Evidence{Agent: "alice", Note: "n"}, got.Evidence)

	never := func(*updatecmd.UpdateOptions) error { t.Fatal("ran"); return nil }
	for _, c := range []struct {
		args []string
		code kernel.Code
	}{
		{[]string{"h", "--ttl-seconds", "soon"}, kernel.CodeInvalidRecord},
		{[]string{"h", "--body", "a", "--body-file", "b"}, kernel.CodeUsage},
		{[]string{}, kernel.CodeUsage},
	} {
		f, _, _, _ := st.Factory()
		cmdtest.Run(f, updatecmd.NewCmdUpdate(f, never), append([]string{"--json"}, c.args...)...).Error(t, c.code, cmdutil.ExitCode(c.code))
	}
}

// TestUpdateRun: an update is one commit naming the fields it changed;
// the same values again change nothing; clearing the title, or an update
// without an agent, is refused with nothing written.
func TestUpdateRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	id := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Old", Category: "auth", Aliases: []string{"auth/old"}})
	update := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, updatecmd.NewCmdUpdate(f, nil), args...)
	}
	r := update("auth/old", "--title", "New", "--category", "auth.tokens", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, id+"\n", r.Stdout)
	assert.Contains(t, cmdtest.Git(t, st.Dir, "log", "-1", "--format=%B", "refs/heads/records"), "Evidence-Fields: title,category")
	rec, err := st.Service(t).Show(id)
	require.NoError(t, err)
	assert.Equal(t, "New", rec.Title)

	tip := st.Tip(t)
	r = update(id, "--title", "New", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, id+" unchanged\n", r.Stdout)
	update("--json", id, "--title", " ", "--agent", "alice").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	e := update("--json", id, "--title", "X").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--agent", e["flag"])
	update("--json", "nothing-here", "--title", "X", "--agent", "alice").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
	assert.Equal(t, tip, st.Tip(t), "nothing written")
}
