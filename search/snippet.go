package search

import "strings"

// Snippet is a short passage of a record's body around the first place
// the query matched, whitespace folded to single spaces, with the byte
// ranges of the matched words in it.
type Snippet struct {
	Text       string   `json:"snippet"`
	Highlights [][2]int `json:"highlights"`
}

// snippetBefore and snippetLen size the passage, in bytes of the body.
const (
	snippetBefore = 60
	snippetLen    = 200
)

// MakeSnippet cuts the snippet of d for q: around the first body hit,
// else (a title, tag, alias or category hit) the start of the body.
func MakeSnippet(d *Doc, q *Query) Snippet { return new(snippetScratch).snippet(d, q) }

// snippetScratch holds the slices a snippet is cut with, for the next
// one: a search cuts one per hit, and a process collects no garbage (see
// cmdutil.TuneGC), so slices made anew for each hit landed on fresh pages,
// about 70 page faults for 20 hits at 100,000 records.
type snippetScratch struct {
	toks   []token
	hit    []int
	mapped []int
}

func (sc *snippetScratch) snippet(d *Doc, q *Query) Snippet {
	body := d.Body
	toks := sc.toks[:0]
	tokenize(body, func(t token) { toks = append(toks, t) })
	sc.toks = toks
	// hit[i] is the number of tokens from i that one clause matches.
	hit := grow(sc.hit, len(toks))
	sc.hit = hit
	first := -1
	for i := range toks {
		for ci := range q.Clauses {
			c := &q.Clauses[ci]
			if c.Field != nil && *c.Field != FieldBody || i+len(c.Terms) > len(toks) {
				continue
			}
			n := len(c.Terms)
			for k := 0; k < n && n > 0; k++ {
				if !c.matches(k, toks[i+k].term) {
					n = 0
				}
			}
			hit[i] = max(hit[i], n)
		}
		if hit[i] > 0 && first < 0 {
			first = i
		}
	}
	start := 0
	if first >= 0 && toks[first].start > snippetBefore {
		// Start at a word, snippetBefore bytes before the hit at most.
		for i := first; i >= 0 && toks[first].start-toks[i].start <= snippetBefore; i-- {
			start = toks[i].start
		}
	}
	end := len(body)
	if end-start > snippetLen {
		end = start + snippetLen
		for i := range toks { // end after a word, not inside one
			if toks[i].start < end && toks[i].end > end {
				end = toks[i].start
			}
		}
	}
	start, end = wholeLinks(body, start, end)
	// Fold whitespace, mapping body offsets to snippet offsets.
	var b strings.Builder
	b.Grow(end - start + 2*len("…"))
	if start > 0 {
		b.WriteString("…")
	}
	// mapped[i-start] is where body byte i is in the snippet, -1 for
	// folded whitespace (a slice: a map here was half of a search's cost).
	mapped := grow(sc.mapped, end-start+1)
	sc.mapped = mapped
	space := false
	for i := start; i < end; i++ {
		c := body[i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			space = true
			mapped[i-start] = -1
			continue
		}
		if space && b.Len() > 0 && !(start > 0 && b.Len() == len("…")) {
			b.WriteByte(' ')
		}
		space = false
		mapped[i-start] = b.Len()
		b.WriteByte(c)
	}
	mapped[end-start] = b.Len()
	out := Snippet{Highlights: [][2]int{}}
	for i := 0; i < len(toks); i++ {
		if hit[i] == 0 || toks[i].start < start || toks[i+hit[i]-1].end > end {
			continue
		}
		last := i + hit[i] - 1
		from, to := mapped[toks[i].start-start], mapped[toks[last].end-1-start]
		if from >= 0 && to >= 0 {
			out.Highlights = append(out.Highlights, [2]int{from, to + 1})
		}
		i = last
	}
	if end < len(body) {
		b.WriteString("…")
	}
	out.Text = b.String()
	return out
}

// grow returns s with length n, zeroed, reusing its array when it is big
// enough.
func grow(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// maxLinkReach bounds how far a snippet's edge moves to take in a
// wikilink it would cut.
const maxLinkReach = 200

// wholeLinks moves a snippet's edges out so that no wikilink is cut: a
// front end that shows a link's label (the web view) cannot read
// "[[3si5ycnv" or "ycnv|Note]]".
func wholeLinks(body string, start, end int) (int, int) {
	if open := openLinkBefore(body, start); open >= 0 {
		start = open
	}
	if openLinkBefore(body, end) >= 0 {
		end += strings.Index(body[end:], "]]") + len("]]")
	}
	return start, end
}

// openLinkBefore is where the wikilink that offset at falls inside starts
// (its "[[", or the "!" of an embed): the last "[[" on at's line before
// at, with no "]]" between them, and a "]]" after at on the line; -1
// when at is inside none. It looks at most maxLinkReach bytes either way.
func openLinkBefore(body string, at int) int {
	if at <= 0 || at >= len(body) {
		return -1
	}
	from := max(strings.LastIndexByte(body[:at], '\n')+1, at-maxLinkReach)
	before := body[from:at]
	open := strings.LastIndex(before, "[[")
	if open < 0 || strings.Contains(before[open:], "]]") {
		return -1
	}
	after := body[at:min(len(body), at+maxLinkReach)]
	if nl := strings.IndexByte(after, '\n'); nl >= 0 {
		after = after[:nl]
	}
	if !strings.Contains(after, "]]") {
		return -1
	}
	open += from
	if open > 0 && body[open-1] == '!' {
		open--
	}
	return open
}
