package search

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/git-records/git-records/kernel"
)

// TestQueryBoundsRefused: a query past any of its bounds is refused with
// USAGE naming the bound (query_limit) and its value, and one at the bound
// runs.
func TestQueryBoundsRefused(t *testing.T) {
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("word%d", i)
		}
		return strings.Join(w, " ")
	}
	refused := func(q, limit string) {
		t.Helper()
		_, err := ParseQuery(q)
		var ke *kernel.Error
		if !errors.As(err, &ke) || ke.Code != kernel.CodeUsage || ke.Extra["query_limit"] != limit {
			t.Fatalf("a query past the %s bound (%d bytes): %v", limit, len(q), err)
		}
	}
	accepted := func(q string) {
		t.Helper()
		if _, err := ParseQuery(q); err != nil {
			t.Fatalf("a query at the bounds (%d bytes): %v", len(q), err)
		}
	}
	refused(strings.Repeat("w* ", 1000), "bytes") // the 3 KB query that took 22 s
	accepted(strings.Repeat("w", MaxQueryBytes))
	refused(strings.Repeat("w", MaxQueryBytes+1), "bytes")
	accepted(words(MaxClauses))
	refused(words(MaxClauses+1), "clauses")
	accepted(strings.Repeat(`"a b" `, MaxQueryWords/2))
	refused(`"`+words(MaxQueryWords+1)+`"`, "words")

	// Prefix words are counted in the index: a body of more distinct words
	// beginning with w than a query may name.
	var body []string
	for i := range MaxPrefixWords + 10 {
		body = append(body, fmt.Sprintf("w%04d", i))
	}
	ix := newIndex(t, append([]*Doc{{ID: "many-w", Title: "Words", Body: strings.Join(body, " ")}}, corpus...))
	for q, limit := range map[string]string{"w*": "prefix_words", "body:w*": "prefix_words", "w00*": "", "title:w*": "", "w*ords": ""} {
		pq, err := ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ix.Search(pq, 0, nil)
		var ke *kernel.Error
		if limit == "" && err != nil || limit != "" && !(errors.As(err, &ke) && ke.Code == kernel.CodeUsage && ke.Extra["query_limit"] == limit) {
			t.Errorf("%q: %v", q, err)
		}
	}
}

// TestQueryCostPerDoubling: the CPU time of parsing and running a query
// grows at most linearly with its size: each doubling of the clauses
// (the w* repeated) or of a phrase's words costs at most 2.5x,
// past the bounds too (refused, for less).
func TestQueryCostPerDoubling(t *testing.T) {
	ix := newIndex(t, benchDocs(1000))
	// No collection while measuring: a cycle lands in whichever
	// measurement happens to run it. What the runs allocate is a few MB.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	run := func(q string) {
		pq, err := ParseQuery(q)
		if err != nil {
			return // past a bound
		}
		if _, err := ix.Search(pq, 20, nil); err != nil {
			var ke *kernel.Error
			if !errors.As(err, &ke) {
				t.Fatal(err)
			}
		}
	}
	for _, series := range []struct {
		name  string
		query func(n int) string
		sizes []int
	}{
		{"w* clauses", func(n int) string { return strings.Repeat("w* ", n) }, []int{8, 16, 32, 64, 128, 256}},
		{"phrase words", func(n int) string {
			return `"` + strings.Repeat("worker writer ", n/2) + `"`
		}, []int{8, 16, 32, 64, 128}},
	} {
		reps, last := 0, time.Duration(0)
		for i, n := range series.sizes {
			q := series.query(n)
			if reps == 0 { // enough runs of the smallest for its time to count
				for start := cpuTime(); cpuTime()-start < 6*time.Millisecond; reps++ {
					run(q)
				}
			}
			took := time.Duration(1<<63 - 1)
			for range 3 { // the least of three: other load only adds
				runtime.GC()
				start := cpuTime()
				for range reps {
					run(q)
				}
				took = min(took, cpuTime()-start)
			}
			if i > 0 {
				ratio := float64(took) / float64(last)
				t.Logf("%s: %d: %v (%.2fx per doubling)", series.name, n, took, ratio)
				if ratio > 2.5 {
					t.Errorf("%s: from %d to %d the CPU time went from %v to %v, %.2fx per doubling", series.name, series.sizes[i-1], n, last, took, ratio)
				}
			}
			last = took
		}
	}
}
