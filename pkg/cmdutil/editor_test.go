package cmdutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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
		got, err := EditorCommand(config(c.core))
		if c.want == "" {
			assert.Error(t, err, "%+v", c)
			continue
		}
		assert.NoError(t, err)
		assert.Equal(t, c.want, got, "%+v", c)
	}
}
