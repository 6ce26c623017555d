package wikilink

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var all = ScanOptions{MarkdownLinks: true, Title: true, HashTags: true, ColonTags: true}

// Every link Scan reports names its own text in the body: body[Start:End]
// is the link as written, so a rewrite replaces exactly it.
func TestScanFindsMarkdownLinksWithTheirPlaceInTheBody(t *testing.T) {
	body := "Intro [the note](notes/a%20b.md#Part) and ![chart](img/c.png \"Chart\").\n\n" +
		"A [[Wiki|label]] and [ref link][r] and <https://x.example/[[no]]>.\n\n" +
		"[r]: ../other.md\n\n" +
		"```\n[in code](x.md) [[in code]]\n```\n\n`[span](y.md)` [](empty.md) [nested [x](inner.md)](outer.md)\n"
	got := Scan([]byte(body), all)
	var texts []string
	for _, s := range got.Links {
		texts = append(texts, body[s.Start:s.End])
	}
	assert.Equal(t, []string{"[the note](notes/a%20b.md#Part)", `![chart](img/c.png "Chart")`, "[[Wiki|label]]", "[ref link][r]", "[](empty.md)", "[x](inner.md)"}, texts)
	require.Len(t, got.Links, 6)
	inLink := "[see [[a]]](https://x.example) and [[[b]]](b.md)"
	var spans []string
	for _, s := range Scan([]byte(inLink), all).Links {
		spans = append(spans, inLink[s.Start:s.End])
	}
	assert.Equal(t, []string{"[see [[a]]](https://x.example)", "[[a]]", "[[[b]]](b.md)", "[[b]]"}, spans, "a wikilink in a link's text counts, after the link")
	assert.Equal(t, Span{Link: Link{Target: "notes/a%20b.md", Heading: "Part", Label: "the note"}, Start: 6, End: 37, Markdown: true}, got.Links[0])
	assert.True(t, got.Links[1].Embed)
	assert.Equal(t, "img/c.png", got.Links[1].Target)
	assert.False(t, got.Links[2].Markdown)
	assert.Equal(t, "../other.md", got.Links[3].Target, "a reference link's destination is its definition's")
	assert.Equal(t, "ref link", got.Links[3].Label)
}

func TestScanMarksLinksInTableCells(t *testing.T) {
	body := "| a | b |\n|---|---|\n| [[Note]] | [x](y.md) |\n\n[[Outside]]\n"
	got := Scan([]byte(body), all)
	require.Len(t, got.Links, 3)
	assert.True(t, got.Links[0].InTable)
	assert.True(t, got.Links[1].InTable)
	assert.False(t, got.Links[2].InTable)
	assert.Equal(t, "[x](y.md)", body[got.Links[1].Start:got.Links[1].End])
}

func TestScanReadsTheFirstLevelOneHeadingAsTitle(t *testing.T) {
	for body, want := range map[string]string{
		"# Hello [[World|you]]\n\n# Second\n": "Hello you",
		"## Sub\n\ntext\n\n# Main title\n":    "Main title",
		"```\n# not a heading\n```\n":         "",
		"Setext title\n===\n\nbody\n":         "Setext title",
		"no heading here\n":                   "",
	} {
		assert.Equal(t, want, Scan([]byte(body), all).Title, "%q", body)
	}
}

func TestScanReadsTagsOutsideCode(t *testing.T) {
	body := "# Heading #inhead\n\nText #one and #nested/two, not a#b or #123 or `#code`.\n" +
		"zk :colon:tags: and :smile-not-closed and (#paren).\n\n    #indented code\n\n[x](#anchor) https://x.example/#frag\n"
	assert.Equal(t, []string{"inhead", "one", "nested/two", "colon", "tags", "paren"}, Scan([]byte(body), all).Tags)
	noColon := Scan([]byte(body), ScanOptions{HashTags: true}).Tags
	assert.NotContains(t, noColon, "colon", "colon tags only when asked for (zk's colon-tags setting)")
}

// A body on which goldmark's link parser would spend more than
// linkBudget (brackets on brackets, or unclosed destinations on a long
// line) is read for its wikilinks only.
func TestScanOverTheLinkBudgetReadsWikilinksOnly(t *testing.T) {
	for name, body := range map[string]string{
		"brackets":     strings.Repeat("[a](", 5000) + "\n[b](c.md) [[Real]]\n",
		"destinations": strings.Repeat("[a](", 100) + strings.Repeat("x", 1<<18) + "\n\n[b](c.md) [[Real]]\n",
	} {
		got := Scan([]byte(body), all)
		require.Len(t, got.Links, 1, name)
		assert.Equal(t, "Real", got.Links[0].Target, name)
	}
	got := Scan([]byte(strings.Repeat("[a](b.md) ", 1000)), all)
	assert.Len(t, got.Links, 1000, "a note of a thousand links is within the budget")
}
