package search

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// Merging segments. Documents are numbered in id order in every segment,
// so each input's documents, and the documents of each of its postings
// lists, keep their order in the merged segment: the merge walks every
// input's documents once, in id order, and every input's dictionary
// once, in key order, and copies what it keeps (a document's bytes and
// checksum, a posting's positions) without decoding it further. Each
// section of an input is read front to back through a small buffer, so a
// merge holds neither its inputs nor its output in memory: only the
// inputs' document offsets and field lengths, the new numbering, and the
// merged dictionary, which segmentWriter writes last.
//
// A merge of segments writes the bytes Build writes for the documents
// they keep: a segment's bytes follow from its documents alone, however
// they were split into the segments merged.

// mergeInput is a segment a merge reads (a file, or a segment in memory)
// and the documents of it the merge leaves out: a bit per document
// number, nil for none.
type mergeInput struct {
	ra   io.ReaderAt
	size int64
	drop []uint64
}

func (in *mergeInput) dropped(i int) bool {
	return in.drop != nil && i/64 < len(in.drop) && in.drop[i/64]&(1<<(i%64)) != 0
}

// mergeBuffers is what the read buffers of a merge's inputs hold in all
// (three sections each), each buffer 4 to 64 KiB.
const mergeBuffers = 8 << 20

// mergeSource is an input being merged: its header, its documents'
// offsets and field lengths, and where each reader is.
type mergeSource struct {
	in       *mergeInput
	seg      *Segment // its header only
	docIndex []uint64
	lens     []uint32
	newNum   []int32 // each document's number in the merged segment, -1 when left out
	termIdx  []uint64

	docs   *bufio.Reader
	doc    int    // the document docs is at
	docB   []byte // its bytes, checksum included
	docID  []byte
	lastID []byte // of the document before

	terms    *bufio.Reader
	posts    *bufio.Reader
	postAt   uint64 // the offset posts is at
	term     int    // the entry terms is at
	entryB   []byte
	key      []byte
	lastKey  []byte
	df       int
	postings []byte // of the current entry, read with readPostings
	pos      []byte
	termDone bool
}

// readFull reads n bytes from r into *buf (grown when too small).
func readFull(r *bufio.Reader, n uint64, buf *[]byte) []byte {
	if n > 1<<31 {
		panic(corrupt{})
	}
	if uint64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		panic(corrupt{})
	}
	return b
}

func readAtFull(ra io.ReaderAt, off int64, n int) []byte {
	b := make([]byte, n)
	if _, err := ra.ReadAt(b, off); err != nil && !(err == io.EOF && n == 0) {
		panic(corrupt{})
	}
	return b
}

func u64s(b []byte) []uint64 {
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

// openSource reads an input's header, document offsets, field lengths
// (each block checked) and dictionary offsets, and starts its readers.
func openSource(in *mergeInput, store string, buffer int) *mergeSource {
	p := len(segmentMagic) + 4 + 20 + 4 + 4 + 8*int(numFields) + 8 // the docIndex offset
	if in.size < int64(headerSize) {
		panic(corrupt{})
	}
	head := readAtFull(in.ra, 0, headerSize)
	storeEnd := binary.LittleEndian.Uint64(head[p:])
	if storeEnd < uint64(headerSize) || storeEnd > uint64(headerSize)+4096 || storeEnd > uint64(in.size) {
		panic(corrupt{})
	}
	head = readAtFull(in.ra, 0, int(storeEnd))
	seg, err := parseHeader(head, in.size)
	if err != nil || seg.store != store {
		panic(corrupt{})
	}
	src := &mergeSource{in: in, seg: seg}
	src.docIndex = u64s(readAtFull(in.ra, int64(seg.docIndex), seg.lens-seg.docIndex))
	lens := readAtFull(in.ra, int64(seg.lens), seg.lensSums-seg.lens)
	sums := readAtFull(in.ra, int64(seg.lensSums), seg.docArea-seg.lensSums)
	for b := 0; 4*lensBlock*b < len(lens); b++ {
		block := lens[4*lensBlock*b : min(len(lens), 4*lensBlock*(b+1))]
		if crc32.ChecksumIEEE(block) != binary.LittleEndian.Uint32(sums[4*b:]) {
			panic(corrupt{})
		}
	}
	src.lens = make([]uint32, len(lens)/4)
	for i := range src.lens {
		src.lens[i] = binary.LittleEndian.Uint32(lens[4*i:])
	}
	src.termIdx = u64s(readAtFull(in.ra, int64(seg.termIndex), seg.end-seg.termIndex))
	if src.docIndex[0] != 0 || src.docIndex[seg.docs] != uint64(seg.postArea-seg.docArea) ||
		src.termIdx[0] != 0 || src.termIdx[seg.terms] != uint64(seg.termIndex-seg.termArea) {
		panic(corrupt{})
	}
	section := func(lo, hi int) *bufio.Reader {
		return bufio.NewReaderSize(io.NewSectionReader(in.ra, int64(lo), int64(hi-lo)), buffer)
	}
	src.docs = section(seg.docArea, seg.postArea)
	src.terms = section(seg.termArea, seg.termIndex)
	src.posts = section(seg.postArea, seg.termArea)
	src.newNum = make([]int32, seg.docs)
	src.doc, src.term = -1, -1
	src.nextDoc()
	src.nextTerm()
	return src
}

// nextDoc reads the source's next document (docB nil past the last).
func (s *mergeSource) nextDoc() {
	s.doc++
	if s.doc >= s.seg.docs {
		s.docB, s.docID = nil, nil
		return
	}
	a, b := s.docIndex[s.doc], s.docIndex[s.doc+1]
	if b < a {
		panic(corrupt{})
	}
	s.lastID = append(s.lastID[:0], s.docID...)
	s.docB = readFull(s.docs, b-a, &s.docB)
	r := reader{b: sealed(s.docB)}
	s.docID = r.bytes()
	if s.doc > 0 && bytes.Compare(s.docID, s.lastID) <= 0 {
		panic(corrupt{}) // documents out of id order
	}
}

// nextTerm reads the source's next dictionary entry (termDone past the
// last); its postings are read by readPostings.
func (s *mergeSource) nextTerm() {
	s.term++
	if s.term >= s.seg.terms {
		s.termDone, s.key = true, nil
		return
	}
	a, b := s.termIdx[s.term], s.termIdx[s.term+1]
	if b < a {
		panic(corrupt{})
	}
	s.lastKey = append(s.lastKey[:0], s.key...)
	s.entryB = readFull(s.terms, b-a, &s.entryB)
	r := reader{b: sealed(s.entryB)}
	s.key = r.bytes()
	if s.term > 0 && bytes.Compare(s.key, s.lastKey) <= 0 {
		panic(corrupt{}) // dictionary out of order
	}
	s.df = int(r.uvarint())
	off, n, m := r.uvarint(), r.uvarint(), r.uvarint()
	sums := r.next(8)
	if len(r.b) != 0 || off != s.postAt {
		panic(corrupt{}) // postings are laid out in the dictionary's order
	}
	s.postings = readFull(s.posts, n, &s.postings)
	s.pos = readFull(s.posts, m, &s.pos)
	s.postAt += n + m
	if crc32.ChecksumIEEE(s.postings) != binary.LittleEndian.Uint32(sums) ||
		crc32.ChecksumIEEE(s.pos) != binary.LittleEndian.Uint32(sums[4:]) {
		panic(corrupt{})
	}
}

// mergedPosting is one document of a term's merged list: its new number,
// and its positions as the input holds them.
type mergedPosting struct {
	doc int32
	tf  uint64
	pos []byte
}

// appendPostings appends the postings of s's current entry that the merge
// keeps, renumbered, to out.
func (s *mergeSource) appendPostings(out []mergedPosting) []mergedPosting {
	r := reader{b: s.postings}
	pr := reader{b: s.pos}
	doc := uint64(0)
	for i := 0; i < s.df; i++ {
		doc += r.uvarint()
		tf := r.uvarint()
		if doc >= uint64(s.seg.docs) || tf == 0 {
			panic(corrupt{})
		}
		start := pr.b
		pr.skipUvarints(int(min(tf, 1<<31)))
		if n := s.newNum[doc]; n >= 0 {
			out = append(out, mergedPosting{doc: n, tf: tf, pos: start[:len(start)-len(pr.b)]})
		}
	}
	if len(r.b) != 0 || len(pr.b) != 0 {
		panic(corrupt{})
	}
	return out
}

// merge writes to out the segment of store's records at tip holding
// every document the inputs keep. Two inputs keeping one id is
// corruption (the caller drops the older).
func merge(out Output, store string, tip [20]byte, inputs []mergeInput) (size int64, err error) {
	defer guard(&err)
	srcs := make([]*mergeSource, len(inputs))
	kept := 0
	buffer := min(64<<10, max(4<<10, mergeBuffers/(3*max(1, len(inputs)))))
	for i := range inputs {
		srcs[i] = openSource(&inputs[i], store, buffer)
		kept += srcs[i].seg.docs
		for d := range srcs[i].seg.docs {
			if inputs[i].dropped(d) {
				kept--
			}
		}
	}
	w := newSegmentWriter(out, store, kept)

	// The documents, in id order: the sources in a heap by their next.
	n := int32(0)
	var lens [numFields]uint32
	var lastKept []byte
	docs := sourceHeap{less: func(a, b *mergeSource) bool { return bytes.Compare(a.docID, b.docID) < 0 }}
	for _, s := range srcs {
		if s.docB != nil {
			docs.push(s)
		}
	}
	for len(docs.s) > 0 {
		next := docs.s[0]
		if next.in.dropped(next.doc) {
			next.newNum[next.doc] = -1
		} else {
			if n > 0 && bytes.Equal(next.docID, lastKept) {
				panic(corrupt{}) // one record kept twice
			}
			lastKept = append(lastKept[:0], next.docID...)
			for f := range lens {
				lens[f] = next.lens[f*next.seg.docs+next.doc]
			}
			w.addDoc(next.docB, &lens)
			next.newNum[next.doc] = n
			n++
		}
		if next.nextDoc(); next.docB != nil {
			docs.down(0)
		} else {
			docs.pop()
		}
	}

	// The dictionary, in key order, each term's postings merged by the
	// documents' new numbers.
	var key []byte
	var list, merged []mergedPosting
	var postings, positions []byte
	var from []*mergeSource
	var runs []int
	terms := sourceHeap{less: func(a, b *mergeSource) bool { return bytes.Compare(a.key, b.key) < 0 }}
	for _, s := range srcs {
		if !s.termDone {
			terms.push(s)
		}
	}
	for len(terms.s) > 0 {
		key = append(key[:0], terms.s[0].key...)
		from = from[:0]
		for len(terms.s) > 0 && bytes.Equal(terms.s[0].key, key) {
			from = append(from, terms.pop())
		}
		list = list[:0]
		runs = runs[:0]
		for _, s := range from {
			runs = append(runs, len(list))
			list = s.appendPostings(list)
		}
		runs = append(runs, len(list))
		merged = mergeRuns(list, runs, merged[:0])
		if len(merged) > 0 { // else every document of the term was left out
			postings, positions = postings[:0], positions[:0]
			last := int32(0)
			for _, p := range merged {
				postings = binary.AppendUvarint(postings, uint64(p.doc-last))
				postings = binary.AppendUvarint(postings, p.tf)
				positions = append(positions, p.pos...)
				last = p.doc
			}
			w.addTerm(key, len(merged), postings, positions)
		}
		// The positions merged are the sources' buffers, read again here.
		for _, s := range from {
			if s.nextTerm(); !s.termDone {
				terms.push(s)
			}
		}
	}
	return w.finish(tip)
}

// mergeRuns merges the sorted runs of list (run i is list[runs[i]:runs[i+1]])
// into out, by document number; one run is list itself.
func mergeRuns(list []mergedPosting, runs []int, out []mergedPosting) []mergedPosting {
	if len(runs) == 2 {
		return append(out, list...)
	}
	// A heap of the runs by their next document.
	type cursor struct{ at, end int }
	h := make([]cursor, 0, len(runs)-1)
	less := func(a, b cursor) bool { return list[a.at].doc < list[b.at].doc }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && less(h[r], h[l]) {
				l = r
			}
			if !less(h[l], h[i]) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for i := 0; i+1 < len(runs); i++ {
		if runs[i] < runs[i+1] {
			h = append(h, cursor{runs[i], runs[i+1]})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		c := &h[0]
		if len(out) > 0 && out[len(out)-1].doc >= list[c.at].doc {
			panic(corrupt{}) // a document in two runs, or out of order
		}
		out = append(out, list[c.at])
		if c.at++; c.at == c.end {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return out
}

// sourceHeap orders the sources of a merge by less, the least first.
type sourceHeap struct {
	s    []*mergeSource
	less func(a, b *mergeSource) bool
}

func (h *sourceHeap) push(s *mergeSource) {
	h.s = append(h.s, s)
	for i := len(h.s) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(h.s[i], h.s[p]) {
			break
		}
		h.s[i], h.s[p] = h.s[p], h.s[i]
		i = p
	}
}

func (h *sourceHeap) pop() *mergeSource {
	top := h.s[0]
	last := len(h.s) - 1
	h.s[0] = h.s[last]
	h.s = h.s[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

// down restores the order below i after h.s[i] grew.
func (h *sourceHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h.s) {
			return
		}
		if r := l + 1; r < len(h.s) && h.less(h.s[r], h.s[l]) {
			l = r
		}
		if !h.less(h.s[l], h.s[i]) {
			return
		}
		h.s[i], h.s[l] = h.s[l], h.s[i]
		i = l
	}
}
