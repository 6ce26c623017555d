package search

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func tipOf(s string) (t [20]byte) { copy(t[:], s); return t }

// testStore names the store of the tests' indexes.
const testStore = "refs/heads/records"

var corpus = []*Doc{
	{ID: "a-title", Type: "concept", Title: "Token refresh policy", Body: "How sessions end.", Tags: []string{"auth"}, Category: "eng.api"},
	{ID: "b-body", Type: "concept", Title: "Sessions", Body: "Every refresh of a token rotates it. The token policy is strict.", Tags: []string{"team-1"}},
	{ID: "c-alias", Type: "raw", Title: "Rotation", Aliases: []string{"token-rotation"}, Body: "Rotate keys yearly.", Category: "ops"},
	{ID: "d-none", Type: "raw", Title: "Unrelated", Body: "Nothing to see here: caching and queues.", Category: "eng.storage"},
}

func ids(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Doc.ID)
	}
	return out
}

func mustSearch(t *testing.T, ix *Index, q string) []Hit {
	t.Helper()
	pq, err := ParseQuery(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	hits, err := ix.Search(pq, 0, nil)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return hits
}

func newIndex(t *testing.T, docs []*Doc) *Index {
	t.Helper()
	ix, _, err := New(testStore, tipOf("t0"), docs)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestRankingTitleAboveBody(t *testing.T) {
	ix := newIndex(t, corpus)
	// b-body says "token" twice in its body; a-title once, in its title.
	got := ids(mustSearch(t, ix, "token"))
	if want := []string{"a-title", "c-alias", "b-body"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("token: got %v, want %v", got, want)
	}
	hits := mustSearch(t, ix, "token")
	if !reflect.DeepEqual(hits[0].Fields, []string{"title"}) || !reflect.DeepEqual(hits[2].Fields, []string{"body"}) {
		t.Fatalf("fields: %v, %v", hits[0].Fields, hits[2].Fields)
	}
}

func TestQueryKinds(t *testing.T) {
	ix := newIndex(t, corpus)
	for _, c := range []struct{ q, want string }{
		{`token policy`, "a-title b-body"},   // AND, anywhere
		{`"token policy"`, "b-body"},         // phrase: adjacent, in order
		{`"policy token"`, ""},               // order matters
		{`"refresh policy"`, "a-title"},      // phrase in the title
		{`rot*`, "c-alias b-body"},           // prefix: rotation, rotates, rotate
		{`title:rot*`, "c-alias"},            // prefix in a field
		{`title:token`, "a-title"},           // field
		{`body:token`, "b-body"},             // field
		{`tag:team-1`, "b-body"},             // a whole tag
		{`tag:team`, "b-body"},               // a word of a tag
		{`tag:auth`, "a-title"},              // a one-word tag
		{`alias:token-rotation`, "c-alias"},  // a whole alias
		{`category:eng`, "a-title d-none"},   // a word of the category
		{`category:eng.api`, "a-title"},      // the whole category
		{`TOKEN Refresh`, "a-title b-body"},  // case-insensitive
		{`team-1`, "b-body"},                 // punctuation: the phrase "team 1"
		{`absent`, ""},                       // nothing
		{`title:"token refresh"`, "a-title"}, // phrase in a field
		{`12:30`, ""},                        // not a field: text
	} {
		got := strings.Join(ids(mustSearch(t, ix, c.q)), " ")
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.q, got, c.want)
		}
	}
	for _, bad := range []string{``, `"unclosed`, `title:`, `type:concept`, `""`, `  -- `} {
		if _, err := ParseQuery(bad); err == nil {
			t.Errorf("%q parsed; want a usage error", bad)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler words here ", 20) + "the token\n\nrefresh happens here " + strings.Repeat("tail text ", 40)
	ix := newIndex(t, []*Doc{{ID: "x", Title: "Doc", Body: long}})
	hits := mustSearch(t, ix, `"token refresh"`)
	if len(hits) != 1 {
		t.Fatalf("got %d hits", len(hits))
	}
	s := hits[0].Snippet
	if !strings.HasPrefix(s.Text, "…") || !strings.HasSuffix(s.Text, "…") || strings.Contains(s.Text, "\n") {
		t.Fatalf("snippet not cut and folded: %q", s.Text)
	}
	if len(s.Highlights) != 1 || s.Text[s.Highlights[0][0]:s.Highlights[0][1]] != "token refresh" {
		t.Fatalf("highlights %v in %q", s.Highlights, s.Text)
	}
	if len(s.Text) > snippetLen+2*len("…") {
		t.Fatalf("snippet of %d bytes", len(s.Text))
	}
	// A title hit: the snippet is the start of the body, no highlight.
	hits = mustSearch(t, ix, "title:doc")
	if got := hits[0].Snippet; !strings.HasPrefix(got.Text, "filler words") || len(got.Highlights) != 0 {
		t.Fatalf("title-hit snippet: %+v", got)
	}
}

func TestFilterAndLimit(t *testing.T) {
	ix := newIndex(t, corpus)
	q, _ := ParseQuery("token")
	hits, err := ix.Search(q, 1, func(d *Doc) (bool, error) { return d.Type == "concept", nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); !reflect.DeepEqual(got, []string{"a-title"}) {
		t.Fatalf("got %v", got)
	}
	hits, _ = ix.Search(q, 0, func(d *Doc) (bool, error) { return d.Type == "raw", nil })
	if got := ids(hits); !reflect.DeepEqual(got, []string{"c-alias"}) {
		t.Fatalf("got %v", got)
	}
}

// A filter that turns the best down still gets, in order, the best that
// pass: the ranking looks past the first few candidates when it must.
func TestFilterPastTheBest(t *testing.T) {
	var docs []*Doc
	for i := range 50 {
		docs = append(docs, &Doc{ID: fmt.Sprintf("d%02d", i), Title: "word", Body: strings.Repeat("filler ", i)})
	}
	ix := newIndex(t, docs)
	q, _ := ParseQuery("word")
	all, err := ix.Search(q, 0, nil)
	require(t, err)
	for _, limit := range []int{1, 3} {
		var want []string
		for _, h := range all {
			if strings.HasSuffix(h.Doc.ID, "7") && len(want) < limit {
				want = append(want, h.Doc.ID)
			}
		}
		hits, err := ix.Search(q, limit, func(d *Doc) (bool, error) { return strings.HasSuffix(d.ID, "7"), nil })
		require(t, err)
		if got := ids(hits); !reflect.DeepEqual(got, want) {
			t.Fatalf("limit %d: got %v, want %v", limit, got, want)
		}
	}
	if got := ids(all); got[0] != "d00" || got[49] != "d49" {
		t.Fatalf("shorter titles-plus-bodies first, then by id: %v", got)
	}
}

func require(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Results after incremental updates (through the delta, and through a
// merge) are exactly those of an index built from scratch.
// TestTiesInIDOrder: records that score the same come out in id order,
// whether they sit in the base, the delta or both.
func TestTiesInIDOrder(t *testing.T) {
	doc := func(id string) *Doc { return &Doc{ID: id, Title: "Same title", Body: "same token body"} }
	ix := newIndex(t, []*Doc{doc("m"), doc("c"), doc("x"), doc("a")})
	ix, _, err := ix.Apply(tipOf("t1"), []Change{{ID: "b", Doc: doc("b")}, {ID: "z", Doc: doc("z")}, {ID: "n", Doc: doc("n")}})
	if err != nil {
		t.Fatal(err)
	}
	if ix.delta.Len() != 3 {
		t.Fatalf("delta holds %d documents, want 3", ix.delta.Len())
	}
	want := []string{"a", "b", "c", "m", "n", "x", "z"}
	if got := ids(mustSearch(t, ix, "token")); !reflect.DeepEqual(got, want) {
		t.Fatalf("ties: %v, want %v", got, want)
	}
	pq, err := ParseQuery("token")
	if err != nil {
		t.Fatal(err)
	}
	for limit := 1; limit <= len(want); limit++ {
		hits, err := ix.Search(pq, limit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(hits); !reflect.DeepEqual(got, want[:limit]) {
			t.Fatalf("limit %d: %v, want %v", limit, got, want[:limit])
		}
	}
}

func TestApplyMatchesRebuild(t *testing.T) {
	defer func(m int) { MaxDelta = m }(MaxDelta)
	var docs []*Doc
	for i := range 40 {
		docs = append(docs, &Doc{ID: fmt.Sprintf("r%02d", i), Title: fmt.Sprintf("Record %d token", i),
			Body: strings.Repeat("refresh token policy ", i%5+1), Tags: []string{fmt.Sprintf("t%d", i%3)}})
	}
	for _, maxDelta := range []int{100, 3} {
		MaxDelta = maxDelta
		ix := newIndex(t, docs[:30])
		current := map[string]*Doc{}
		for _, d := range docs[:30] {
			current[d.ID] = d
		}
		steps := [][]Change{
			{{ID: "r30", Doc: docs[30]}, {ID: "r31", Doc: docs[31]}},                            // added
			{{ID: "r02", Doc: &Doc{ID: "r02", Title: "Renamed entirely", Body: "policy only"}}}, // updated
			{{ID: "r03"}, {ID: "r31"}}, // removed: base and delta
			{{ID: "r32", Doc: docs[32]}, {ID: "r33", Doc: docs[33]}, {ID: "r34", Doc: docs[34]}}, // more
			{{ID: "r02", Doc: docs[2]}}, // back
		}
		for n, changes := range steps {
			var err error
			var base []byte
			ix, base, err = ix.Apply(tipOf(fmt.Sprint("t", n+1)), changes)
			if err != nil {
				t.Fatal(err)
			}
			if base != nil && maxDelta == 100 {
				t.Fatalf("step %d merged with MaxDelta %d", n, maxDelta)
			}
			// What a process reading the files would see.
			if base == nil {
				base = ix.base.data
			}
			if ix, err = Open(ix.DeltaFile(), base); err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				if c.Doc == nil {
					delete(current, c.ID)
				} else {
					current[c.ID] = c.Doc
				}
			}
			var all []*Doc
			for _, d := range current {
				all = append(all, d)
			}
			fresh := newIndex(t, all)
			if ix.Len() != fresh.Len() {
				t.Fatalf("step %d: %d docs, rebuilt %d", n, ix.Len(), fresh.Len())
			}
			for _, q := range []string{"token", "policy", "refresh token", `"token policy"`, "tok*", "tag:t1", "renamed", "record"} {
				a, b := mustSearch(t, ix, q), mustSearch(t, fresh, q)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("step %d, MaxDelta %d, %q: incremental %v, rebuilt %v", n, maxDelta, q, ids(a), ids(b))
				}
			}
		}
		if got := ids(mustSearch(t, ix, "r03")); len(got) != 0 {
			t.Fatalf("removed record still found: %v", got)
		}
	}
}

func TestCorruptIsRefused(t *testing.T) {
	ix := newIndex(t, corpus)
	base := ix.base.data
	delta := ix.DeltaFile()
	for name, c := range map[string][2][]byte{
		"truncated base":  {delta, base[:len(base)-1]},
		"truncated delta": {delta[:len(delta)-3], base},
		"garbage base":    {delta, []byte("not an index at all, not at all, no")},
		"empty delta":     {nil, base},
	} {
		if _, err := Open(c[0], c[1]); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
	// Bytes flipped inside the postings: a query fails with ErrCorrupt, never panics.
	bad := append([]byte(nil), base...)
	s, _ := OpenSegment(bad)
	for i := s.postArea; i < s.termArea; i++ {
		bad[i] = 0xff
	}
	cix, err := Open(delta, bad)
	if err != nil {
		return // refused at open: fine too
	}
	q, _ := ParseQuery("token")
	if _, err := cix.Search(q, 0, nil); err != ErrCorrupt {
		t.Fatalf("search over a corrupt segment: %v", err)
	}
}

// TestPointReadsAnswerAsTheMapping: a base opened with its file reads a
// hit's document and the dictionary's probes with pread. Over the same
// bytes, intact or with any byte of the documents or the dictionary
// flipped, every query answers (or fails) exactly as it does reading the
// bytes in place; a file cut short under the mapping is corruption.
func TestPointReadsAnswerAsTheMapping(t *testing.T) {
	ix := newIndex(t, corpus)
	base, delta := ix.base.data, ix.DeltaFile()
	queries := []string{"token", "refresh token", `"token policy"`, "tok*", "title:rotation", "tag:auth", "sessions", "zzz"}
	answers := func(ix *Index, err error) (out []string) {
		if err != nil {
			return []string{"open: " + err.Error()}
		}
		for _, q := range queries {
			pq, err := ParseQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := ix.Search(pq, 0, nil)
			out = append(out, fmt.Sprintf("%q: %v", q, err))
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%+v %v %v %+v", *h.Doc, h.Score, h.Fields, h.Snippet))
			}
		}
		return out
	}
	want := answers(Open(delta, base))
	if got := answers(OpenFile(delta, base, bytes.NewReader(base))); !reflect.DeepEqual(got, want) {
		t.Fatalf("read with pread:\n%v\nin place:\n%v", got, want)
	}
	s, _ := OpenSegment(base)
	flips := 0
	for at := s.docIndex; at < s.end; at += 13 { // every byte took 2.6 s
		if at >= s.postArea && at < s.termArea {
			continue // every section but the postings
		}
		bad := bytes.Clone(base)
		bad[at] ^= 0x20
		inPlace := answers(Open(delta, bad))
		if got := answers(OpenFile(delta, bad, bytes.NewReader(bad))); !reflect.DeepEqual(got, inPlace) {
			t.Fatalf("byte %d flipped: read with pread\n%v\nin place\n%v", at, got, inPlace)
		}
		if !reflect.DeepEqual(inPlace, want) {
			flips++
		}
	}
	if flips == 0 {
		t.Fatal("no flipped byte changed an answer: the queries read nothing")
	}
	cut, err := OpenFile(delta, base, bytes.NewReader(base[:s.docArea]))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ParseQuery("token")
	if _, err := cut.Search(q, 0, nil); err != ErrCorrupt {
		t.Fatalf("a file cut short: %v", err)
	}
}

// TestOnlyPhrasesReadPositions: a term's positions lie apart from its
// documents, and only a phrase reads them. With every position byte of
// the base made unreadable, words, prefixes and fields answer as before
// (their scores included), and a phrase fails as corrupt, never panics.
func TestOnlyPhrasesReadPositions(t *testing.T) {
	ix := newIndex(t, corpus)
	bad := bytes.Clone(ix.base.data)
	s, err := OpenSegment(bad)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range s.terms {
		pos := s.termAt(i).positions // bad's bytes
		for j := range pos {
			pos[j] = 0xff // a uvarint that never ends
		}
		n += len(pos)
	}
	if n == 0 {
		t.Fatal("no positions in the base")
	}
	cix, err := Open(ix.DeltaFile(), bad)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"token", "refresh token", "tok*", "title:rotation", "tag:team-1", "sessions"} {
		want, got := mustSearch(t, ix, q), mustSearch(t, cix, q)
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q with positions unreadable: %v, intact: %v", q, ids(got), ids(want))
		}
	}
	q, _ := ParseQuery(`"token policy"`)
	if _, err := cix.Search(q, 0, nil); err != ErrCorrupt {
		t.Fatalf("a phrase over unreadable positions: %v", err)
	}
}
