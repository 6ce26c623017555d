package transfer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// A link written by import or export reads back as the same parts, however
// its label is spelt.
func TestFormatLinkReadsBackTheSame(t *testing.T) {
	for _, l := range []wikilink.Link{
		{Target: "abc"}, {Target: "abc", Label: "a | b [c] `d` #e \\f"}, {Target: "RFC 6749 OAuth 2.0", Heading: "Section 10"},
		{Target: "auth/token-refresh.md", Heading: "x#y", Label: "x|y"},
	} {
		for _, embed := range []bool{false, true} {
			for _, table := range []bool{false, true} {
				text := formatLink(embed, l.Target, l.Heading, l.Label, table)
				spans := wikilink.Spans([]byte(text))
				require.Len(t, spans, 1, "%s", text)
				assert.Equal(t, l, spans[0].Link, "%s", text)
				assert.Equal(t, embed, spans[0].Embed)
				assert.Equal(t, len(text), spans[0].End-spans[0].Start, "%s", text)
			}
		}
	}
}

func TestNamesAndIDs(t *testing.T) {
	assert.Equal(t, "token-refresh-policy", slug("Token Refresh: Policy!"))
	assert.Equal(t, "caf-notes", slug("Café notes"))
	assert.Equal(t, "", slug("日本語"))
	assert.Equal(t, "notes.daily-notes.x", folderCategory("notes", "Daily Notes/X"))
	assert.Equal(t, "notes", folderCategory("notes", "."))
	assert.Equal(t, "RFC 6749 OAuth 2.0", fileName("RFC 6749: OAuth 2.0", "id"))
	assert.Equal(t, "id", fileName("../..", "id"), "nothing left of a title: the id")
	assert.Equal(t, "a b", fileName("a/b", "id"))

	id := derivedID("Projects/Auth/Token refresh.md")
	assert.Equal(t, id, derivedID("Projects/Auth/Token refresh.md"), "the same path, the same id")
	assert.NotEqual(t, id, derivedID("Projects/Auth/Token refresh 2.md"))
	assert.Len(t, id, 26)
	assert.NoError(t, kernel.ValidateID(id))
}

// The resolver's names compare without regard to case as lower-cased
// copies of them would, in order and in equality, whatever their runes:
// ASCII, letters whose lower case is ASCII (the Kelvin sign), others whose
// lower case is longer or shorter in UTF-8, and bytes that are no UTF-8.
func TestFoldCompareIsToLowerCompare(t *testing.T) {
	words := []string{"", "a", "A", "ab", "Ab", "aB", "b", "Note.md", "note.MD", "note", "notes", "Zürich", "zürich", "ZÜRICH",
		"\u212a", "k", "K", "İstanbul", "i̇stanbul", "ǅ", "ǆ", "Σ", "σ", "ς", "\xff", "\xfe", "a\xffb", "A\xffB", "日本", "/", "a/b", "a-b", "a.b"}
	sign := func(c int) int { return min(max(c, -1), 1) }
	for _, a := range words {
		for _, b := range words {
			want := strings.Compare(strings.ToLower(a), strings.ToLower(b))
			assert.Equal(t, want, sign(foldCompare(a, b)), "%q vs %q", a, b)
		}
	}
}
