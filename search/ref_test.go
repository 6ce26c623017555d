package search

import (
	"math"
	"slices"
)

// clauseHits are the documents a clause matched (increasing), with the
// term frequency of the clause in each field.
type clauseHits struct {
	docs []uint32
	tf   [][numFields]uint32
}

// refSearch is Search as it was before the top-k evaluation (every
// matching document scored, then ranked): the oracle the tests hold the
// new one to. It returns the documents that match every clause of q, best first
// (score, then id, so the order does not depend on how the index was
// built), keeping those keep accepts (nil keeps all) until limit (≤ 0: no
// limit). Documents are only decoded as they are considered for output.
func (ix *Index) refSearch(q *Query, limit int, keep func(*Doc) (bool, error)) (hits []Hit, err error) {
	defer guard(&err)
	results := make([]clauseHits, len(q.Clauses))
	for i := range q.Clauses {
		results[i] = ix.refEvalClause(&q.Clauses[i])
		if len(results[i].docs) == 0 {
			return nil, nil
		}
	}
	n := float64(ix.Len())
	var avg [numFields]float64
	for f := range avg {
		total := float64(ix.base.totals[f] + ix.delta.totals[f])
		for _, i := range ix.hiddenNums {
			total -= float64(ix.base.fieldLen(i, Field(f)))
		}
		avg[f] = max(total/max(n, 1), 1)
	}
	idf := make([]float64, len(results))
	for i, r := range results {
		df := float64(len(r.docs))
		idf[i] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	// Candidates: the documents of the rarest clause that every other has.
	rarest := 0
	for i, r := range results {
		if len(r.docs) < len(results[rarest].docs) {
			rarest = i
		}
	}
	cursor := make([]int, len(results))
	// Sized for every document of the rarest clause: a broad word at 100k
	// records spent half its time growing these.
	cands := make([]candidate, 0, len(results[rarest].docs))
	matched := make([]uint8, 0, len(results[rarest].docs)) // per candidate: a bit per field that matched
	for _, doc := range results[rarest].docs {
		score, fields, all := 0.0, uint8(0), true
		for i := range results {
			r := &results[i]
			c := cursor[i]
			for c < len(r.docs) && r.docs[c] < doc {
				c++
			}
			cursor[i] = c
			if c == len(r.docs) || r.docs[c] != doc {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		for i := range results { // in clause order, so equal inputs give equal floats
			tf := results[i].tf[cursor[i]]
			var s float64
			for f := Field(0); f < numFields; f++ {
				if tf[f] == 0 {
					continue
				}
				fields |= 1 << f
				t := float64(tf[f])
				norm := 1 - bm25B + bm25B*float64(ix.fieldLen(doc, f))/avg[f]
				s += fieldWeight[f] * t * (bm25K1 + 1) / (t + bm25K1*norm)
			}
			score += idf[i] * s
		}
		cands = append(cands, candidate{doc: doc, score: score})
		matched = append(matched, fields)
	}
	for i := range cands {
		cands[i].fields = matched[i]
	}
	h := rankHeap{ix: ix}
	h.refBest(cands, limit, func(c candidate) (bool, error) {
		d := ix.doc(c.doc)
		if keep != nil {
			if ok, err := keep(d); err != nil || !ok {
				return false, err
			}
		}
		hit := Hit{Doc: d, Score: c.score, Snippet: MakeSnippet(d, q)}
		for f := Field(0); f < numFields; f++ {
			if c.fields&(1<<f) != 0 {
				hit.Fields = append(hit.Fields, f.String())
			}
		}
		hits = append(hits, hit)
		return true, nil
	})
	if h.err != nil {
		return nil, h.err
	}
	return hits, nil
}

// refEvalClause finds the documents a clause matches, field by field.
func (ix *Index) refEvalClause(c *Clause) clauseHits {
	var perField [numFields][]docTF
	for _, f := range c.fields() {
		if len(c.Terms) == 1 {
			perField[f] = ix.termDocs(f, c)
			continue
		}
		perField[f] = ix.refPhrase(f, c)
	}
	// Merge the fields' lists (each in document order).
	size := 0
	for _, l := range perField {
		size += len(l)
	}
	out := clauseHits{docs: make([]uint32, 0, size), tf: make([][numFields]uint32, 0, size)}
	var at [numFields]int
	for {
		next, any := uint32(math.MaxUint32), false
		for f := range perField {
			if at[f] < len(perField[f]) && perField[f][at[f]].doc <= next {
				next, any = perField[f][at[f]].doc, true
			}
		}
		if !any {
			return out
		}
		var tf [numFields]uint32
		for f := range perField {
			if at[f] < len(perField[f]) && perField[f][at[f]].doc == next {
				tf[f] = perField[f][at[f]].tf
				at[f]++
			}
		}
		out.docs = append(out.docs, next)
		out.tf = append(out.tf, tf)
	}
}

// best offers candidates to accept best first until limit are accepted
// (≤ 0: no limit) or none is left. Only the best few are ordered (a
// bounded heap: most candidates cost one score comparison); when accept
// turns too many down, the next few are.
func (h *rankHeap) refBest(cands []candidate, limit int, accept func(candidate) (bool, error)) {
	accepted := 0
	k := len(cands)
	if limit > 0 {
		k = min(len(cands), 2*limit)
	}
	done := 0 // the best done candidates have been offered
	for done < len(cands) {
		top := h.refTop(cands, k)
		for _, c := range top[done:] {
			ok, err := accept(c)
			if err != nil {
				h.err = err
				return
			}
			if ok {
				if accepted++; limit > 0 && accepted == limit {
					return
				}
			}
		}
		done, k = len(top), min(len(cands), 4*k)
	}
}

// top returns the best k candidates, best first.
func (h *rankHeap) refTop(cands []candidate, k int) []candidate {
	if k >= len(cands) {
		out := slices.Clone(cands)
		slices.SortFunc(out, func(a, b candidate) int {
			if h.better(a, b) {
				return -1
			}
			if h.better(b, a) {
				return 1
			}
			return 0
		})
		return out
	}
	// A heap of the k best so far, the worst of them at its root.
	h.c = h.c[:0]
	for _, c := range cands {
		if len(h.c) < k {
			h.c = append(h.c, c)
			h.up(len(h.c) - 1)
		} else if h.better(c, h.c[0]) {
			h.c[0] = c
			h.down(0)
		}
	}
	out := make([]candidate, len(h.c))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = h.c[0]
		last := len(h.c) - 1
		h.c[0] = h.c[last]
		h.c = h.c[:last]
		h.down(0)
	}
	return out
}

// refPhrase is phrase as it was (every term's positions decoded for
// every document first): the oracle. It returns the documents where field f holds the clause's terms at
// consecutive positions, tf the number of times.
func (ix *Index) refPhrase(f Field, c *Clause) []docTF {
	lists := make([][]posting, len(c.Terms))
	for i := range c.Terms {
		if lists[i] = ix.postings(f, c, i); len(lists[i]) == 0 {
			return nil
		}
	}
	at := make([]int, len(lists))
	var out []docTF
	for _, first := range lists[0] {
		found := true
		for i := 1; i < len(lists); i++ {
			for at[i] < len(lists[i]) && lists[i][at[i]].doc < first.doc {
				at[i]++
			}
			if at[i] == len(lists[i]) || lists[i][at[i]].doc != first.doc {
				found = false
				break
			}
		}
		if !found {
			continue
		}
		var count uint32
		for _, p := range first.pos {
			ok := true
			for i := 1; i < len(lists) && ok; i++ {
				_, ok = slices.BinarySearch(lists[i][at[i]].pos, p+uint32(i))
			}
			if ok {
				count++
			}
		}
		if count > 0 {
			out = append(out, docTF{doc: first.doc, tf: count})
		}
	}
	return out
}
