package search

import (
	"strings"
	"testing"
)

// TestSnippetKeepsLinksWhole: a snippet's edges never cut a wikilink (an
// embed's "!" included): a front end that shows links by their labels
// must see each whole. Text that only looks like a link's end is cut as
// any text is.
func TestSnippetKeepsLinksWhole(t *testing.T) {
	id := strings.Repeat("a", 40)
	body := strings.Repeat("filler words here ", 10) + "![[" + id + "|Label one]] token refresh " +
		strings.Repeat("tail words ", 11) + "[[" + id + "#Part|closing label]] after " + strings.Repeat("end ", 40)
	ix := newIndex(t, []*Doc{{ID: "x", Title: "Doc", Body: body}})
	hits := mustSearch(t, ix, `"token refresh"`)
	if len(hits) != 1 {
		t.Fatalf("got %d hits", len(hits))
	}
	s := hits[0].Snippet
	if !strings.HasPrefix(s.Text, "…![["+id+"|Label one]] token refresh") {
		t.Fatalf("the link at the start is cut: %q", s.Text)
	}
	if !strings.Contains(s.Text, "[["+id+"#Part|closing label]]") {
		t.Fatalf("the link at the end is cut: %q", s.Text)
	}
	if got := s.Text[s.Highlights[0][0]:s.Highlights[0][1]]; got != "token refresh" {
		t.Fatalf("highlight %q in %q", got, s.Text)
	}
	// No link: "]]" alone, or "[[" that does not close on its line.
	plain := strings.Repeat("filler words here ", 10) + "x]] token refresh " + strings.Repeat("tail ", 60) + "[[open\nnext " + strings.Repeat("end ", 40)
	ix = newIndex(t, []*Doc{{ID: "y", Title: "Doc", Body: plain}})
	s = mustSearch(t, ix, `"token refresh"`)[0].Snippet
	if len(s.Text) > snippetLen+2*len("…") || strings.HasPrefix(s.Text, "…[[") {
		t.Fatalf("a snippet without a link moved: %q", s.Text)
	}
}
