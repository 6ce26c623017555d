package search

import (
	"math"
	"math/bits"
	"slices"
)

// Search returns the documents that match every clause of q, best first
// (score, then id, so the order does not depend on how the index was
// built), keeping those keep accepts (nil keeps all) until limit (≤ 0: no
// limit). Documents are only decoded as they are considered for output.
//
// With a limit, only the best few are looked for (top k, document at a
// time, max-score pruning): each postings list (a clause in a field) has
// an upper bound of what it can add to a score (idf × field weight ×
// (k1+1): BM25's term part stays below k1+1); once the k best so far
// score above the sum of the smallest bounds, the lists those bounds
// belong to only refine the score of a document the others bring, and a
// document none of the others holds is passed over without being scored.
// A common word is then scored only where it is in a heavier field than
// the body. The result is the one an exhaustive ranking gives (the tests
// hold it to one): a document is skipped only when its bound is strictly
// below the k-th best score, so ties, which the id breaks, still enter.
func (ix *Index) Search(q *Query, limit int, keep func(*Doc) (bool, error)) (hits []Hit, err error) {
	defer guard(&err)
	if err := ix.checkPrefixWords(q); err != nil {
		return nil, err
	}
	e := &evaluator{ix: ix, clauses: make([]clauseLists, len(q.Clauses))}
	for i := range q.Clauses {
		if !e.open(i, &q.Clauses[i]) {
			return nil, nil // a clause nothing matches
		}
	}
	e.weigh()
	h := rankHeap{ix: ix}
	var sc snippetScratch
	var docBuf []byte
	nBase := uint32(ix.base.Len())
	accept := func(c candidate) (bool, error) {
		d := ix.docInto(c.doc, &docBuf)
		// Apply hides every base document the delta holds a newer version
		// of; a visible one the delta also holds is a delta edited by hand,
		// and would be returned twice. Checked on the hits offered only:
		// a small search of the small delta each.
		if c.doc < nBase {
			if _, held := ix.delta.find(d.ID); held {
				panic(corrupt{})
			}
		}
		if keep != nil {
			if ok, err := keep(d); err != nil || !ok {
				return false, err
			}
		}
		hit := Hit{Doc: d, Score: c.score, Snippet: sc.snippet(d, q)}
		for f := Field(0); f < numFields; f++ {
			if c.fields&(1<<f) != 0 {
				hit.Fields = append(hit.Fields, f.String())
			}
		}
		hits = append(hits, hit)
		return true, nil
	}
	// The best k are offered in order until limit are accepted; when
	// accept turns too many down, the best 4k are looked for, and so on.
	k := math.MaxInt
	if limit > 0 && limit < math.MaxInt/8 {
		k = 2 * limit
	}
	accepted, done := 0, 0
	for {
		top := e.top(&h, k)
		for _, c := range top[done:] {
			ok, err := accept(c)
			if err != nil {
				return nil, err
			}
			if ok {
				if accepted++; limit > 0 && accepted == limit {
					return hits, nil
				}
			}
		}
		if len(top) < k {
			return hits, nil // every match was offered
		}
		done, k = len(top), 4*k
		if k > math.MaxInt/8 {
			k = math.MaxInt
		}
	}
}

// evaluator holds a query's postings lists and what scores them.
type evaluator struct {
	ix      *Index
	clauses []clauseLists
	lists   []*listCursor // every clause's lists
	avg     [numFields]float64
}

// clauseLists are a clause's lists, one per field it occurs in.
type clauseLists struct {
	byField [numFields]*listCursor
	df      int // documents the clause matches, in any field
	idf     float64
}

// open finds clause i's lists and counts the documents it matches;
// false when there are none.
func (e *evaluator) open(i int, c *Clause) bool {
	cl := &e.clauses[i]
	var found []*listCursor
	for _, f := range c.fields() {
		l := e.ix.cursor(f, c)
		if l == nil {
			continue
		}
		l.clause, l.field = i, f
		cl.byField[f] = l
		found = append(found, l)
	}
	if len(found) == 0 {
		return false
	}
	// The clause's df counts a document once however many fields hold it.
	if len(found) == 1 {
		l := found[0]
		for l.reset(); l.doc != done; l.next() {
			cl.df++
		}
	} else {
		seen := make([]uint64, (e.ix.base.Len()+e.ix.delta.Len()+63)/64)
		for _, l := range found {
			for l.reset(); l.doc != done; l.next() {
				seen[l.doc/64] |= 1 << (l.doc % 64)
			}
		}
		for _, w := range seen {
			cl.df += bits.OnesCount64(w)
		}
	}
	if cl.df == 0 {
		return false // every document it named is hidden
	}
	e.lists = append(e.lists, found...)
	return true
}

// weigh computes the average field lengths, each clause's idf and each
// list's bound, and orders the lists by bound, smallest first.
func (e *evaluator) weigh() {
	ix := e.ix
	n := float64(ix.Len())
	for f := range e.avg {
		total := float64(ix.base.totals[f] + ix.delta.totals[f])
		for _, i := range ix.hiddenNums {
			total -= float64(ix.base.fieldLen(i, Field(f)))
		}
		e.avg[f] = max(total/max(n, 1), 1)
	}
	for i := range e.clauses {
		cl := &e.clauses[i]
		df := float64(cl.df)
		cl.idf = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	for _, l := range e.lists {
		// A little above the bound, so that rounding in a sum of field
		// scores never puts a document above what its lists bound.
		l.ub = e.clauses[l.clause].idf * fieldWeight[l.field] * (bm25K1 + 1) * (1 + 1e-9)
	}
	slices.SortStableFunc(e.lists, func(a, b *listCursor) int {
		switch {
		case a.ub < b.ub:
			return -1
		case a.ub > b.ub:
			return 1
		}
		return 0
	})
}

// top returns the best k matches, best first (all of them when k is
// MaxInt).
func (e *evaluator) top(h *rankHeap, k int) []candidate {
	for _, l := range e.lists {
		l.reset()
	}
	h.c = h.c[:0]
	// lists[:lazy] are the lists whose bounds add up to less than the
	// k-th best score: a document only they hold cannot enter.
	lazy, sumLazy := 0, 0.0
	raise := func() {
		if len(h.c) < k {
			return
		}
		theta := h.c[0].score
		for lazy < len(e.lists) && sumLazy+e.lists[lazy].ub < theta {
			sumLazy += e.lists[lazy].ub
			lazy++
		}
	}
	for lazy < len(e.lists) {
		// The next document one of the other lists holds.
		d := done
		for _, l := range e.lists[lazy:] {
			d = min(d, l.doc)
		}
		if d == done {
			break
		}
		// Every clause must hold it (AND); skip to the first document
		// that the clause lagging furthest behind could hold.
		next, all := d, true
		for i := range e.clauses {
			m := done
			for _, l := range e.clauses[i].byField {
				if l != nil {
					l.advance(d)
					m = min(m, l.doc)
				}
			}
			if m != d {
				all = false
				next = max(next, m)
			}
		}
		if !all {
			if next == done {
				break
			}
			for _, l := range e.lists[lazy:] {
				l.advance(next)
			}
			continue
		}
		// Its bound: what the lists that hold it can add.
		var bound float64
		for _, l := range e.lists {
			if l.doc == d {
				bound += l.ub
			}
		}
		if k == math.MaxInt {
			h.c = append(h.c, e.score(d)) // every match: sorted at the end
		} else if len(h.c) < k || bound >= h.c[0].score {
			if c := e.score(d); len(h.c) < k {
				h.c = append(h.c, c)
				h.up(len(h.c) - 1)
				raise()
			} else if h.better(c, h.c[0]) {
				h.c[0] = c
				h.down(0)
				raise()
			}
		}
		for _, l := range e.lists[lazy:] {
			if l.doc == d {
				l.next()
			}
		}
	}
	out := make([]candidate, len(h.c))
	if k == math.MaxInt { // no heap was needed: every match, sorted
		copy(out, h.c)
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
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = h.c[0]
		last := len(h.c) - 1
		h.c[0] = h.c[last]
		h.c = h.c[:last]
		h.down(0)
	}
	return out
}

// score is document d's BM25 score, every clause's lists being on d or
// past it: clause by clause, field by field, in that order, so that equal
// inputs give equal floats however the document was reached.
func (e *evaluator) score(d uint32) candidate {
	c := candidate{doc: d}
	for i := range e.clauses {
		cl := &e.clauses[i]
		var s float64
		for f := Field(0); f < numFields; f++ {
			l := cl.byField[f]
			if l == nil || l.doc != d {
				continue
			}
			c.fields |= 1 << f
			s += bm25Field(f, l.tf, e.ix.fieldLen(d, f), e.avg[f])
		}
		c.score += cl.idf * s
	}
	return c
}

// bm25Field is the term part of BM25 for tf occurrences in field f of a
// document whose field is length terms long, weighted by the field.
func bm25Field(f Field, tf, length uint32, avg float64) float64 {
	t := float64(tf)
	norm := 1 - bm25B + bm25B*float64(length)/avg
	return fieldWeight[f] * t * (bm25K1 + 1) / (t + bm25K1*norm)
}

// done is a cursor's document once it has none left.
const done uint32 = math.MaxUint32

// listCursor walks one clause's documents in one field, in document
// order, with the clause's term frequency in each: a single term's
// postings decoded as it goes (base, then delta, the hidden base
// documents passed over), or a list already built (a phrase, or a prefix
// that names several terms).
type listCursor struct {
	ix    *Index
	parts [2]postingsPart
	np    int
	built []docTF

	clause int
	field  Field
	ub     float64

	doc, tf uint32 // the current document, done when none is left
	pi, bi  int
	r       reader
	last    uint32 // the last document number read in parts[pi]
	// Positions, streamed lists only, read only by a phrase: pr is
	// parts[pi]'s positions from the first of a document read before the
	// current one whose positions were not read (skip uvarints of them),
	// lastTF the current document's tf while its positions are unread.
	pr     reader
	skip   int
	lastTF uint32
}

// postingsPart is one segment's postings of a term.
type postingsPart struct {
	b      []byte // documents
	pos    []byte // positions
	n      uint32 // documents in the segment
	offset uint32 // the index's number of the segment's first document
	base   bool   // hidden documents are left out
	// posSum is the checksum of pos, checked (posChecked) before a
	// phrase first reads them.
	posSum     uint32
	posChecked bool
}

// cursor returns the list of clause c in field f; nil when it is empty.
func (ix *Index) cursor(f Field, c *Clause) *listCursor {
	l := &listCursor{ix: ix}
	if len(c.Terms) > 1 {
		if l.built = ix.phrase(f, c); len(l.built) == 0 {
			return nil
		}
		return l
	}
	l, several := ix.termCursor(f, c, 0)
	if several {
		// A prefix naming several terms in a segment: one list, merged.
		l = &listCursor{ix: ix}
		if l.built = ix.termDocs(f, c); len(l.built) == 0 {
			return nil
		}
	}
	return l
}

// termCursor streams the postings of the clause's term number elem in
// field f (nil when there are none); several when it is a prefix that
// names more than one term in a segment, which must be merged instead.
func (ix *Index) termCursor(f Field, c *Clause, elem int) (l *listCursor, several bool) {
	key := append([]byte{byte(f)}, c.Terms[elem]...)
	prefix := c.Prefix && elem == len(c.Terms)-1
	segs := [2][]term{ix.base.lookup(key, prefix), ix.delta.lookup(key, prefix)}
	if len(segs[0]) > 1 || len(segs[1]) > 1 {
		return nil, true
	}
	l = &listCursor{ix: ix}
	for si, seg := range []*Segment{ix.base, ix.delta} {
		if len(segs[si]) == 0 {
			continue
		}
		t := &segs[si][0]
		p := postingsPart{b: t.postings, pos: t.positions, posSum: t.posSum, n: uint32(seg.Len()), base: si == 0}
		if si == 1 {
			p.offset = uint32(ix.base.Len())
		}
		l.parts[l.np] = p
		l.np++
	}
	if l.np == 0 {
		return nil, false
	}
	return l, false
}

// phrase returns the documents where field f holds the clause's terms at
// consecutive positions, tf the number of times. The terms' postings are
// walked together and positions decoded only where all of them are.
func (ix *Index) phrase(f Field, c *Clause) []docTF {
	ls := make([]*listCursor, len(c.Terms))
	for i := range c.Terms {
		l, several := ix.termCursor(f, c, i)
		if several {
			return ix.builtPhrase(f, c)
		}
		if l == nil {
			return nil
		}
		l.reset()
		ls[i] = l
	}
	pos := make([][]uint32, len(ls))
	var out []docTF
	for {
		d := ls[0].doc
		for _, l := range ls[1:] {
			if d == done {
				return out
			}
			l.advance(d)
			d = max(d, l.doc)
		}
		if d == done {
			return out
		}
		if ls[0].advance(d); ls[0].doc != d {
			continue
		}
		all := true
		for _, l := range ls[1:] {
			if l.doc != d {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		for i, l := range ls {
			pos[i] = l.positions(pos[i][:0])
		}
		var count uint32
		for _, p := range pos[0] {
			ok := true
			for i := 1; i < len(ls) && ok; i++ {
				_, ok = slices.BinarySearch(pos[i], p+uint32(i))
			}
			if ok {
				count++
			}
		}
		if count > 0 {
			out = append(out, docTF{doc: d, tf: count})
		}
		ls[0].next()
	}
}

// reset puts the cursor on its first document.
func (l *listCursor) reset() {
	l.pi, l.bi, l.last = 0, -1, 0
	if l.built == nil {
		l.r, l.pr, l.skip, l.lastTF = reader{b: l.parts[0].b}, reader{b: l.parts[0].pos}, 0, 0
	}
	l.next()
}

// positions appends the current document's positions (a streamed list's)
// to dst: the positions of the documents passed over since are skipped
// first, eight bytes at a time.
func (l *listCursor) positions(dst []uint32) []uint32 {
	if p := &l.parts[l.pi]; !p.posChecked {
		checkPositions(p.pos, p.posSum)
		p.posChecked = true
	}
	l.pr.skipUvarints(l.skip)
	l.skip = 0
	var last uint32
	for range l.lastTF {
		last += uint32(l.pr.uvarint())
		dst = append(dst, last)
	}
	l.lastTF = 0
	return dst
}

// next moves to the following document.
func (l *listCursor) next() {
	if l.built != nil {
		if l.bi++; l.bi < len(l.built) {
			l.doc, l.tf = l.built[l.bi].doc, l.built[l.bi].tf
		} else {
			l.doc = done
		}
		return
	}
	for {
		for len(l.r.b) == 0 {
			if l.pi++; l.pi >= l.np {
				l.doc = done
				return
			}
			l.r.b, l.last = l.parts[l.pi].b, 0
			l.pr.b, l.skip, l.lastTF = l.parts[l.pi].pos, 0, 0
		}
		p := &l.parts[l.pi]
		// Most numbers here take one byte: read those inline.
		b := l.r.b
		var tf uint32
		if len(b) >= 2 && b[0] < 0x80 && b[1] < 0x80 {
			l.last += uint32(b[0])
			tf = uint32(b[1])
			l.r.b = b[2:]
		} else {
			l.last += uint32(l.r.uvarint())
			tf = uint32(l.r.uvarint())
		}
		l.skip += int(l.lastTF)
		l.lastTF = tf
		if l.last >= p.n {
			panic(corrupt{})
		}
		if p.base && l.ix.nHidden > 0 && l.ix.isHidden(int(l.last)) {
			continue
		}
		l.doc, l.tf = l.last+p.offset, tf
		return
	}
}

// advance moves to the first document at or past d.
func (l *listCursor) advance(d uint32) {
	for l.doc < d {
		l.next()
	}
}
