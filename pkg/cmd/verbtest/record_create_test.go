package verbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	createcmd "github.com/git-records/git-records/pkg/cmd/record/create"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdCreate: the flags fill the create input (links, expiry, ttl,
// scope, contract, the body from stdin); a stray argument, two bodies or a
// ttl that is not a number are refused naming what to fix.
func TestNewCmdCreate(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, in, _, _ := st.Factory()
	in.WriteString("from stdin\n")
	var got *createcmd.CreateOptions
	r := cmdtest.Run(f, createcmd.NewCmdCreate(f, func(o *createcmd.CreateOptions) error { got = o; return nil }),
		"--type", "kit.routine", "--title", "T", "--category", "a.b", "--id", "my-id", "--tag", "x", "--alias", "a/b",
		"--link", "source:rfc", "--link", "other", "--expires-at", "2030-01-01T00:00:00.000Z", "--ttl-seconds", "60",
		"--scope", "auth.go", "--accepts", "diff,pr", "--produces", "report", "--note", "why", "--agent", "alice", "--edit", "-")
	require.Equal(t, 0, r.Code, r.String())
	c := got.Input
	assert.Equal(t, "from stdin\n", c.Body)
	assert.Equal(t, []kernel.Link{{TargetID: "rfc", Kind: "source"}, {TargetID: "other", Kind: kernel.LinkRelated}}, c.Links)
	require.NotNil(t, c.ExpiresAt.At)
	assert.Equal(t, "2030-01-01T00:00:00.000Z", c.ExpiresAt.At.String())
	assert.Equal(t, kernel.TTL(60), c.TTLSeconds)
	assert.Equal(t, []string{"auth.go"}, c.Scope.Paths)
	assert.Equal(t, &kernel.ExtensionContract{Accepts: []string{"diff", "pr"}, Produces: []string{"report"}}, c.Contract)
	assert.Equal(t, "why", c.CommitNote, "the note is also the commit body")
	assert.Equal(t, "alice", c.Provenance.Agent)
	assert.True(t, got.Edit)

	never := func(*createcmd.CreateOptions) error { t.Fatal("ran"); return nil }
	for _, c := range []struct {
		args []string
		code kernel.Code
		flag string
	}{
		{[]string{"stray"}, kernel.CodeUsage, ""},
		{[]string{"--body", "a", "--body-file", "b"}, kernel.CodeUsage, ""},
		{[]string{"--ttl-seconds", "soon"}, kernel.CodeInvalidRecord, "--ttl-seconds"},
	} {
		f, _, _, _ := st.Factory()
		e := cmdtest.Run(f, createcmd.NewCmdCreate(f, never), append([]string{"--json"}, c.args...)...).Error(t, c.code, cmdutil.ExitCode(c.code))
		if c.flag != "" {
			assert.Equal(t, c.flag, e["flag"])
		}
	}
}

func create(st *cmdtest.Store, args ...string) cmdtest.Result {
	f, _, _, _ := st.Factory()
	return cmdtest.Run(f, createcmd.NewCmdCreate(f, nil), args...)
}

func show(t *testing.T, st *cmdtest.Store, id string) *kernel.Record {
	r, err := st.Service(t).Show(id)
	require.NoError(t, err)
	return r
}

// TestCreateRun: a create is one signed commit and prints the id; a
// missing field is refused naming its flag, with nothing written.
func TestCreateRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	before := st.Tip(t)
	r := create(st, "--type", "concept", "--title", "Token refresh", "--category", "auth.tokens", "--body", "Rotate on use.",
		"--alias", "auth/token-refresh", "--link", "inspired-by:auth/token-refresh", "--agent", "alice")
	require.Equal(t, 1, r.Code, "a link to a record that does not exist yet: %s", r)
	assert.Contains(t, r.Stderr, `link kind "inspired-by" is not one the store gives a meaning`)
	assert.Equal(t, before, st.Tip(t))

	r = create(st, "--type", "concept", "--title", "Token refresh", "--category", "auth.tokens", "--body", "Rotate on use.",
		"--alias", "auth/token-refresh", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	id := strings.TrimSpace(r.Stdout)
	assert.Equal(t, "Token refresh", show(t, st, id).Title)
	assert.Equal(t, before, cmdtest.Git(t, st.Dir, "rev-parse", "refs/heads/records^"), "one commit")
	cmdtest.Git(t, st.Dir, "verify-commit", "refs/heads/records")

	r = create(st, "--json", "--type", "raw", "--title", "p99", "--category", "perf", "--body", "40 ms", "--agent", "ci")
	require.Equal(t, 0, r.Code, r.String())
	var res map[string]any
	r.JSON(t, &res)
	assert.NotEmpty(t, res["commit"])

	tip := st.Tip(t)
	e := create(st, "--json", "--type", "concept", "--title", "T", "--body", "b", "--agent", "alice").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--category", e["flag"])
	e = create(st, "--json", "--type", "concept", "--title", "T", "--category", "c", "--body", "b").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--agent", e["flag"])
	assert.Equal(t, tip, st.Tip(t), "nothing written")
}

// TestCreateEdit: create --edit opens the type's template with the flags
// given filled in; the saved file is one create commit. A refused file
// reopens with the reason on top; a template saved unchanged, an emptied
// file or a field the store sets write nothing and exit 1.
func TestCreateEdit(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	before := st.Tip(t)
	opened := filepath.Join(t.TempDir(), "opened.md")
	st.ScriptedEditor(t, `cp "$f" `+opened+`
sed -i 's/^title: ""$/title: Rotate refresh tokens/; s/^category: ""$/category: auth.tokens/' "$f"
printf 'We rotate on every use.\n' >> "$f"
`)
	r := create(st, "--type", "decision", "--edit", "--tag", "auth", "--agent", "alice", "--note", "from the meeting")
	require.Equal(t, 0, r.Code, r.String())
	template, err := os.ReadFile(opened)
	require.NoError(t, err)
	text := string(template)
	assert.True(t, strings.HasPrefix(text, "# git records create: a new decision record: a decision and its reasons.\n"), text)
	assert.Contains(t, text, "#   The decision in a sentence", "the body hint of the type's role")
	assert.Contains(t, text, "\n---\n# required: the record type")
	assert.Contains(t, text, "\n# required: one line naming the record\ntitle: \"\"\n")
	assert.Contains(t, text, "\ntags: [auth]\n", "the flags given are filled in")
	id := strings.TrimSpace(r.Stdout)
	rec := show(t, st, id)
	assert.Equal(t, "Rotate refresh tokens", rec.Title)
	assert.Equal(t, "auth.tokens", rec.Category)
	assert.Equal(t, []string{"auth"}, rec.Tags)
	assert.Equal(t, "We rotate on every use.\n", rec.Body)
	assert.Equal(t, "alice", rec.Provenance.Agent)
	assert.Equal(t, "from the meeting", rec.Provenance.Note)
	assert.Equal(t, before, cmdtest.Git(t, st.Dir, "rev-parse", "refs/heads/records^"), "one commit")
	assert.Contains(t, cmdtest.Git(t, st.Dir, "log", "-1", "--format=%B", "refs/heads/records"), "Record-Op: create")

	// A relation without its ends reopens with the reason; filled, it is written.
	seen := filepath.Join(t.TempDir(), "second-open.md")
	st.ScriptedEditor(t, `if grep -q '^# MISSING_EVIDENCE' "$f"; then
  cp "$f" `+seen+`
  sed -i 's/^from: ""$/from: `+id+`/; s/^to: ""$/to: `+id+`/; s/^relation: ""$/relation: references/' "$f"
else
  sed -i 's/^title: ""$/title: Self/; s/^category: ""$/category: deps/' "$f"
  printf 'It refers to itself.\n' >> "$f"
fi
`)
	tip := st.Tip(t)
	r = create(st, "--type", "relation", "--edit", "--agent", "alice", "--json")
	require.Equal(t, 0, r.Code, r.String())
	reopened, err := os.ReadFile(seen)
	require.NoError(t, err, "the editor was not reopened")
	assert.Contains(t, string(reopened), "# MISSING_EVIDENCE: from is required: a relation record needs from, to and relation")
	assert.Contains(t, r.Stderr, "reopening the editor")
	var res map[string]any
	r.JSON(t, &res)
	rel := show(t, st, res["id"].(string))
	assert.Equal(t, [3]string{id, id, "references"}, [3]string{rel.From, rel.To, rel.Relation})
	assert.Equal(t, tip, cmdtest.Git(t, st.Dir, "rev-parse", "refs/heads/records^"), "only the fixed file was written")

	tip = st.Tip(t)
	for _, c := range []struct{ name, script, want string }{
		{"unchanged", "true\n", "the template was saved unchanged"},
		{"emptied", ": > \"$f\"\n", "the file was emptied"},
		{"editor fails", "exit 2\n", "the editor exited with an error"},
		// Each script changes the file once: the second open gets it back unfixed.
		{"provenance forged", "grep -q '^provenance' \"$f\" || { sed -i 's/^title: \"\"$/title: T\\nprovenance: {agent: mallory}/; s/^category: \"\"$/category: c/' \"$f\"; echo body >> \"$f\"; }\n", "saved again without a fix"},
		{"status set", "grep -q '^status' \"$f\" || { sed -i 's/^title: \"\"$/title: T\\nstatus: retired/; s/^category: \"\"$/category: c/' \"$f\"; echo body >> \"$f\"; }\n", "saved again without a fix"},
	} {
		st.ScriptedEditor(t, c.script)
		r := create(st, "--type", "concept", "--edit", "--agent", "alice")
		assert.Equal(t, cmdutil.ExitRefused, r.Code, "%s: %s", c.name, r)
		assert.Equal(t, "no concept record created: "+c.want+"; nothing written\n", r.Stdout, c.name)
		assert.Equal(t, tip, st.Tip(t), "%s: nothing written", c.name)
	}
	st.ScriptedEditor(t, "sed -i 's/^title: \"\"$/title: T\\nprovenance: {agent: mallory}/' \"$f\"\n")
	assert.Contains(t, create(st, "--type", "concept", "--edit", "--agent", "alice").Stderr, "provenance is not written in a new concept record")

	// Without --type or an agent, or for an execution type, the editor never opens.
	marker := filepath.Join(t.TempDir(), "opened")
	st.ScriptedEditor(t, "touch "+marker+"\n")
	e := create(st, "--json", "--edit", "--agent", "alice").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, "--type", e["flag"])
	e = create(st, "--json", "--edit", "--type", "concept").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--agent", e["flag"])
	create(st, "--json", "--edit", "--type", kernel.TypeRun, "--agent", "alice").Error(t, kernel.CodeInvalidRecord, cmdutil.ExitRefused)
	assert.NoFileExists(t, marker)
	assert.Equal(t, tip, st.Tip(t))
}
