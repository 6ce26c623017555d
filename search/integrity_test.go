package search

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// flipIndex is an index whose delta does all a delta does: it hides a
// base document it updates and one it removes, and adds one the base lacks.
func flipIndex(t *testing.T, docs []*Doc) *Index {
	t.Helper()
	updated := *docs[3]
	updated.Title, updated.Body = "Sessions rewritten", "Every token now expires; queues wait."
	added := &Doc{ID: "e-added", Type: "concept", Title: "Delta only", Body: "A rotate token note, zebra words: the token policy.", Tags: []string{"auth"}}
	ix, base, err := newIndex(t, docs).Apply(tipOf("t1"), []Change{{ID: updated.ID, Doc: &updated}, {ID: docs[2].ID}, {ID: added.ID, Doc: added}})
	require(t, err)
	if base != nil {
		t.Fatal("three changes merged into a new base")
	}
	return ix
}

// flipQueries read every part of the files between them: each field's
// dictionary and postings, positions (the phrase), a prefix's run of
// entries, field lengths (every score), the documents of the base and the
// delta (an updated, a removed and an added record), and the top-k path
// (limit 1) beside the exhaustive one.
var flipQueries = []struct {
	q     string
	limit int
}{{"token", 0}, {"token", 1}, {`"token policy"`, 0}, {"rot*", 0}, {"tag:auth", 0}, {"category:eng", 0},
	{"sessions", 0}, {"queues", 0}, {"caching", 0}, {"zebra", 0}, {"alias:token-rotation", 0}}

// answers is every query's hits over ix, or nil for a query that fails
// with ErrCorrupt (the store rebuilds then, and asks again); any other
// error fails the test.
func answers(t *testing.T, ix *Index) [][]Hit { return someAnswers(t, ix, len(flipQueries)) }

// someAnswers is answers to the first n queries only.
func someAnswers(t *testing.T, ix *Index, n int) [][]Hit {
	t.Helper()
	out := make([][]Hit, n)
	for i, fq := range flipQueries[:n] {
		pq, err := ParseQuery(fq.q)
		require(t, err)
		hits, err := ix.Search(pq, fq.limit, nil)
		if errors.Is(err, ErrCorrupt) {
			continue
		}
		require(t, err)
		out[i] = append(hits, Hit{}) // not nil: an answer, maybe of no hits
	}
	return out
}

// wrongAnswer describes the first answer of got that is neither want's
// nor corrupt, "" when there is none.
func wrongAnswer(got, want [][]Hit) string {
	for i := range got {
		if got[i] != nil && !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("%q (limit %d): %v\nintact: %v", flipQueries[i].q, flipQueries[i].limit, got[i], want[i])
		}
	}
	return ""
}

// TestFlippedBitsNeverAnswerWrongly: a bit flipped anywhere in the base
// (read in place or with pread) or the delta file, one bit of every byte:
// the index fails to open, or every query answers as over the intact
// files or fails as corrupt (the store rebuilds then), never with another
// answer; a catch-up over it (Apply) does the same; and Verify (reindex)
// finds every flip.
func TestFlippedBitsNeverAnswerWrongly(t *testing.T) {
	ix := flipIndex(t, corpus)
	base, delta := ix.base.data, ix.DeltaFile()
	want := answers(t, ix)
	change := []Change{{ID: "f-new", Doc: &Doc{ID: "f-new", Title: "Token caching", Body: "Rotate often."}}, {ID: corpus[0].ID}}
	caughtUp, _, err := ix.Apply(tipOf("t2"), change)
	require(t, err)
	wantCaughtUp := answers(t, caughtUp)
	var found []string
	for _, hits := range want {
		for _, h := range hits[:len(hits)-1] {
			found = append(found, h.Doc.ID+" "+h.Doc.Title)
		}
	}
	if w := strings.Join(found, ", "); !strings.Contains(w, "e-added") || !strings.Contains(w, "Sessions rewritten") ||
		!strings.Contains(w, corpus[1].ID) || strings.Contains(w, corpus[2].ID) || strings.Contains(w, corpus[3].Title) {
		t.Fatalf("the queries do not read the base's and the delta's documents: %v", w)
	}

	// check opens the damaged files and asks every query; with full, a
	// catch-up and Verify too. Otherwise (pread, whose reads differ from
	// the mapping's only in a search's probes and hits) the first queries.
	check := func(where string, at int, full bool, open func() (*Index, error)) {
		t.Helper()
		fix, err := open()
		if err != nil {
			if err != ErrCorrupt {
				t.Fatalf("%s byte %d: open: %v", where, at, err)
			}
			return
		}
		if fix.Tip != ix.Tip || fix.BaseTip != ix.BaseTip || fix.Store != ix.Store {
			t.Fatalf("%s byte %d: opened as store %q at %x over %x", where, at, fix.Store, fix.Tip, fix.BaseTip)
		}
		if !full {
			if w := wrongAnswer(someAnswers(t, fix, 4), want); w != "" {
				t.Fatalf("%s byte %d flipped: %s", where, at, w)
			}
			return
		}
		if w := wrongAnswer(answers(t, fix), want); w != "" {
			t.Fatalf("%s byte %d flipped: %s", where, at, w)
		}
		if next, _, err := fix.Apply(tipOf("t2"), change); err != ErrCorrupt {
			require(t, err)
			if w := wrongAnswer(answers(t, next), wantCaughtUp); w != "" {
				t.Fatalf("%s byte %d flipped, caught up: %s", where, at, w)
			}
		}
		if fix.Verify() != ErrCorrupt {
			t.Fatalf("%s byte %d flipped: Verify passes it", where, at)
		}
	}
	for at := range base {
		bad := bytes.Clone(base)
		bad[at] ^= 1 << (at % 8)
		check("base", at, true, func() (*Index, error) { return Open(delta, bad) })
		check("base (pread)", at, false, func() (*Index, error) { return OpenFile(delta, bad, bytes.NewReader(bad)) })
	}
	for at := range delta {
		bad := bytes.Clone(delta)
		bad[at] ^= 1 << (at % 8)
		check("delta", at, true, func() (*Index, error) { return Open(bad, base) })
	}
}

// TestFlippedFieldLengthsAcrossBlocks: the field lengths are checked a
// block at a time; over an index of several blocks, a bit flipped in any
// block or in its checksum is corruption to a search that scores a
// document of that block, and to Verify.
func TestFlippedFieldLengthsAcrossBlocks(t *testing.T) {
	ix := newIndex(t, benchDocs(300))
	s := ix.base
	if blocks := (s.docArea - s.lensSums) / 4; blocks < 2 {
		t.Fatalf("%d blocks of field lengths", blocks)
	}
	q, err := ParseQuery("latency")
	require(t, err)
	want, err := ix.Search(q, 0, nil)
	require(t, err)
	var flips []int
	for at := s.lens; at < s.lensSums; at += 53 {
		flips = append(flips, at) // every block's lengths
	}
	for at := s.lensSums; at < s.docArea; at++ {
		flips = append(flips, at) // every checksum
	}
	for _, at := range flips {
		bad := bytes.Clone(s.data)
		bad[at] ^= 1 << (at % 8)
		fix, err := Open(ix.DeltaFile(), bad)
		require(t, err)
		if got, err := fix.Search(q, 0, nil); err != ErrCorrupt && !reflect.DeepEqual(got, want) {
			t.Fatalf("byte %d of the field lengths flipped: %v", at-s.lens, err)
		}
		if fix.Verify() != ErrCorrupt {
			t.Fatalf("byte %d of the field lengths flipped: Verify passes it", at-s.lens)
		}
	}
}
