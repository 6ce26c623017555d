package search

import (
	"bytes"
	"math"
	"slices"
)

// BM25 parameters, as most engines use them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Hit is one ranked result.
type Hit struct {
	Doc    *Doc
	Score  float64
	Fields []string // the fields the query matched in, in field order
	Snippet
}

// posting is one document of a postings list; pos only when asked for.
type posting struct {
	doc uint32
	tf  uint32
	pos []uint32
}

// clauseHits are the documents a clause matched (increasing), with the
// term frequency of the clause in each field.
type clauseHits struct {
	docs []uint32
	tf   [][numFields]uint32
}

// Search returns the documents that match every clause of q, best first
// (score, then id, so the order does not depend on how the index was
// built), keeping those keep accepts (nil keeps all) until limit (≤ 0: no
// limit). Documents are only decoded as they are considered for output.
func (ix *Index) Search(q *Query, limit int, keep func(*Doc) (bool, error)) (hits []Hit, err error) {
	defer guard(&err)
	results := make([]clauseHits, len(q.Clauses))
	for i := range q.Clauses {
		results[i] = ix.evalClause(&q.Clauses[i])
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
	var cands []candidate
	var matched []uint8 // per candidate: a bit per field that matched
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
	h := rankHeap{ix: ix, c: cands}
	h.init()
	for len(h.c) > 0 && (limit <= 0 || len(hits) < limit) {
		c := h.pop()
		d := ix.doc(c.doc)
		if keep != nil {
			ok, err := keep(d)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		hit := Hit{Doc: d, Score: c.score, Snippet: MakeSnippet(d, q)}
		for f := Field(0); f < numFields; f++ {
			if c.fields&(1<<f) != 0 {
				hit.Fields = append(hit.Fields, f.String())
			}
		}
		hits = append(hits, hit)
	}
	return hits, nil
}

func (ix *Index) fieldLen(doc uint32, f Field) uint32 {
	if nb := uint32(ix.base.Len()); doc >= nb {
		return ix.delta.fieldLen(int(doc-nb), f)
	}
	return ix.base.fieldLen(int(doc), f)
}

func (ix *Index) doc(doc uint32) *Doc {
	if nb := uint32(ix.base.Len()); doc >= nb {
		return ix.delta.doc(int(doc - nb))
	}
	return ix.base.doc(int(doc))
}

func (ix *Index) docID(doc uint32) []byte {
	if nb := uint32(ix.base.Len()); doc >= nb {
		return ix.delta.docID(int(doc - nb))
	}
	return ix.base.docID(int(doc))
}

// evalClause finds the documents a clause matches, field by field.
func (ix *Index) evalClause(c *Clause) clauseHits {
	var perField [numFields][]posting
	for _, f := range c.fields() {
		if len(c.Terms) == 1 {
			perField[f] = ix.postings(f, c, 0, false)
			continue
		}
		perField[f] = ix.phrase(f, c)
	}
	// Merge the fields' lists (each in document order).
	var out clauseHits
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

// postings returns, in document order, the documents whose field f holds
// the clause's term number elem (every term it begins, for a prefix),
// base documents the delta hides left out.
func (ix *Index) postings(f Field, c *Clause, elem int, withPos bool) []posting {
	key := append([]byte{byte(f)}, c.Terms[elem]...)
	prefix := c.Prefix && elem == len(c.Terms)-1
	var out []posting
	lists := 0
	for si, seg := range []*Segment{ix.base, ix.delta} {
		offset := uint32(0)
		if si == 1 {
			offset = uint32(ix.base.Len())
		}
		for _, t := range seg.lookup(key, prefix) {
			lists++
			r := reader{b: t.postings}
			var doc uint32
			for len(r.b) > 0 {
				doc += uint32(r.uvarint())
				p := posting{doc: doc + offset, tf: uint32(r.uvarint())}
				var last uint32
				for k := uint32(0); k < p.tf; k++ {
					last += uint32(r.uvarint())
					if withPos {
						p.pos = append(p.pos, last)
					}
				}
				if int(doc) >= seg.Len() {
					panic(corrupt{})
				}
				if si == 0 && ix.nHidden > 0 && ix.isHidden(int(doc)) {
					continue
				}
				out = append(out, p)
			}
		}
	}
	if lists <= 1 || slices.IsSortedFunc(out, func(a, b posting) int { return int(a.doc) - int(b.doc) }) && !hasDup(out) {
		return out
	}
	// Several terms (a prefix): one entry per document.
	slices.SortStableFunc(out, func(a, b posting) int { return int(a.doc) - int(b.doc) })
	merged := out[:0]
	for _, p := range out {
		if len(merged) > 0 && merged[len(merged)-1].doc == p.doc {
			m := &merged[len(merged)-1]
			m.tf += p.tf
			m.pos = append(m.pos, p.pos...)
			slices.Sort(m.pos)
			continue
		}
		merged = append(merged, p)
	}
	return merged
}

func hasDup(ps []posting) bool {
	for i := 1; i < len(ps); i++ {
		if ps[i].doc == ps[i-1].doc {
			return true
		}
	}
	return false
}

// phrase returns the documents where field f holds the clause's terms at
// consecutive positions, tf the number of times.
func (ix *Index) phrase(f Field, c *Clause) []posting {
	lists := make([][]posting, len(c.Terms))
	for i := range c.Terms {
		if lists[i] = ix.postings(f, c, i, true); len(lists[i]) == 0 {
			return nil
		}
	}
	at := make([]int, len(lists))
	var out []posting
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
			out = append(out, posting{doc: first.doc, tf: count})
		}
	}
	return out
}

type candidate struct {
	doc    uint32
	score  float64
	fields uint8
}

// rankHeap pops candidates best first: higher score, then smaller id.
type rankHeap struct {
	ix *Index
	c  []candidate
}

func (h *rankHeap) better(i, j int) bool {
	if h.c[i].score != h.c[j].score {
		return h.c[i].score > h.c[j].score
	}
	return bytes.Compare(h.ix.docID(h.c[i].doc), h.ix.docID(h.c[j].doc)) < 0
}

func (h *rankHeap) init() {
	for i := len(h.c)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *rankHeap) pop() candidate {
	top := h.c[0]
	last := len(h.c) - 1
	h.c[0] = h.c[last]
	h.c = h.c[:last]
	h.down(0)
	return top
}

func (h *rankHeap) down(i int) {
	for {
		best := i
		for _, k := range []int{2*i + 1, 2*i + 2} {
			if k < len(h.c) && h.better(k, best) {
				best = k
			}
		}
		if best == i {
			return
		}
		h.c[i], h.c[best] = h.c[best], h.c[i]
		i = best
	}
}
