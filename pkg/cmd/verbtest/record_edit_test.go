package verbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	editcmd "github.com/git-records/git-records/pkg/cmd/record/edit"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdEdit: the handle and the evidence land in the options; no
// handle, or two, is a usage error.
func TestNewCmdEdit(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *editcmd.EditOptions
	r := cmdtest.Run(f, editcmd.NewCmdEdit(f, func(o *editcmd.EditOptions) error { got = o; return nil }), "k7m2qxw4", "--agent", "alice", "--note", "typo", "--approve")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "k7m2qxw4", got.Handle)
	assert.Equal(t, kernel.Evidence{Agent: "alice", Note: "typo"}, got.Evidence)
	assert.True(t, got.Approval.Approve)
	for _, args := range [][]string{{}, {"a", "b"}} {
		f, _, _, _ := st.Factory()
		cmdtest.Run(f, editcmd.NewCmdEdit(f, func(*editcmd.EditOptions) error { t.Fatal("ran"); return nil }), append([]string{"--json", "--agent", "a"}, args...)...).
			Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
}

// editStore has a concept with an alias, a tag list and a link, and a
// finding whose body ends without a newline.
func editStore(t *testing.T) (st *cmdtest.Store, concept, finding string) {
	st = cmdtest.NewStore(t)
	rfc := st.Create(t, kernel.CreateInput{ID: "rfc-6749", Type: "raw", Title: "RFC 6749", Category: "standards.oauth", Body: "OAuth.\n"})
	concept = st.Create(t, kernel.CreateInput{Type: "concept", Title: "Token refresh", Category: "auth.tokens", Tags: []string{"auth"},
		Aliases: []string{"auth/token-refresh"}, Links: []kernel.Link{{TargetID: rfc, Kind: "source", Label: "policy"}},
		Body: "# Token refresh\n\nRefresh tokens rotate on use.\n", Provenance: kernel.Provenance{Agent: "alice"}})
	finding = st.Create(t, kernel.CreateInput{Type: "review.finding", Title: "Reuse", Category: "auth.tokens", Body: "Found in PR 42."})
	return st, concept, finding
}

func edit(st *cmdtest.Store, args ...string) cmdtest.Result {
	f, _, _, _ := st.Factory()
	return cmdtest.Run(f, editcmd.NewCmdEdit(f, nil), args...)
}

func lastCommit(t *testing.T, st *cmdtest.Store) string {
	return cmdtest.Git(t, st.Dir, "log", "-1", "--format=%B", "refs/heads/records")
}

// TestEditValid: a title and body edit is one signed update naming the
// fields it changed, shown as diff shows it; an edit that only adds a link
// is a link op.
func TestEditValid(t *testing.T) {
	t.Parallel()
	st, concept, _ := editStore(t)
	before := st.Tip(t)
	st.ScriptedEditor(t, `sed -i 's/^title: Token refresh$/title: Token refresh, edited/' "$f"
printf 'Added in the editor.\n' >> "$f"
`)
	r := edit(st, concept[:8], "--agent", "alice", "--note", "typo")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "~ changed "+concept, "shows what changed, as diff does")
	assert.Contains(t, r.Stdout, `title: "Token refresh" → "Token refresh, edited"`)
	assert.Contains(t, r.Stdout, "+Added in the editor.")
	assert.Contains(t, r.Stdout, "update: "+concept)
	assert.Equal(t, before, cmdtest.Git(t, st.Dir, "rev-parse", "refs/heads/records^"), "one commit")
	msg := lastCommit(t, st)
	assert.Contains(t, msg, "Record-Op: update")
	assert.Contains(t, msg, "Evidence-Fields: title,body")
	cmdtest.Git(t, st.Dir, "verify-commit", "refs/heads/records")

	// Adding a link, and nothing else, is a link op; --json says so.
	st.ScriptedEditor(t, `sed -i 's/^    label: policy$/    label: policy\n  - target_id: `+concept+`\n    kind: related/' "$f"
`)
	r = edit(st, "auth/token-refresh", "--agent", "alice", "--json")
	require.Equal(t, 0, r.Code, r.String())
	var res map[string]any
	r.JSON(t, &res)
	assert.Equal(t, "link", res["op"])
	assert.Equal(t, concept, res["id"])
	assert.Contains(t, lastCommit(t, st), "Record-Op: link")
}

// TestEditInvalidThenFixed: a refused edit reopens the editor with the
// reason on top; the fixed file is written as one commit.
func TestEditInvalidThenFixed(t *testing.T) {
	t.Parallel()
	st, concept, _ := editStore(t)
	before := st.Tip(t)
	seen := filepath.Join(t.TempDir(), "second-open.md")
	st.ScriptedEditor(t, `if grep -q '^category: Not A Category$' "$f"; then
  cp "$f" `+seen+`
  sed -i 's/^category: Not A Category$/category: auth.fixed/' "$f"
else
  sed -i 's/^category: auth.tokens$/category: Not A Category/' "$f"
fi
`)
	r := edit(st, "auth/token-refresh", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	reopened, err := os.ReadFile(seen)
	require.NoError(t, err, "the editor was not reopened")
	assert.True(t, strings.HasPrefix(string(reopened), "# git records: this was refused:\n# INVALID_RECORD: "), string(reopened))
	assert.Contains(t, string(reopened), "\n---\nid: "+concept, "the user's edit follows the comment")
	assert.Contains(t, r.Stderr, "reopening the editor")
	assert.Equal(t, before, cmdtest.Git(t, st.Dir, "rev-parse", "refs/heads/records^"), "only the fixed edit was written")
	assert.Contains(t, lastCommit(t, st), "Evidence-Fields: category")
}

// TestEditAbandoned: an editor that fails, an emptied file, an unchanged
// one, a refused edit saved again unfixed, and a change to a field no edit
// may change write nothing.
func TestEditAbandoned(t *testing.T) {
	t.Parallel()
	st, concept, finding := editStore(t)
	before := st.Tip(t)
	for _, c := range []struct {
		name, script, want string
		code               int
	}{
		{"editor fails", "exit 3\n", "the editor exited with an error", cmdutil.ExitRefused},
		{"emptied", ": > \"$f\"\n", "the file was emptied", cmdutil.ExitRefused},
		{"unchanged", "true\n", "nothing changed", cmdutil.ExitOK},
		{"id changed", "sed -i 's/^id: .*/id: another-id/' \"$f\"\n", "saved again without a fix", cmdutil.ExitRefused},
		{"status changed", "sed -i 's/^status: active$/status: retired/' \"$f\"\n", "saved again without a fix", cmdutil.ExitRefused},
		{"mutation log rewritten", "sed -i 's/^    agent: alice$/    agent: mallory/' \"$f\"\n", "saved again without a fix", cmdutil.ExitRefused},
		{"broken YAML", "sed -i 's/^title: .*/title: [unclosed/' \"$f\"\n", "saved again without a fix", cmdutil.ExitRefused},
		{"alias removed", "sed -i 's|^aliases: \\[auth/token-refresh\\]$|aliases: []|' \"$f\"\n", "saved again without a fix", cmdutil.ExitRefused},
	} {
		st.ScriptedEditor(t, c.script)
		r := edit(st, concept, "--agent", "alice")
		assert.Equal(t, c.code, r.Code, "%s: %s", c.name, r)
		assert.Contains(t, r.Stdout, "nothing written", c.name)
		assert.Contains(t, r.Stdout, c.want, c.name)
		assert.Equal(t, before, st.Tip(t), "%s: nothing written", c.name)
	}
	st.ScriptedEditor(t, "sed -i 's/^id: .*/id: another-id/' \"$f\"\n")
	assert.Contains(t, edit(st, concept, "--agent", "alice").Stderr, "id cannot be edited")

	// The newline an editor adds at the end of a body that had none is no
	// change (kernel.SameBody).
	st.ScriptedEditor(t, "printf '\\n' >> \"$f\"\n")
	r := edit(st, finding, "--agent", "alice", "--json")
	assert.Equal(t, cmdutil.ExitOK, r.Code, r.String())
	var res map[string]any
	r.JSON(t, &res)
	assert.Equal(t, map[string]any{"id": finding, "unchanged": true, "abandoned": false, "reason": "nothing changed"}, res)
	assert.Equal(t, before, st.Tip(t))

	// Without an agent the editor never opens.
	marker := filepath.Join(t.TempDir(), "opened")
	st.ScriptedEditor(t, "touch "+marker+"\n")
	e := edit(st, "--json", concept).Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--agent", e["flag"])
	assert.NoFileExists(t, marker)
	edit(st, "--json", "no-such-record", "--agent", "alice").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
	assert.NoFileExists(t, marker)
}
