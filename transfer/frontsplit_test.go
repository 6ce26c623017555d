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
	"{\n}\n}\n\nb", "{\n}\nx", "{\n}", "{\n}\n", "{}\n\nb", "{\n\"k\": 1\n}\n \t\nb\n", "{\n\"k\": 1\n}\n}\n", "---json\n{\"k\": 2}\n---\n",
	"+++\nk = 1\nk = 2\n+++\n", "---toml\nk = [\n---\n", ";;;\n{\n;;;\nb", "  ---yaml  \r\nk: v\r\n---\r\n",
}

// adrgFormats are frontFormats as adrg/frontmatter's Formats.
func adrgFormats() []*frontmatter.Format {
	var fs []*frontmatter.Format
	for _, f := range frontFormats {
		fs = append(fs, &frontmatter.Format{Start: f.start, End: f.end, Unmarshal: f.unmarshal,
			UnmarshalDelims: f.withDelims, RequiresNewLine: f.blankAfter})
	}
	return fs
}

// requireSplitsAsAdrg: splitFront answers exactly as adrg/frontmatter's
// Parse does with the same formats: the same front matter, the same rest,
// the same error.
func requireSplitsAsAdrg(t *testing.T, s string) {
	t.Helper()
	front, rest, err := splitFront([]byte(s))
	var want map[string]any
	wantRest, wantErr := frontmatter.Parse(bytes.NewReader([]byte(s)), &want, adrgFormats()...)
	if wantErr != nil {
		require.Error(t, err, "%q", s)
		require.Equal(t, wantErr.Error(), err.Error(), "%q", s)
		return
	}
	require.NoError(t, err, "%q", s)
	require.Equal(t, want, front, "%q", s)
	require.Equal(t, string(wantRest), string(rest), "%q", s)
}

// FuzzSplitFront: `go test -fuzz FuzzSplitFront ./transfer`.
func FuzzSplitFront(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add(s)
	}
	f.Fuzz(requireSplitsAsAdrg)
}

// TestSplitFrontAsAdrg runs every seed, and every cut of each (a note
// ending anywhere: mid-line, on a delimiter, before a newline), against
// adrg/frontmatter.
func TestSplitFrontAsAdrg(t *testing.T) {
	for _, s := range splitSeeds {
		for i := 0; i <= len(s); i++ {
			requireSplitsAsAdrg(t, s[:i])
		}
	}
}

// The formats and what each gives.
func TestSplitFrontFormats(t *testing.T) {
	for _, c := range []struct {
		note, rest string
		front      map[string]any
	}{
		{splitSeeds[0], "\n# Note\n\nBody [[x]].\n", map[string]any{"tags": []any{"bench", "topic-1"}, "aliases": []any{"N1"}}},
		{"+++\ntitle = \"T\"\n+++\nb\n", "b\n", map[string]any{"title": "T"}},
		{"---toml\ntitle = \"T\"\n---\nb\n", "b\n", map[string]any{"title": "T"}},
		{"---yaml\nk: v\n---\nb\n", "b\n", map[string]any{"k": "v"}},
		{";;;\n{\"k\": \"v\"}\n;;;\nb\n", "b\n", map[string]any{"k": "v"}},
		{"{\n\"k\": \"v\"\n}\n\nb\n", "b\n", map[string]any{"k": "v"}},
		{"{\n\"k\": \"}\"\n}\nnot yet\n}\n\nb", "b", nil}, // "}" closes only before a blank line; the JSON is then bad
		{"---\nk: v\n", "---\nk: v\n", nil},               // never closed: no front matter
		{"no front matter\n---\nk: v\n---\n", "no front matter\n---\nk: v\n---\n", nil},
	} {
		front, rest, err := splitFront([]byte(c.note))
		if c.front == nil && c.rest == "b" {
			require.Error(t, err, "%q", c.note)
			continue
		}
		require.NoError(t, err, "%q", c.note)
		require.Equal(t, c.front, front, "%q", c.note)
		require.Equal(t, c.rest, string(rest), "%q", c.note)
	}
}
