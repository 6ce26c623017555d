package search

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/git-records/git-records/internal/testenv"
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
// grows at most linearly with its size: doubling the clauses (the issue's
// w* repeated) or a phrase's words up to their bounds costs at most 2.5x.
// Past the bounds a query is refused before it runs (TestQueryBoundsRefused).
func TestQueryCostPerDoubling(t *testing.T) {
	ix := newIndex(t, benchDocs(1000))
	run := func(q string) func() {
		return func() {
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
	}
	for _, series := range []struct {
		name  string
		query func(n int) string
		sizes []int
	}{
		{"w* clauses", func(n int) string { return strings.Repeat("w* ", n) }, []int{8, 16}},
		{"phrase words", func(n int) string {
			return `"` + strings.Repeat("worker writer ", n/2) + `"`
		}, []int{16, 32}},
	} {
		small, large := series.sizes[0], series.sizes[1]
		t.Run(fmt.Sprintf("%s %d to %d", series.name, small, large), func(t *testing.T) {
			testenv.RequireDoubling(t, run(series.query(small)), run(series.query(large)))
		})
	}
}
