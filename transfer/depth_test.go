package transfer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeepFrontMatterRefused: a note whose front matter nests a million
// deep is refused, naming the note and the bound, in every front matter
// language; TOML's decoder overflowed the Go stack on it (exit 2).
func TestDeepFrontMatterRefused(t *testing.T) {
	const n = 1_200_000
	deep := strings.Repeat("[", n) + strings.Repeat("]", n)
	for name, note := range map[string]string{
		"toml":          "+++\na = " + deep + "\n+++\nbody\n",
		"toml, dashes":  "---toml\na = " + deep + "\n---\nbody\n",
		"yaml":          "---\na: " + deep + "\n---\nbody\n",
		"json":          ";;;\n{\"a\": " + deep + "}\n;;;\nbody\n",
		"json, dashes":  "---json\n{\"a\": " + deep + "}\n---\nbody\n",
		"toml, objects": "+++\na = " + strings.Repeat("{b = ", n) + "1" + strings.Repeat("}", n) + "\n+++\nbody\n",
		"toml, header":  "+++\n[source" + strings.Repeat(".a", n/2) + "]\nx = 1\n+++\nbody\n",
		"toml, key":     "+++\nsource" + strings.Repeat(".a", n/2) + " = 1\n+++\nbody\n",
	} {
		t.Run(name, func(t *testing.T) {
			u := parseNote("deep.md", []byte(note), false)
			assert.Contains(t, u.unreadable, "its front matter does not parse: it nests arrays or tables more than 64 deep")
		})
	}
	// At the bound a front matter reads.
	u := parseNote("ok.md", []byte("+++\na = "+strings.Repeat("[", maxFrontMatterDepth)+strings.Repeat("]", maxFrontMatterDepth)+"\ntitle = \"ok\"\n+++\nbody\n"), false)
	require.Empty(t, u.unreadable)
	assert.Equal(t, "ok", u.front["title"])
}

// TestTOMLFrontMatterDecodesOrRefuses: TOML front matter that an older
// decoder panicked on (found by FuzzParseNote) reads or is refused with the
// decoder's reason, and dotted keys (TOML 0.5) read as nested tables.
func TestTOMLFrontMatterDecodesOrRefuses(t *testing.T) {
	u := parseNote("comment.md", []byte("+++\na = {# x\n}\ntitle = \"c\"\n+++\nbody\n"), false)
	require.Empty(t, u.unreadable, "TOML 1.1 allows a comment and a newline in an inline table")
	assert.Equal(t, map[string]any{}, u.front["a"])
	assert.Equal(t, "c", u.front["title"])

	u = parseNote("unclosed.md", []byte("+++\n0={0=[]#0={1=[],0\n+++"), false)
	assert.Contains(t, u.unreadable, "its front matter does not parse: toml: line 1")
	assert.Contains(t, u.unreadable, "inline table terminator")

	u = parseNote("dotted.md", []byte("+++\nsource.url = \"https://example.com\"\nsource.tags = [\"a\"]\n+++\nbody\n"), false)
	require.Empty(t, u.unreadable)
	assert.Equal(t, map[string]any{"url": "https://example.com", "tags": []any{"a"}}, u.front["source"])
}
