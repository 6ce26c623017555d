package gitstore

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/git-records/git-records/search"
)

// TestSearchHitJSONAsEncodingJSON: a hit's hand-written JSON is the bytes
// encoding/json writes, compact and indented, for strings that need
// escaping, every float form, and empty, nil and full lists.
func TestSearchHitJSONAsEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", `quo"te \ back`, "tab\tnew\nline\r\x00\x1f\x7f", "<a href=\"x\">&amp;</a>",
		"héllo wörld ✓", "bad \xff\xfe utf8", "line\u2028sep\u2029", "emoji 🦀"}
	scores := []float64{0, 1, 13.930850813314729, -0.5, 1e-7, 1.5e-6, 999999.999, 1e20, 1e21, 1.2345e300, 5e-324, math.SmallestNonzeroFloat64 * 3}
	var hits []SearchHit
	for i, s := range strs {
		h := SearchHit{ID: s, Title: strs[(i+1)%len(strs)], Type: strs[(i+2)%len(strs)], Category: strs[(i+3)%len(strs)],
			Status: "active", Score: scores[i%len(scores)], Snippet: search.Snippet{Text: strs[(i+4)%len(strs)]}}
		switch i % 3 {
		case 0:
			h.Matched, h.Highlights = []string{"title", s}, [][2]int{{0, 3}, {61, 1 << 20}}
		case 1:
			h.Matched, h.Highlights = []string{}, [][2]int{}
		}
		hits = append(hits, h)
	}
	for _, sc := range scores {
		hits = append(hits, SearchHit{ID: "x", Score: sc, Matched: []string{"body"}, Snippet: search.Snippet{Highlights: [][2]int{{1, 2}}}})
	}
	for _, ind := range [][2]string{{"", ""}, {"  ", "  "}, {"", "\t"}, {">", ""}} {
		for i := range hits {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			enc.SetIndent(ind[0], ind[1])
			if err := enc.Encode(&hits[i]); err != nil {
				t.Fatal(err)
			}
			got, err := hits[i].AppendJSON([]byte("keep"), ind[0], ind[1])
			if err != nil {
				t.Fatal(err)
			}
			if w := "keep" + string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))); string(got) != w {
				t.Fatalf("hit %d, indent %q:\n got %s\nwant %s", i, ind, got, w)
			}
		}
	}
	bad := SearchHit{Score: math.NaN()}
	if got, err := bad.AppendJSON([]byte("keep"), "", ""); err == nil || string(got) != "keep" {
		t.Fatalf("a NaN score: %q, %v", got, err)
	}
}
