package search

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// randomCorpus: documents over a small vocabulary, so that most words are
// in many documents, in several fields, as often as each other (ties).
func randomCorpus(rng *rand.Rand, n int, prefix string) []*Doc {
	vocab := []string{"latency", "cache", "queue", "token", "policy", "refresh", "rotate", "rotation", "store", "signal"}
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[rng.Intn(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	var docs []*Doc
	for i := range n {
		d := &Doc{ID: fmt.Sprintf("%s%04d", prefix, rng.Intn(4*n)), Type: []string{"concept", "raw"}[rng.Intn(2)],
			Title: words(rng.Intn(4)), Body: words(rng.Intn(12))}
		if rng.Intn(3) == 0 {
			d.Tags = []string{vocab[rng.Intn(len(vocab))], "team-" + fmt.Sprint(rng.Intn(3))}
		}
		if rng.Intn(4) == 0 {
			d.Aliases = []string{vocab[rng.Intn(len(vocab))] + "-" + vocab[rng.Intn(len(vocab))]}
		}
		if rng.Intn(2) == 0 {
			d.Category = "eng." + vocab[rng.Intn(len(vocab))]
		}
		if i%7 == 0 { // the same text as another: equal scores
			d.Title, d.Body = "cache latency", "latency"
		}
		docs = append(docs, d)
	}
	return docs
}

var randomQueries = []string{
	"latency", "cache", "latency cache", "cache latency queue", `"cache latency"`, `"latency latency"`,
	"rot*", "ro*", "l*", "title:latency", "body:cache", "tag:team-1", "tag:token", "alias:cache-latency",
	"category:eng", "category:eng.cache", "title:rot* policy", `body:"token policy" latency`, "nothing",
	"latency nothing", "signal store refresh", "t*", "q* c*",
	"cache-lat*", "latency-c*", "cache-latency", "title:cache-latency", `"latency cache latency"`, `"queue queue"`, "r*-r*",
}

// TestTopKMatchesExhaustive: Search (top k, pruned) returns exactly what
// scoring every match and ranking them all returns (refSearch, the
// evaluation it replaced): the same documents, order, scores, fields and
// snippets, for every limit and with filters that turn hits down, over
// a base alone, a base and a delta that hides some of it, and after a
// merge.
func TestTopKMatchesExhaustive(t *testing.T) {
	defer func(m int) { MaxDelta = m }(MaxDelta)
	MaxDelta = 150
	rng := rand.New(rand.NewSource(11))
	ix := newIndex(t, randomCorpus(rng, 300, "b"))
	check := func(stage string) {
		t.Helper()
		filters := map[string]func(*Doc) (bool, error){
			"none": nil,
			"raw":  func(d *Doc) (bool, error) { return d.Type == "raw", nil },
			"rare": func(d *Doc) (bool, error) { return strings.HasSuffix(d.ID, "7"), nil },
		}
		compared := 0
		for _, q := range randomQueries {
			pq, err := ParseQuery(q)
			require(t, err)
			for name, keep := range filters {
				for _, limit := range []int{0, 1, 2, 3, 5, 10, 20, 1000} {
					want, err := ix.refSearch(pq, limit, keep)
					require(t, err)
					got, err := ix.Search(pq, limit, keep)
					require(t, err)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: %q, filter %s, limit %d:\n got %v\nwant %v", stage, q, name, limit, ids(got), ids(want))
					}
					compared += len(want)
				}
			}
		}
		if compared < 1000 {
			t.Fatalf("%s: only %d hits compared: the corpus does not exercise the ranking", stage, compared)
		}
	}
	check("base")
	for step := range 4 {
		var changes []Change
		for _, d := range randomCorpus(rng, 60, "b") {
			if rng.Intn(5) == 0 {
				changes = append(changes, Change{ID: d.ID}) // removed
			} else {
				changes = append(changes, Change{ID: d.ID, Doc: d})
			}
		}
		next, base, err := ix.Apply(tipOf(fmt.Sprint("t", step+1)), changes)
		require(t, err)
		ix = next
		stage := fmt.Sprintf("step %d (delta %d, hidden %d, merged %v)", step, ix.delta.Len(), ix.nHidden, base != nil)
		check(stage)
	}
}

// TestSkipUvarints: skipping n uvarints, eight bytes at a time or one,
// lands where decoding them does, and running out is corruption.
func TestSkipUvarints(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for range 2000 {
		var buf []byte
		count := rng.Intn(40)
		for range count {
			v := uint64(rng.Intn(200))
			if rng.Intn(5) == 0 {
				v = uint64(rng.Int63n(1 << uint(rng.Intn(40))))
			}
			buf = binary.AppendUvarint(buf, v)
		}
		buf = append(buf, 0x7f, 0x85, 0x01) // what follows
		for n := 0; n <= count; n++ {
			want := reader{b: buf}
			for range n {
				want.uvarint()
			}
			got := reader{b: buf}
			got.skipUvarints(n)
			if len(got.b) != len(want.b) {
				t.Fatalf("skip %d of %x: %d bytes left, decoding leaves %d", n, buf, len(got.b), len(want.b))
			}
		}
		func() {
			defer func() {
				if _, ok := recover().(corrupt); !ok {
					t.Fatalf("skipping past the end of %x did not panic with corrupt", buf)
				}
			}()
			r := reader{b: buf}
			r.skipUvarints(count + 3)
		}()
	}
}

// TestHugeLimit: a limit too large to double is no limit, not a panic.
func TestHugeLimit(t *testing.T) {
	ix := newIndex(t, corpus)
	q, _ := ParseQuery("token")
	for _, limit := range []int{math.MaxInt, math.MaxInt / 2, math.MaxInt/8 - 1} {
		hits, err := ix.Search(q, limit, func(d *Doc) (bool, error) { return d.Type == "concept", nil })
		require(t, err)
		if got := ids(hits); !reflect.DeepEqual(got, []string{"a-title", "b-body"}) {
			t.Fatalf("limit %d: %v", limit, got)
		}
	}
}
