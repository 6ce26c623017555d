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

// posting is one document of a postings list with its positions (for phrases).
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
	h.best(cands, limit, func(c candidate) (bool, error) {
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
	var perField [numFields][]docTF
	for _, f := range c.fields() {
		if len(c.Terms) == 1 {
			perField[f] = ix.termDocs(f, c)
			continue
		}
		perField[f] = ix.phrase(f, c)
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

// docTF is a document and how often a clause occurs in one of its fields.
type docTF struct{ doc, tf uint32 }

// termDocs is postings without positions, for a one-word clause (the
// common case, and the one whose lists are longest): 8 bytes a document.
func (ix *Index) termDocs(f Field, c *Clause) []docTF {
	key := append([]byte{byte(f)}, c.Terms[0]...)
	segs := [2][]term{ix.base.lookup(key, c.Prefix), ix.delta.lookup(key, c.Prefix)}
	size, lists := 0, 0
	for _, ts := range segs {
		for _, t := range ts {
			size += t.df
			lists++
		}
	}
	out := make([]docTF, 0, min(size, ix.base.Len()+ix.delta.Len()))
	for si, seg := range []*Segment{ix.base, ix.delta} {
		offset := uint32(0)
		if si == 1 {
			offset = uint32(ix.base.Len())
		}
		for _, t := range segs[si] {
			r := reader{b: t.postings}
			var doc uint32
			for len(r.b) > 0 {
				doc += uint32(r.uvarint())
				tf := uint32(r.uvarint())
				r.skipUvarints(int(tf))
				if int(doc) >= seg.Len() {
					panic(corrupt{})
				}
				if si == 0 && ix.nHidden > 0 && ix.isHidden(int(doc)) {
					continue
				}
				out = append(out, docTF{doc + offset, tf})
			}
		}
	}
	if lists <= 1 {
		return out
	}
	// Several terms (a prefix): one entry per document, the counts added.
	slices.SortStableFunc(out, func(a, b docTF) int { return int(a.doc) - int(b.doc) })
	merged := out[:0]
	for _, p := range out {
		if n := len(merged); n > 0 && merged[n-1].doc == p.doc {
			merged[n-1].tf += p.tf
			continue
		}
		merged = append(merged, p)
	}
	return merged
}

// postings returns, in document order, the documents whose field f holds
// the clause's term number elem (every term it begins, for a prefix),
// base documents the delta hides left out.
func (ix *Index) postings(f Field, c *Clause, elem int) []posting {
	key := append([]byte{byte(f)}, c.Terms[elem]...)
	prefix := c.Prefix && elem == len(c.Terms)-1
	segs := [2][]term{ix.base.lookup(key, prefix), ix.delta.lookup(key, prefix)}
	size := 0
	for _, ts := range segs {
		for _, t := range ts {
			size += t.df
		}
	}
	out := make([]posting, 0, min(size, ix.base.Len()+ix.delta.Len()))
	var pos []uint32 // positions of every posting, carved into each
	lists := 0
	for si, seg := range []*Segment{ix.base, ix.delta} {
		offset := uint32(0)
		if si == 1 {
			offset = uint32(ix.base.Len())
		}
		for _, t := range segs[si] {
			lists++
			r := reader{b: t.postings}
			var doc uint32
			for len(r.b) > 0 {
				doc += uint32(r.uvarint())
				p := posting{doc: doc + offset, tf: uint32(r.uvarint())}
				start := len(pos)
				var last uint32
				for k := uint32(0); k < p.tf; k++ {
					last += uint32(r.uvarint())
					pos = append(pos, last)
				}
				p.pos = pos[start:len(pos):len(pos)]
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
func (ix *Index) phrase(f Field, c *Clause) []docTF {
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

type candidate struct {
	doc    uint32
	score  float64
	fields uint8
}

// rankHeap orders candidates best first: higher score, then smaller id.
type rankHeap struct {
	ix  *Index
	c   []candidate
	err error
}

func (h *rankHeap) better(a, b candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	// A segment stores its documents in id order (Build sorts them, find's
	// binary search relies on it), so two of one segment compare by number
	// as by id. Ties are common (a word every matching record holds the
	// same number of times), and reading both ids from the segment on each
	// comparison was an eighth of a search of a common word at 100k.
	if nb := uint32(h.ix.base.Len()); (a.doc < nb) == (b.doc < nb) {
		return a.doc < b.doc
	}
	return bytes.Compare(h.ix.docID(a.doc), h.ix.docID(b.doc)) < 0
}

// best offers candidates to accept best first until limit are accepted
// (≤ 0: no limit) or none is left. Only the best few are ordered (a
// bounded heap: most candidates cost one score comparison); when accept
// turns too many down, the next few are.
func (h *rankHeap) best(cands []candidate, limit int, accept func(candidate) (bool, error)) {
	accepted := 0
	k := len(cands)
	if limit > 0 {
		k = min(len(cands), 2*limit)
	}
	done := 0 // the best done candidates have been offered
	for done < len(cands) {
		top := h.top(cands, k)
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
func (h *rankHeap) top(cands []candidate, k int) []candidate {
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

func (h *rankHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.better(h.c[parent], h.c[i]) {
			return
		}
		h.c[i], h.c[parent] = h.c[parent], h.c[i]
		i = parent
	}
}

func (h *rankHeap) down(i int) {
	for {
		worst := i
		for _, k := range []int{2*i + 1, 2*i + 2} {
			if k < len(h.c) && h.better(h.c[worst], h.c[k]) {
				worst = k
			}
		}
		if worst == i {
			return
		}
		h.c[i], h.c[worst] = h.c[worst], h.c[i]
		i = worst
	}
}
