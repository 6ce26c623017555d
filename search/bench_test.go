package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var benchVocabulary = strings.Fields(`token refresh policy rotate handler session cache index branch commit
review finding decision record graph link store signature reader writer latency budget release
migration schema service client server request retry timeout backoff queue worker owner incident`)

// BenchmarkQuery: one query (the best 20) over an in-memory index of SEARCH_BENCH_DOCS
// documents (default 10,000) shaped like the bench seed (a title, two
// tags, a category, about a hundred words from a small vocabulary, so a
// word is in most documents: a query's worst case). The CLI's cost per
// process is measured in bench/.
func BenchmarkQuery(b *testing.B) {
	n := 10000
	if s := os.Getenv("SEARCH_BENCH_DOCS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ix, _, err := New("bench", [20]byte{}, benchDocs(n))
	if err != nil {
		b.Fatal(err)
	}
	for _, query := range []string{"latency", "latency budget", `"refresh token"`, "tok*", "title:4242"} {
		q, err := ParseQuery(query)
		if err != nil {
			b.Fatal(err)
		}
		// exhaustive is the evaluation Search replaced (every match scored,
		// then ranked): the baseline of the same run.
		for _, way := range []struct {
			name   string
			search func(*Query, int, func(*Doc) (bool, error)) ([]Hit, error)
		}{{"topk", ix.Search}, {"exhaustive", ix.refSearch}} {
			b.Run(query+"/"+way.name, func(b *testing.B) {
				// CPU time too: on a loaded machine it is steadier than the wall clock.
				before := cpuTime()
				for range b.N {
					if _, err := way.search(q, 20, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64((cpuTime()-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// benchDocs are n documents shaped like the bench seed's.
func benchDocs(n int) []*Doc {
	rng := rand.New(rand.NewPCG(1, 2))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = benchVocabulary[rng.IntN(len(benchVocabulary))]
		}
		return strings.Join(w, " ")
	}
	docs := make([]*Doc, n)
	for i := range docs {
		docs[i] = &Doc{ID: fmt.Sprintf("%026x", rng.Uint64()), Title: fmt.Sprintf("Seed record %d: %s", i, words(5)),
			Category: fmt.Sprintf("bench.area%d.topic%d", i%7, i%23), Tags: []string{fmt.Sprintf("t%d", i%13), fmt.Sprintf("team-%d", i%5)},
			Body: "## Context\n\n" + words(40) + ".\n\n## Decision\n\n" + words(30) + ".\n\n- " + words(8) + "\n- " + words(8) + "\n"}
	}
	return docs
}

func cpuTime() time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// BenchmarkApply: one changed document applied to an index of
// SEARCH_BENCH_DOCS documents whose delta already holds some (the cost of
// a catch-up after one commit, without git), and the merge of a full
// delta into a new base.
func BenchmarkApply(b *testing.B) {
	n := 10000
	if s := os.Getenv("SEARCH_BENCH_DOCS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	docs := benchDocs(n)
	ix, _, err := New("bench", [20]byte{1}, docs)
	if err != nil {
		b.Fatal(err)
	}
	for _, held := range []int{1, 100, 500} {
		var changes []Change
		for i := range held {
			d := *docs[i*(n/held)]
			d.Body += " changed"
			changes = append(changes, Change{ID: d.ID, Doc: &d})
		}
		at, _, err := ix.Apply([20]byte{2}, changes)
		if err != nil {
			b.Fatal(err)
		}
		one := *docs[n/2+1]
		one.Title += " again"
		b.Run(fmt.Sprintf("delta%d", held), func(b *testing.B) {
			before := cpuTime()
			for range b.N {
				if _, base, err := at.Apply([20]byte{3}, []Change{{ID: one.ID, Doc: &one}}); err != nil || base != nil {
					b.Fatal(err, base != nil)
				}
			}
			b.ReportMetric(float64((cpuTime()-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
	// The merge: a delta past MaxDelta rebuilt into a new base.
	var changes []Change
	for i := range MaxDelta + 1 {
		d := *docs[i*(n/(MaxDelta+1))]
		d.Body += " changed"
		changes = append(changes, Change{ID: d.ID, Doc: &d})
	}
	b.Run("merge", func(b *testing.B) {
		before := cpuTime()
		for range b.N {
			if _, base, err := ix.Apply([20]byte{3}, changes); err != nil || base == nil {
				b.Fatal(err, base == nil)
			}
		}
		b.ReportMetric(float64((cpuTime()-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkBuild: a segment of documents shaped like the bench seed's,
// per document.
func BenchmarkBuild(b *testing.B) {
	docs := benchDocs(20000)
	b.ResetTimer()
	for range b.N {
		Build("bench", [20]byte{}, docs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)), "ns/doc")
}
