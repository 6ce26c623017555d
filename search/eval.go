package search

import (
	"bytes"
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

func (ix *Index) fieldLen(doc uint32, f Field) uint32 {
	if nb := uint32(ix.base.Len()); doc >= nb {
		return ix.delta.fieldLen(int(doc-nb), f)
	}
	return ix.base.fieldLen(int(doc), f)
}

func (ix *Index) doc(doc uint32) *Doc {
	var buf []byte
	return ix.docInto(doc, &buf)
}

// docInto is doc, a base document read into *buf (see pointDoc).
func (ix *Index) docInto(doc uint32, buf *[]byte) *Doc {
	if nb := uint32(ix.base.Len()); doc >= nb {
		return ix.delta.doc(int(doc - nb))
	}
	return ix.base.pointDoc(int(doc), buf)
}

func (ix *Index) docID(doc uint32) []byte {
	if nb := uint32(ix.base.Len()); doc >= nb {
		return ix.delta.docID(int(doc - nb))
	}
	return ix.base.docID(int(doc))
}

// checkPrefixWords refuses a query whose prefixes name more than
// MaxPrefixWords dictionary words, over every field each searches and
// both segments: counted from the dictionary before any postings list is
// read, since each word named is a list to walk.
func (ix *Index) checkPrefixWords(q *Query) error {
	n := 0
	for i := range q.Clauses {
		c := &q.Clauses[i]
		if !c.Prefix {
			continue
		}
		last := c.Terms[len(c.Terms)-1]
		for _, f := range c.fields() {
			key := append([]byte{byte(f)}, last...)
			for _, s := range []*Segment{ix.base, ix.delta} {
				if n += s.countPrefix(key, MaxPrefixWords+1-n); n > MaxPrefixWords {
					return queryTooLarge("prefix_words", MaxPrefixWords,
						"the query's prefixes name more than %d words of the index, the most a query may (%s* is where the count passed it): give more letters of each prefix", MaxPrefixWords, last)
				}
			}
		}
	}
	return nil
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
			checkPositions(t.positions, t.posSum)
			r, pr := reader{b: t.postings}, reader{b: t.positions}
			var doc uint32
			for len(r.b) > 0 {
				doc += uint32(r.uvarint())
				p := posting{doc: doc + offset, tf: uint32(r.uvarint())}
				start := len(pos)
				var last uint32
				for k := uint32(0); k < p.tf; k++ {
					last += uint32(pr.uvarint())
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

// builtPhrase is phrase over lists built first, with every position
// decoded: for a prefix that names several terms in a segment.
func (ix *Index) builtPhrase(f Field, c *Clause) []docTF {
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
