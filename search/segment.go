package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"
	"sort"
	"sync/atomic"
)

// A segment is an immutable, self-contained index of some documents, read
// in place: opening one checks its header, and a query touches the
// dictionary entries it looks up, their postings, and the documents it
// returns. Little-endian throughout.
//
//	header   magic, u32 version, tip [20], u32 docs, u32 terms, numFields × u64 total field lengths,
//	         9 × u64 section offsets (store, docIndex, lens, lensSums, docArea, postArea, termArea,
//	         termIndex, end), u32 CRC-32 of the header before it and the store
//	store    the name of the store (the ref) whose records it indexes, at tip
//	docIndex (docs+1) × u64 offsets into docArea
//	lens     numFields × docs × u32 field lengths (in terms), field by field
//	         (a query scores a few fields of scattered documents: their
//	         lengths are together, not spread over every field's)
//	lensSums per lensBlock lengths of lens, the u32 CRC-32 of their bytes
//	docArea  per document, in id order: ID Type Category Title Status Kind Role Authority,
//	         Tags, Aliases (uvarint n + n strings), Body, varint CreatedAt, Expires, 20-byte Blob,
//	         u32 CRC-32 of the document's bytes before it
//	postArea per term, in the dictionary's order, its documents then its positions:
//	         documents: per document in increasing order, uvarint doc delta, uvarint tf;
//	         positions: per document in the same order, tf × uvarint position delta.
//	         Only a phrase reads positions: a word's documents are two bytes
//	         each to walk, whatever the word's frequency in them
//	termArea per term, sorted by key (field byte + term): key, uvarint df, postings offset,
//	         length of its documents, length of its positions, u32 CRC-32 of its documents,
//	         u32 CRC-32 of its positions, u32 CRC-32 of the entry's bytes before it
//	termIndex (terms+1) × u64 offsets into termArea
//
// The sections are in the order a writer learns them (segmentWriter):
// the documents, their postings as the dictionary is walked, then the
// dictionary; the offsets and lengths of the documents, known only once
// they are written, go back into the space kept for them. So a segment of
// any size is written, or merged from others, without holding its
// documents or its postings in memory.
//
// A string is a uvarint length and its bytes. Any read out of bounds is
// corruption: the caller rebuilds the index, it never trusts it.
//
// Every byte an answer rests on is checked where it is read, never the
// whole file (a search reads a few entries of a file of megabytes): the
// header at open; a dictionary entry, a document, a term's documents and
// (when a phrase reads them) its positions by their own checksums; the
// field lengths a block at a time, the first time a block is read. The
// offsets of docIndex and termIndex carry no checksum of their own: an
// offset that is wrong makes the entry or document it bounds fail its
// checksum, and a binary search, whose probes are not checked, proves its
// answer by the two checked entries it ends between (adjacent, since they
// share an offset). So a flipped bit is corruption (ErrCorrupt, and the
// caller rebuilds), never an answer; a segment of another store or tip is
// told by its header.
const (
	segmentMagic   = "git-records search\x00"
	segmentVersion = 5
	numSections    = 9
	headerSize     = len(segmentMagic) + 4 + 20 + 4 + 4 + 8*int(numFields) + 8*numSections + 4
	// lensBlock is how many field lengths one checksum of lensSums covers:
	// 4 KiB, what a scored document's length faults in from the mapping.
	lensBlock = 1024
)

// ErrCorrupt is returned for a segment or index file that does not parse.
var ErrCorrupt = errors.New("search index is corrupt, truncated or of another version")

// corrupt is raised inside a segment's readers and turned into ErrCorrupt
// at the package's entry points (guard).
type corrupt struct{}

func guard(err *error) {
	if r := recover(); r != nil {
		if _, ok := r.(corrupt); !ok {
			panic(r)
		}
		*err = ErrCorrupt
	}
}

// Segment reads an encoded segment.
type Segment struct {
	data        []byte
	store       string
	tip         [20]byte
	docs, terms int
	totals      [numFields]uint64

	storeAt, docIndex, lens, lensSums, docArea, postArea, termArea, termIndex, end int
	// lensChecked has a bit per block of lens whose checksum held: set
	// once, read for every length a score reads. Atomic, as searches may
	// share the segment.
	lensChecked []atomic.Uint64
	// file holds data from its offset 0 (the base, mapped): the point
	// reads (a hit's document, a dictionary search's probes) copy the
	// bytes they need with pread instead of faulting in the mapping's
	// pages, each 33-300 us on the VM this was measured on, against 3-17
	// for a pread. nil for a segment in memory.
	file io.ReaderAt
}

// OpenSegment checks data's header (its checksum and section bounds).
func OpenSegment(data []byte) (*Segment, error) {
	s, err := parseHeader(data, int64(len(data)))
	if err != nil {
		return nil, err
	}
	s.data = data
	return s, nil
}

// parseHeader checks a segment's header, given its first bytes (the
// header and the store's name, at least) and the segment's size.
func parseHeader(data []byte, size int64) (*Segment, error) {
	if len(data) < headerSize || string(data[:len(segmentMagic)]) != segmentMagic {
		return nil, ErrCorrupt
	}
	p := len(segmentMagic)
	u32 := func() int { v := binary.LittleEndian.Uint32(data[p:]); p += 4; return int(v) }
	u64 := func() uint64 { v := binary.LittleEndian.Uint64(data[p:]); p += 8; return v }
	if u32() != segmentVersion {
		return nil, ErrCorrupt
	}
	s := &Segment{}
	p += copy(s.tip[:], data[p:])
	s.docs, s.terms = u32(), u32()
	for f := range s.totals {
		s.totals[f] = u64()
	}
	var offs [numSections]int
	for i := range offs {
		v := u64()
		if v > uint64(size) {
			return nil, ErrCorrupt
		}
		offs[i] = int(v)
	}
	s.storeAt, s.docIndex, s.lens, s.lensSums, s.docArea = offs[0], offs[1], offs[2], offs[3], offs[4]
	s.postArea, s.termArea, s.termIndex, s.end = offs[5], offs[6], offs[7], offs[8]
	nLens := int(numFields) * s.docs
	nBlocks := (nLens + lensBlock - 1) / lensBlock
	if int64(s.end) != size || s.storeAt != headerSize || s.docIndex < s.storeAt || s.docIndex > len(data) ||
		s.lens != s.docIndex+8*(s.docs+1) || s.lensSums != s.lens+4*nLens ||
		s.docArea != s.lensSums+4*nBlocks || s.postArea < s.docArea || s.termArea < s.postArea ||
		s.termIndex < s.termArea || s.end != s.termIndex+8*(s.terms+1) {
		return nil, ErrCorrupt
	}
	sum := crc32.Update(crc32.ChecksumIEEE(data[:headerSize-4]), crc32.IEEETable, data[s.storeAt:s.docIndex])
	if sum != binary.LittleEndian.Uint32(data[headerSize-4:]) {
		return nil, ErrCorrupt
	}
	s.store = string(data[s.storeAt:s.docIndex])
	s.lensChecked = make([]atomic.Uint64, (nBlocks+63)/64)
	return s, nil
}

// Len is the number of documents.
func (s *Segment) Len() int { return s.docs }

func (s *Segment) u64at(pos int) int {
	v := binary.LittleEndian.Uint64(s.data[pos:])
	if v > uint64(s.end) {
		panic(corrupt{})
	}
	return int(v)
}

// span returns the bytes [a, b) of section [lo, hi), checked: b is
// compared with the section's length, not lo+b with hi, which wraps for a
// b near 2^63 read from a hand-edited file.
func (s *Segment) span(lo, hi, a, b int) []byte {
	if a < 0 || b < a || b > hi-lo {
		panic(corrupt{})
	}
	return s.data[lo+a : lo+b]
}

// sealed returns b without its trailing CRC-32, which must be b's.
func sealed(b []byte) []byte {
	n := len(b) - 4
	if n < 0 || crc32.ChecksumIEEE(b[:n]) != binary.LittleEndian.Uint32(b[n:]) {
		panic(corrupt{})
	}
	return b[:n]
}

func (s *Segment) docBytes(i int) []byte {
	if i < 0 || i >= s.docs {
		panic(corrupt{})
	}
	return s.span(s.docArea, s.postArea, s.u64at(s.docIndex+8*i), s.u64at(s.docIndex+8*(i+1)))
}

// probeID is document i's id, read without decoding the rest and not
// checked: a binary search's probe (find checks where it ends).
func (s *Segment) probeID(i int) []byte {
	r := reader{b: s.docBytes(i)}
	return r.bytes()
}

// docID is document i's id, its document's checksum checked.
func (s *Segment) docID(i int) []byte {
	r := reader{b: sealed(s.docBytes(i))}
	return r.bytes()
}

// readAt copies n bytes at pos of data from the file, into buf when it
// is large enough; a short read is corruption (the file was cut under us).
func (s *Segment) readAt(pos, n int, buf []byte) []byte {
	b := buf[:0]
	if cap(b) < n {
		b = make([]byte, n)
	}
	b = b[:n]
	if _, err := s.file.ReadAt(b, int64(pos)); err != nil {
		panic(corrupt{})
	}
	return b
}

// pointSpan is span(lo, hi, a, b) for the a and b at data[at:] and
// data[at+8:] (checked as u64at checks them), read with pread from off
// bytes into it, at most limit bytes (to its end when limit < 0); n is the
// span's length. The bytes are read into buf when it is large enough.
func (s *Segment) pointSpan(lo, hi, at, off, limit int, buf []byte) (b []byte, n int) {
	o := s.readAt(at, 16, buf)
	x, y := binary.LittleEndian.Uint64(o), binary.LittleEndian.Uint64(o[8:])
	if x > uint64(s.end) || y > uint64(s.end) {
		panic(corrupt{})
	}
	if y < x || lo+int(y) > hi {
		panic(corrupt{})
	}
	n = int(y - x)
	off = min(off, n)
	m := n - off
	if limit >= 0 {
		m = min(m, limit)
	}
	return s.readAt(lo+int(x)+off, m, buf), n
}

// pointDoc is doc(i), its bytes read with pread from a file into *buf
// (grown when it is too small, and kept for the next: decodeDoc copies
// what it keeps, and with no garbage collected a buffer per document
// would land each on fresh pages).
func (s *Segment) pointDoc(i int, buf *[]byte) *Doc {
	if s.file == nil {
		return s.doc(i)
	}
	if i < 0 || i >= s.docs {
		panic(corrupt{})
	}
	b, _ := s.pointSpan(s.docArea, s.postArea, s.docIndex+8*i, 0, -1, *buf)
	*buf = b[:0]
	return decodeDoc(b)
}

// Doc decodes document i.
func (s *Segment) doc(i int) *Doc { return decodeDoc(s.docBytes(i)) }

func decodeDoc(b []byte) *Doc {
	r := reader{b: sealed(b)}
	d := &Doc{}
	d.ID, d.Type, d.Category, d.Title = r.str(), r.str(), r.str(), r.str()
	d.Status, d.Kind, d.Role, d.Authority = r.str(), r.str(), r.str(), r.str()
	d.Tags, d.Aliases = r.strs(), r.strs()
	d.Body = r.str()
	d.CreatedAt, d.Expires = r.varint(), r.varint()
	copy(d.Blob[:], r.next(20))
	if len(r.b) != 0 {
		panic(corrupt{})
	}
	return d
}

// find returns the position of document id (documents are in id order).
// Its probes are not checked; the documents it ends between are (see the
// format), and a first or last position is checked to be the section's.
func (s *Segment) find(id string) (int, bool) {
	i := sort.Search(s.docs, func(i int) bool { return string(s.probeID(i)) >= id })
	if i < s.docs {
		switch got := string(s.docID(i)); {
		case got == id:
			return i, true
		case got < id:
			panic(corrupt{})
		}
	} else if s.u64at(s.docIndex+8*s.docs) != s.postArea-s.docArea {
		panic(corrupt{})
	}
	if i > 0 && string(s.docID(i-1)) >= id || i == 0 && s.u64at(s.docIndex) != 0 {
		panic(corrupt{})
	}
	return i, false
}

// fieldLen is the length of field f of document i, its block of lens
// checked the first time it is read.
func (s *Segment) fieldLen(i int, f Field) uint32 {
	if i < 0 || i >= s.docs {
		panic(corrupt{})
	}
	k := int(f)*s.docs + i
	if b := k / lensBlock; s.lensChecked[b/64].Load()&(1<<(b%64)) == 0 {
		s.checkLensBlock(b)
	}
	return binary.LittleEndian.Uint32(s.data[s.lens+4*k:])
}

func (s *Segment) checkLensBlock(b int) {
	lo := s.lens + 4*lensBlock*b
	hi := min(lo+4*lensBlock, s.lensSums)
	if crc32.ChecksumIEEE(s.data[lo:hi]) != binary.LittleEndian.Uint32(s.data[s.lensSums+4*b:]) {
		panic(corrupt{})
	}
	s.lensChecked[b/64].Or(1 << (b % 64))
}

// term is one dictionary entry, checked, its documents too.
type term struct {
	key       []byte // field byte + term
	df        int
	postings  []byte // per document: doc delta, tf
	positions []byte // per document: tf position deltas
	posSum    uint32 // the CRC-32 of positions, checked by the phrase that reads them
}

// entry returns dictionary entry i, its checksum checked, as a reader
// past its key, and the key.
func (s *Segment) entry(i int) (key []byte, rest reader) {
	if i < 0 || i >= s.terms {
		panic(corrupt{})
	}
	r := reader{b: sealed(s.span(s.termArea, s.termIndex, s.u64at(s.termIndex+8*i), s.u64at(s.termIndex+8*(i+1))))}
	return r.bytes(), r
}

func (s *Segment) termAt(i int) term {
	key, r := s.entry(i)
	t := term{key: key, df: int(r.uvarint())}
	off, n, m := int(r.uvarint()), int(r.uvarint()), int(r.uvarint())
	sums := r.next(8)
	if len(r.b) != 0 {
		panic(corrupt{})
	}
	t.postings = s.span(s.postArea, s.termArea, off, off+n)
	t.positions = s.span(s.postArea, s.termArea, off+n, off+n+m)
	t.posSum = binary.LittleEndian.Uint32(sums[4:])
	if crc32.ChecksumIEEE(t.postings) != binary.LittleEndian.Uint32(sums) {
		panic(corrupt{})
	}
	return t
}

// checkPositions checks a term's positions before a phrase reads them.
func checkPositions(positions []byte, sum uint32) {
	if crc32.ChecksumIEEE(positions) != sum {
		panic(corrupt{})
	}
}

func (s *Segment) termKey(i int) []byte {
	key, _ := s.entry(i)
	return key
}

// probeKey is entry i's key, not checked: read with pread from a file,
// the first maxProbe bytes of the entry, or all of it when its key is
// longer. The key is read into *buf, and good until the next probe.
func (s *Segment) probeKey(i int, buf *[]byte) []byte {
	if i < 0 || i >= s.terms {
		panic(corrupt{})
	}
	if s.file == nil {
		r := reader{b: s.span(s.termArea, s.termIndex, s.u64at(s.termIndex+8*i), s.u64at(s.termIndex+8*(i+1)))}
		return r.bytes()
	}
	const maxProbe = 96 // a key is a field byte and a term of up to maxTermLen bytes
	at := s.termIndex + 8*i
	b, n := s.pointSpan(s.termArea, s.termIndex, at, 0, maxProbe, *buf)
	*buf = b[:0]
	if l, k := binary.Uvarint(b); k > 0 && l <= uint64(n) && k+int(l) > len(b) {
		// A longer key than any this build writes: read the rest.
		rest, _ := s.pointSpan(s.termArea, s.termIndex, at, len(b), k+int(l)-len(b), nil)
		b = append(b, rest...)
	}
	r := reader{b: b}
	return r.bytes()
}

// seek returns the first entry whose key is not less than key. Its probes
// are not checked; the entries it ends between are (see the format), and
// a first or last position is checked to be the section's.
func (s *Segment) seek(key []byte) int {
	var buf []byte // one for every probe
	lo := sort.Search(s.terms, func(i int) bool { return bytes.Compare(s.probeKey(i, &buf), key) >= 0 })
	if lo > 0 && bytes.Compare(s.termKey(lo-1), key) >= 0 || lo == 0 && s.u64at(s.termIndex) != 0 {
		panic(corrupt{})
	}
	if lo < s.terms && bytes.Compare(s.termKey(lo), key) < 0 ||
		lo == s.terms && s.u64at(s.termIndex+8*s.terms) != s.termIndex-s.termArea {
		panic(corrupt{})
	}
	return lo
}

// lookup returns the entries whose key is key, or (prefix) starts with it.
func (s *Segment) lookup(key []byte, prefix bool) []term {
	var out []term
	for i := s.seek(key); i < s.terms; i++ {
		k := s.termKey(i)
		if !(bytes.Equal(k, key) || prefix && bytes.HasPrefix(k, key)) {
			break
		}
		out = append(out, s.termAt(i))
	}
	return out
}

// countPrefix counts the dictionary keys that start with key, up to limit:
// the entries' keys only, no postings list read.
func (s *Segment) countPrefix(key []byte, limit int) int {
	n := 0
	for i := s.seek(key); i < s.terms && n < limit && bytes.HasPrefix(s.termKey(i), key); i++ {
		n++
	}
	return n
}

// verify checks every part of s (see Index.Verify).
func (s *Segment) verify() {
	if s.u64at(s.docIndex) != 0 || s.u64at(s.docIndex+8*s.docs) != s.postArea-s.docArea {
		panic(corrupt{})
	}
	var last string
	for i := range s.docs {
		if d := s.doc(i); i > 0 && d.ID <= last {
			panic(corrupt{})
		} else {
			last = d.ID
		}
	}
	for b := range (int(numFields)*s.docs + lensBlock - 1) / lensBlock {
		s.checkLensBlock(b)
	}
	if s.u64at(s.termIndex) != 0 || s.u64at(s.termIndex+8*s.terms) != s.termIndex-s.termArea {
		panic(corrupt{})
	}
	var lastKey []byte
	for i := range s.terms {
		t := s.termAt(i)
		checkPositions(t.positions, t.posSum)
		if i > 0 && bytes.Compare(t.key, lastKey) <= 0 {
			panic(corrupt{})
		}
		lastKey = t.key
	}
}

// reader decodes the segment's variable-length parts; out of bounds is corruption.
type reader struct{ b []byte }

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		panic(corrupt{})
	}
	r.b = r.b[n:]
	return v
}

// skipUvarints passes over n uvarints without decoding them: a uvarint
// ends at a byte below 0x80, so eight bytes at a time, their ends counted
// with one mask (the positions of a common word are most of the bytes a
// search reads).
func (r *reader) skipUvarints(n int) {
	b := r.b
	for n > 0 && len(b) >= 8 {
		ends := ^binary.LittleEndian.Uint64(b) & 0x8080808080808080
		if c := bits.OnesCount64(ends); c < n {
			n -= c
			b = b[8:]
			continue
		}
		for ; n > 1; n-- {
			ends &= ends - 1 // drop the first end
		}
		b = b[bits.TrailingZeros64(ends)/8+1:]
		n = 0
	}
	i := 0
	for ; n > 0 && i < len(b); i++ {
		if b[i] < 0x80 {
			n--
		}
	}
	if n > 0 {
		panic(corrupt{})
	}
	r.b = b[i:]
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		panic(corrupt{})
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) next(n int) []byte {
	if n < 0 || n > len(r.b) {
		panic(corrupt{})
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		panic(corrupt{})
	}
	return r.next(int(n))
}

func (r *reader) str() string { return string(r.bytes()) }

func (r *reader) strs() []string {
	n := r.uvarint()
	if n == 0 {
		return nil
	}
	if n > uint64(len(r.b)) {
		panic(corrupt{})
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func uniqueByID(docs []*Doc) []*Doc {
	sorted := slices.Clone(docs)
	slices.SortStableFunc(sorted, func(a, b *Doc) int { return compareStrings(a.ID, b.ID) })
	out := sorted[:0]
	for _, d := range sorted {
		if len(out) > 0 && out[len(out)-1].ID == d.ID {
			out[len(out)-1] = d
			continue
		}
		out = append(out, d)
	}
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

type postingList struct {
	df      uint32
	lastDoc uint32
	data    []byte // documents
	pos     []byte // positions
}

// builder tokenizes documents, numbered in id order, into each term's
// postings. A term is numbered the first time it is met; a field's tokens
// are noted as (term, position) pairs, sorted, and each run of one term
// is that document's entry in its postings (positions ascending: a
// keyword sits at its value's first position).
type builder struct {
	dict   map[string]uint32 // key (field byte + term) -> term number
	keys   []string          // term number -> key
	lists  []postingList     // term number -> postings
	lens   []uint32          // document by document, numFields each
	keyBuf []byte
	pairs  []uint64 // the field's tokens: term number << 32 | position
}

func newBuilder() *builder {
	return &builder{dict: map[string]uint32{}, keyBuf: make([]byte, 0, 1+maxTermLen)}
}

func (b *builder) note(f Field, term string, pos uint32) {
	b.keyBuf = append(append(b.keyBuf[:0], byte(f)), term...)
	n, ok := b.dict[string(b.keyBuf)]
	if !ok {
		n = uint32(len(b.keys))
		key := string(b.keyBuf)
		b.dict[key] = n
		b.keys = append(b.keys, key)
		b.lists = append(b.lists, postingList{})
	}
	b.pairs = append(b.pairs, uint64(n)<<32|uint64(pos))
}

func (b *builder) add(doc uint32, d *Doc) {
	for f := Field(0); f < numFields; f++ {
		b.pairs = b.pairs[:0]
		var pos, length uint32
		for _, v := range d.fieldValues(f) {
			first, n, firstTerm := pos, 0, ""
			tokenize(v, func(t token) {
				if n == 0 {
					firstTerm = t.term
				}
				b.note(f, t.term, pos)
				pos++
				n++
			})
			length += uint32(n)
			if keywordField(f) {
				if whole := normalize(v); whole != "" && (n != 1 || firstTerm != whole) {
					b.note(f, whole, first)
				}
			}
			pos++ // a gap: a phrase does not run from one value into the next
		}
		b.lens = append(b.lens, length)
		slices.Sort(b.pairs)
		for i := 0; i < len(b.pairs); {
			n := b.pairs[i] >> 32
			j := i + 1
			for j < len(b.pairs) && b.pairs[j]>>32 == n {
				j++
			}
			pl := &b.lists[n]
			pl.data = binary.AppendUvarint(pl.data, uint64(doc-pl.lastDoc))
			pl.lastDoc = doc
			pl.df++
			pl.data = binary.AppendUvarint(pl.data, uint64(j-i))
			var last uint32
			for _, p := range b.pairs[i:j] {
				pl.pos = binary.AppendUvarint(pl.pos, uint64(uint32(p)-last))
				last = uint32(p)
			}
			i = j
		}
	}
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendDoc(b []byte, d *Doc) []byte {
	start := len(b)
	for _, s := range []string{d.ID, d.Type, d.Category, d.Title, d.Status, d.Kind, d.Role, d.Authority} {
		b = appendString(b, s)
	}
	for _, list := range [][]string{d.Tags, d.Aliases} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, s := range list {
			b = appendString(b, s)
		}
	}
	b = appendString(b, d.Body)
	b = binary.AppendVarint(b, d.CreatedAt)
	b = binary.AppendVarint(b, d.Expires)
	b = append(b, d.Blob[:]...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}
