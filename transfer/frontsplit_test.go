package transfer

import (
	"bytes"
	"testing"

	"github.com/adrg/frontmatter"
	"github.com/stretchr/testify/require"
)

var splitSeeds = []string{
	"---\ntags: [bench, topic-1]\naliases: [N1]\n---\n\n# Note\n\nBody [[x]].\n",
	"---\ntitle: T\n---\nBody", "---\ntitle: T\n---", "---\n---\n", "---\n---", "\n\n---\nk: v\n---\nb\n",
	" \t\n---  \r\nk: v\r\n ---\r\nb\r\n", "---\nk: v\n", "---", "---\nk: v\n--- \n", "---\nk: v\n----\n---\nb",
	"no front matter\n", "", "\n", "just one line", "+++\ntitle = \"T\"\n+++\nb\n", "---yaml\nk: v\n---\nb\n",
	";;;\n{\"k\": \"v\"}\n;;;\nb\n", "{\n\"k\": \"v\"\n}\n\nb\n", "---\na: b\na: c\n---\nb\n", "---\nk: [unclosed\n---\nb\n",
	"---\nk: v\n\u00a0---\u00a0\nb\n", "\u0085\n---\nk: v\n---\nb\n", "# ---\n---\nk: v\n---\n", "---\n---json\n---\n",
}

// The splitter answers exactly as adrg/frontmatter does with the same
// formats, or leaves the note to it.
func FuzzSplitYAMLFront(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		front, rest, ok, err := splitYAMLFront([]byte(s))
		if !ok {
			return
		}
		var want map[string]any
		wantRest, wantErr := frontmatter.Parse(bytes.NewReader([]byte(s)), &want, frontFormats...)
		if wantErr != nil {
			require.Error(t, err, "%q", s)
			require.Equal(t, wantErr.Error(), err.Error(), "%q", s)
			return
		}
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, front, "%q", s)
		require.Equal(t, string(wantRest), string(rest), "%q", s)
	})
}

// The notes a vault mostly holds take the fast path; other formats and an
// unclosed block do not.
func TestSplitYAMLFrontTakesYAMLOnly(t *testing.T) {
	for _, s := range []string{splitSeeds[0], "\n\n---\nk: v\n---\nb\n", "no front matter\n", "---\nk: [unclosed\n---\nb\n"} {
		_, _, ok, _ := splitYAMLFront([]byte(s))
		require.True(t, ok, "%q", s)
	}
	for _, s := range []string{"+++\ntitle = \"T\"\n+++\nb\n", "---yaml\nk: v\n---\nb\n", "{\n\"k\": \"v\"\n}\n\nb\n", "---\nk: v\n", "---\n"} {
		_, _, ok, _ := splitYAMLFront([]byte(s))
		require.False(t, ok, "%q", s)
	}
	front, rest, ok, err := splitYAMLFront([]byte(splitSeeds[0]))
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"tags": []any{"bench", "topic-1"}, "aliases": []any{"N1"}}, front)
	require.Equal(t, "\n# Note\n\nBody [[x]].\n", string(rest))
}
