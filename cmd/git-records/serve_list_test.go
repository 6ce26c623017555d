package main

import (
	"cmp"
	"encoding/json"
	"html"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var listedRow = regexp.MustCompile(`<tr><td class="mono"><a href="/r/([^"]+)">`)

// listed is the ids of the list page at path, in the order shown.
func listed(t *testing.T, srv *httptest.Server, path string) ([]string, string) {
	t.Helper()
	code, body := get(t, srv, path)
	require.Equal(t, 200, code, "%s: %s", path, body)
	var ids []string
	for _, m := range listedRow.FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids, body
}

// link is the href of the anchor with this id on a page, unescaped.
func link(body, id string) string {
	m := regexp.MustCompile(`id="` + id + `" href="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// TestServeListSortsAndPages: the list is sorted by title (case aside),
// category, created or updated time, either way, ties by id; it is paged
// with links to the pages either side that keep the filters and the
// order; a page past the end is empty and points back; a bad order or
// page says what is allowed.
func TestServeListSortsAndPages(t *testing.T) {
	t.Parallel()
	dir := seedRepo(t)
	type rec struct{ id, title, category string }
	records := []rec{
		{"same-c", "Same", "b"}, {"same-a", "same", "b"}, {"zeta", "zeta", "a"}, {"alpha", "Alpha", "c"},
		{"hostile", "<b>bold</b> & co", "a"}, {"beta", "beta", "a.sub"}, {"same-b", "Same", "b"},
		{"gamma", "Gamma", "c"}, {"delta", "delta", "b"}, {"eps", "Épsilon", "a"}, {"eta", "eta", "c"},
	}
	for _, r := range records {
		seed(t, dir, "create", "--id", r.id, "--type", "concept", "--title", r.title, "--category", r.category, "--body", "b\n", "--agent", "t")
	}
	seed(t, dir, "update", "alpha", "--body", "changed\n", "--agent", "t") // alpha: the latest change
	srv := webOf(t, dir)

	// The expected orders come from the records' own times: creates run
	// in-process, so two can share a millisecond, and then the id decides.
	type storedRecord struct {
		ID       string `json:"id"`
		Category string `json:"category"`
		Created  string `json:"created_at"`
		Updated  string `json:"updated_at"`
	}
	var stored []storedRecord
	require.NoError(t, json.Unmarshal([]byte(seed(t, dir, "list", "--json")), &stored))
	require.Len(t, stored, len(records))
	slices.SortFunc(stored, func(a, b storedRecord) int {
		return cmp.Or(strings.Compare(a.Created, b.Created), strings.Compare(a.ID, b.ID))
	})
	var created, inA []string
	latest, latestAt := "", ""
	for _, r := range stored {
		created = append(created, r.ID)
		if r.Category == "a" || strings.HasPrefix(r.Category, "a.") {
			inA = append(inA, r.ID)
		}
		if at := r.Updated + " " + r.ID; at > latestAt {
			latest, latestAt = r.ID, at
		}
	}
	all, body := listed(t, srv, "/")
	assert.Equal(t, created, all, "oldest first by default")
	assert.Contains(t, body, "records 1–11 of 11 · page 1 of 1")
	assert.Contains(t, body, "&lt;b&gt;bold&lt;/b&gt; &amp; co", "a title is text")

	// Case aside: "Same" and "same" sort together, "Same" (same-b, same-c,
	// by id) first by its bytes; "<b>…" and "Épsilon" by their code points.
	byTitle := []string{"hostile", "alpha", "beta", "delta", "eta", "gamma", "same-b", "same-c", "same-a", "zeta", "eps"}
	got, body := listed(t, srv, "/?sort=title")
	assert.Equal(t, byTitle, got)
	assert.Contains(t, body, `<a class="sort" href="/?order=desc&amp;sort=title">title <span class="sorted">▲</span></a>`, "the sorted column links to the other way")
	assert.Contains(t, body, `<a class="sort" href="/?sort=category">category</a>`)
	got, _ = listed(t, srv, "/?sort=title&order=desc")
	assert.Equal(t, reversed(byTitle), got)

	got, _ = listed(t, srv, "/?sort=category")
	assert.Equal(t, []string{"hostile", "zeta", "eps", "beta", "delta", "same-b", "same-c", "same-a", "alpha", "eta", "gamma"}, got, "by category, then title")
	got, _ = listed(t, srv, "/?sort=updated&order=desc")
	assert.Equal(t, latest, got[0], "the latest change first")
	got, _ = listed(t, srv, "/?sort=updated")
	assert.Equal(t, latest, got[len(got)-1])

	// Pages of 4, by title: three pages, the last partial, and past it.
	var paged []string
	path := "/?sort=title&per=4"
	for page := 1; path != ""; page++ {
		require.LessOrEqual(t, page, 3, "next links run past the last page")
		ids, body := listed(t, srv, path)
		assert.LessOrEqual(t, len(ids), 4)
		paged = append(paged, ids...)
		if page == 1 {
			assert.Empty(t, link(body, "prev"))
		} else {
			assert.NotEmpty(t, link(body, "prev"))
		}
		path = link(body, "next")
		if path != "" {
			assert.Contains(t, path, "sort=title", "the order is kept")
			assert.Contains(t, path, "per=4")
		}
	}
	assert.Equal(t, byTitle, paged, "the pages, one after the other, are the whole list once")
	_, body = listed(t, srv, "/?sort=title&per=4&page=3")
	assert.Contains(t, body, "records 9–11 of 11 · page 3 of 3")
	got, body = listed(t, srv, "/?sort=title&per=4&page=9")
	assert.Empty(t, got)
	assert.Contains(t, body, "no records on this page, of 11")
	assert.Equal(t, "/?page=3&per=4&sort=title", link(body, "prev"), "past the end points at the last page")

	// Filters stay on the pager's links and the header's.
	got, body = listed(t, srv, "/?category=a&prefix=1&per=2")
	assert.Equal(t, inA[:2], got)
	assert.Equal(t, "/?category=a&page=2&per=2&prefix=1", link(body, "next"))
	assert.Contains(t, body, `<input type="hidden" name="per" value="2">`, "a new filter keeps the page size")

	// Freshness filters read every record, and page the same way.
	got, body = listed(t, srv, "/?live=1&sort=title&per=4&page=2")
	assert.Equal(t, byTitle[4:8], got)
	assert.Contains(t, body, "records 5–8 of 11")

	for _, bad := range []struct{ query, says string }{
		{"sort=size", `cannot sort by &#34;size&#34;: sort by one of created, updated, title, category`},
		{"order=up", `order is asc or desc, not &#34;up&#34;`},
		{"page=0", `page is a number from 1 to`},
		{"page=x", `page is a number from 1 to`},
		{"per=501", `per is a number from 1 to 500, not &#34;501&#34;`},
		{"page=99999999999999999999", `page is a number from 1 to`},
	} {
		got, body := listed(t, srv, "/?"+bad.query)
		assert.Empty(t, got, bad.query)
		assert.Contains(t, body, `<p class="error">`+bad.says, bad.query)
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// TestServeSearchSnippetsShowLabels: a snippet shows a wikilink as its
// label, else its target's title, never its id or brackets, however the
// snippet's edge falls; a highlight inside a link marks it whole; a link
// in code stays code; no title or label becomes markup.
func TestServeSearchSnippetsShowLabels(t *testing.T) {
	t.Parallel()
	dir := seedRepo(t)
	target := "3si5ycnvqz7k2m4x6w8y0a1b2c"
	seed(t, dir, "create", "--id", target, "--type", "concept", "--title", "Target <i>note</i>", "--category", "t", "--body", "x\n", "--agent", "t")
	seed(t, dir, "create", "--id", "src", "--type", "concept", "--title", "Source", "--category", "t", "--agent", "t", "--body",
		"Rotation: see [["+target+"]], [["+target+"|the <b>custom</b> label]], [["+target+"#Scope]], ![["+target+"|embedded]] and `[[nowhere]]` in code.\n")
	seed(t, dir, "create", "--id", "far", "--type", "concept", "--title", "Far", "--category", "t", "--agent", "t", "--body",
		strings.Repeat("filler words here ", 10)+"[["+target+"|A long label that runs on for more than sixty bytes in all]] rotation again.\n")
	srv := webOf(t, dir)

	_, body := get(t, srv, "/?q=rotation")
	for _, want := range []string{
		`<span class="link">Target &lt;i&gt;note&lt;/i&gt;</span>, <span class="link">the &lt;b&gt;custom&lt;/b&gt; label</span>, <span class="link">Target &lt;i&gt;note&lt;/i&gt; › Scope</span>, <span class="link">embedded</span> and ` + "`[[nowhere]]`",
		`…<span class="link">A long label that runs on for more than sixty bytes in all</span> <mark>rotation</mark> again.`,
	} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, target+"|", "no link shows its id")
	assert.NotContains(t, body, "[["+target)
	assert.NotContains(t, body, "<b>custom")
	assert.NotContains(t, body, "<i>note")

	_, body = get(t, srv, "/?q=custom")
	assert.Contains(t, body, `<span class="link"><mark>the &lt;b&gt;custom&lt;/b&gt; label</mark></span>`, "a hit in a label marks the link")
}
