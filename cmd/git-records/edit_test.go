package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptedEditor writes a shell script that edits the file it is given, as
// a person would, and returns the GIT_EDITOR setting that runs it.
func scriptedEditor(t *testing.T, script string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "editor.sh")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\nset -e\nf=\"$1\"\n"+script), 0o755))
	return []string{"GIT_EDITOR=" + path}
}

func editIn(t *testing.T, dir string, editor []string, args ...string) result {
	t.Helper()
	return execEnv(t, dir, "", editor, "git-records", append([]string{"edit"}, args...)...)
}

// TestEditValid: a title and body edit is one signed update naming the
// fields it changed; an edit that only adds a link is a link op.
func TestEditValid(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	before := tip(t, dir)
	r := editIn(t, dir, scriptedEditor(t, `sed -i 's/^title: Token refresh$/title: Token refresh, edited/' "$f"
printf 'Added in the editor.\n' >> "$f"
`), goldenConcept[:8], "--agent", "alice", "--note", "typo")
	require.Equal(t, 0, r.code, r.String())
	assert.Contains(t, r.stdout, "~ changed "+goldenConcept, "shows what changed, as diff does")
	assert.Contains(t, r.stdout, `title: "Token refresh" → "Token refresh, edited"`)
	assert.Contains(t, r.stdout, "+Added in the editor.")
	assert.Contains(t, r.stdout, "update: "+goldenConcept)
	now := tip(t, dir)
	assert.Equal(t, before, strings.TrimSpace(git(t, dir, "rev-parse", now+"^")), "one commit")
	trailers := parsedTrailers(t, dir, now)
	assert.Equal(t, []string{"update"}, trailerValues(trailers, "Record-Op"))
	assert.Equal(t, []string{"title,body"}, trailerValues(trailers, "Evidence-Fields"))
	show := mustJSON[obj](t, dir, "show", goldenConcept)
	assert.Equal(t, "Token refresh, edited", show["title"])
	assert.Contains(t, show["body"], "Added in the editor.")
	git(t, dir, "verify-commit", now)

	// Adding a link, and nothing else, is a link op.
	r = editIn(t, dir, scriptedEditor(t, `sed -i 's/^    label: policy$/    label: policy\n  - target_id: old-note\n    kind: related/' "$f"
`), "shipped", "--agent", "alice")
	require.Equal(t, 0, r.code, r.String())
	assert.Contains(t, r.stdout, "link: shipped")
	assert.Equal(t, []string{"link"}, trailerValues(parsedTrailers(t, dir, tip(t, dir)), "Record-Op"))
	verifyAll(t, dir, 0)
}

// TestEditInvalidThenFixed: a refused edit reopens the editor with the
// reason on top; the fixed file is written as one commit.
func TestEditInvalidThenFixed(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	before := tip(t, dir)
	seen := filepath.Join(t.TempDir(), "second-open.md")
	editor := scriptedEditor(t, `if grep -q '^category: Not A Category$' "$f"; then
  cp "$f" `+seen+`
  sed -i 's/^category: Not A Category$/category: auth.fixed/' "$f"
else
  sed -i 's/^category: auth.tokens$/category: Not A Category/' "$f"
fi
`)
	r := editIn(t, dir, editor, "auth/token-refresh", "--agent", "alice")
	require.Equal(t, 0, r.code, r.String())
	reopened, err := os.ReadFile(seen)
	require.NoError(t, err, "the editor was not reopened")
	assert.True(t, strings.HasPrefix(string(reopened), "# git records edit: this edit was refused:\n# INVALID_RECORD: "), string(reopened))
	assert.Contains(t, string(reopened), "\n---\nid: "+goldenConcept, "the user's edit follows the comment")
	assert.Contains(t, r.stderr, "reopening the editor")
	assert.Equal(t, before, strings.TrimSpace(git(t, dir, "rev-parse", tip(t, dir)+"^")), "only the fixed edit was written")
	assert.Equal(t, "auth.fixed", mustJSON[obj](t, dir, "show", goldenConcept)["category"])
}

// TestEditAbandoned: an editor that fails, an emptied file, an unchanged
// one, a refused edit saved again unfixed, and a change to a field no edit
// may change write nothing.
func TestEditAbandoned(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	before := tip(t, dir)
	for _, c := range []struct {
		name, script, want string
		code               int
	}{
		{"editor fails", "exit 3\n", "the editor exited with an error", exitRefused},
		{"emptied", ": > \"$f\"\n", "the file was emptied", exitRefused},
		{"unchanged", "true\n", "nothing changed", exitOK},
		{"id changed", "sed -i 's/^id: .*/id: another-id/' \"$f\"\n", "saved again without a fix", exitRefused},
		{"status changed", "sed -i 's/^status: active$/status: retired/' \"$f\"\n", "saved again without a fix", exitRefused},
		{"mutation log rewritten", "sed -i 's/^    agent: alice$/    agent: mallory/' \"$f\"\n", "saved again without a fix", exitRefused},
		{"broken YAML", "sed -i 's/^title: .*/title: [unclosed/' \"$f\"\n", "saved again without a fix", exitRefused},
		{"alias removed", "sed -i 's|^aliases: \\[auth/token-refresh\\]$|aliases: []|' \"$f\"\n", "saved again without a fix", exitRefused},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := editIn(t, dir, scriptedEditor(t, c.script), goldenConcept, "--agent", "alice")
			assert.Equal(t, c.code, r.code, r.String())
			assert.Contains(t, r.stdout, "nothing written")
			assert.Contains(t, r.stdout, c.want)
			assert.Equal(t, before, tip(t, dir), "nothing written")
		})
	}
	r := editIn(t, dir, scriptedEditor(t, "sed -i 's/^id: .*/id: another-id/' \"$f\"\n"), goldenConcept, "--agent", "alice")
	assert.Contains(t, r.stderr, "id cannot be edited")

	// The newline an editor adds at the end of a body that had none is no
	// change (kernel.SameBody).
	r = editIn(t, dir, scriptedEditor(t, "printf '\\n' >> \"$f\"\n"), goldenFinding, "--agent", "alice")
	assert.Equal(t, exitOK, r.code, r.String())
	assert.Contains(t, r.stdout, "nothing changed")
	assert.Equal(t, before, tip(t, dir))

	// Without an agent the editor never opens.
	marker := filepath.Join(t.TempDir(), "opened")
	r = editIn(t, dir, scriptedEditor(t, "touch "+marker+"\n"), goldenConcept)
	requireError(t, execEnv(t, dir, "", scriptedEditor(t, "touch "+marker+"\n"), "git-records", "--json", "edit", goldenConcept), "MISSING_EVIDENCE", exitRefused)
	assert.NoFileExists(t, marker)
	assert.Equal(t, exitRefused, r.code)
}

// TestEditorOrder follows git var GIT_EDITOR: GIT_EDITOR, core.editor,
// VISUAL (not on a dumb terminal), EDITOR, vi.
func TestEditorOrder(t *testing.T) {
	config := func(v string) func(string) (string, bool) {
		return func(key string) (string, bool) { return v, v != "" && key == "core.editor" }
	}
	for _, c := range []struct {
		gitEditor, core, visual, editor, term, want string
	}{
		{"ge", "ce", "vis", "ed", "xterm", "ge"},
		{"", "ce", "vis", "ed", "xterm", "ce"},
		{"", "", "vis", "ed", "xterm", "vis"},
		{"", "", "vis", "ed", "dumb", "ed"},
		{"", "", "", "ed", "xterm", "ed"},
		{"", "", "", "", "xterm", "vi"},
		{"", "", "", "", "dumb", ""},
	} {
		t.Setenv("GIT_EDITOR", c.gitEditor)
		t.Setenv("VISUAL", c.visual)
		t.Setenv("EDITOR", c.editor)
		t.Setenv("TERM", c.term)
		got, err := editorCommand(config(c.core))
		if c.want == "" {
			assert.Error(t, err, "%+v", c)
			continue
		}
		assert.NoError(t, err)
		assert.Equal(t, c.want, got, "%+v", c)
	}
}
