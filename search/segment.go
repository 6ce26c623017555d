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
)

// A segment is an immutable, self-contained index of some documents, read
// in place: opening one checks its header and section bounds only, and a
// query touches the dictionary entries it looks up, their postings, and
// the documents it returns. Little-endian throughout.
//
//	header   magic, u32 version, u32 docs, u32 terms, numFields × u64 total field lengths,
//	         7 × u64 section offsets (docIndex, lens, termIndex, docArea, termArea, postArea, end)
//	docIndex (docs+1) × u64 offsets into docArea
//	lens     numFields × docs × u32 field lengths (in terms), field by field
//	         (a query scores a few fields of scattered documents: their
//	         lengths are together, not spread over every field's)
//	termIndex (terms+1) × u64 offsets into termArea
//	docArea  per document, in id order: ID Type Category Title Status Kind Role Authority,
//	         Tags, Aliases (uvarint n + n strings), Body, varint CreatedAt, Expires, 20-byte Blob,
//	         u32 CRC-32 (IEEE) of the document's bytes before it
//	termArea per term, sorted by key (field byte + term): key, uvarint df, postings offset,
//	         length of its documents, length of its positions
//	postArea per term, its documents then its positions:
//	         documents: per document in increasing order, uvarint doc delta, uvarint tf;
//	         positions: per document in the same order, tf × uvarint position delta.
//	         Only a phrase reads positions: a word's documents are two bytes
//	         each to walk, whatever the word's frequency in them
//
// A string is a uvarint length and its bytes. Any read out of bounds is
// corruption: the caller rebuilds the index, it never trusts it. A
// document is what a search shows (id, title, type, category, status) and
// filters on: its checksum is checked whenever it is decoded, so a byte
// changed on disk is corruption, never shown as the record (hit documents
// only: a few KiB a search, against a dictionary and postings read).
const (
	segmentMagic   = "git-records search\x00"
	segmentVersion = 3
	headerSize     = len(segmentMagic) + 4 + 4 + 4 + 8*int(numFields) + 8*7
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
	data                                                        []byte
	docs, terms                                                 int
	totals                                                      [numFields]uint64
	docIndex, lens, termIndex, docArea, termArea, postArea, end int
	// file holds data from its offset 0 (the base, mapped): the point
	// reads (a hit's document, a dictionary search's probes) copy the
	// bytes they need with pread instead of faulting in the mapping's
	// pages, each 33-300 us on the VM this was measured on, against 3-17
	// for a pread. nil for a segment in memory.
	file io.ReaderAt
}

// OpenSegment checks data's header and section bounds.
func OpenSegment(data []byte) (*Segment, error) {
	if len(data) < headerSize || string(data[:len(segmentMagic)]) != segmentMagic {
		return nil, ErrCorrupt
	}
	p := len(segmentMagic)
	u32 := func() int { v := binary.LittleEndian.Uint32(data[p:]); p += 4; return int(v) }
	u64 := func() uint64 { v := binary.LittleEndian.Uint64(data[p:]); p += 8; return v }
	if u32() != segmentVersion {
		return nil, ErrCorrupt
	}
	s := &Segment{data: data, docs: u32(), terms: u32()}
	for f := range s.totals {
		s.totals[f] = u64()
	}
	var offs [7]int
	for i := range offs {
		v := u64()
		if v > uint64(len(data)) {
			return nil, ErrCorrupt
		}
		offs[i] = int(v)
	}
	s.docIndex, s.lens, s.termIndex, s.docArea, s.termArea, s.postArea, s.end = offs[0], offs[1], offs[2], offs[3], offs[4], offs[5], offs[6]
	if s.end != len(data) || s.docIndex != headerSize ||
		s.lens != s.docIndex+8*(s.docs+1) || s.termIndex != s.lens+4*int(numFields)*s.docs ||
		s.docArea != s.termIndex+8*(s.terms+1) || s.termArea < s.docArea || s.postArea < s.termArea || s.end < s.postArea {
		return nil, ErrCorrupt
	}
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

func (s *Segment) docBytes(i int) []byte {
	if i < 0 || i >= s.docs {
		panic(corrupt{})
	}
	return s.span(s.docArea, s.termArea, s.u64at(s.docIndex+8*i), s.u64at(s.docIndex+8*(i+1)))
}

// docID is document i's id, read without decoding the rest.
func (s *Segment) docID(i int) []byte {
	r := reader{b: s.docBytes(i)}
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
	b, _ := s.pointSpan(s.docArea, s.termArea, s.docIndex+8*i, 0, -1, *buf)
	*buf = b[:0]
	return decodeDoc(b)
}

// Doc decodes document i.
func (s *Segment) doc(i int) *Doc { return decodeDoc(s.docBytes(i)) }

func decodeDoc(b []byte) *Doc {
	n := len(b) - 4
	if n < 0 || crc32.ChecksumIEEE(b[:n]) != binary.LittleEndian.Uint32(b[n:]) {
		panic(corrupt{})
	}
	r := reader{b: b[:n]}
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
func (s *Segment) find(id string) (int, bool) {
	i := sort.Search(s.docs, func(i int) bool { return string(s.docID(i)) >= id })
	return i, i < s.docs && string(s.docID(i)) == id
}

func (s *Segment) fieldLen(i int, f Field) uint32 {
	pos := s.lens + 4*(int(f)*s.docs+i)
	return binary.LittleEndian.Uint32(s.data[pos:])
}

// term is one dictionary entry.
type term struct {
	key       []byte // field byte + term
	df        int
	postings  []byte // per document: doc delta, tf
	positions []byte // per document: tf position deltas
}

func (s *Segment) termAt(i int) term {
	r := reader{b: s.span(s.termArea, s.postArea, s.u64at(s.termIndex+8*i), s.u64at(s.termIndex+8*(i+1)))}
	t := term{key: r.bytes(), df: int(r.uvarint())}
	off, n, m := int(r.uvarint()), int(r.uvarint()), int(r.uvarint())
	t.postings = s.span(s.postArea, s.end, off, off+n)
	t.positions = s.span(s.postArea, s.end, off+n, off+n+m)
	return t
}

func (s *Segment) termKey(i int) []byte {
	r := reader{b: s.span(s.termArea, s.postArea, s.u64at(s.termIndex+8*i), s.u64at(s.termIndex+8*(i+1)))}
	return r.bytes()
}

// probeKey is termKey(i), read with pread from a file: the first
// maxProbe bytes of the entry, or all of it when its key is longer. The
// key is read into *buf, and good until the next probe.
func (s *Segment) probeKey(i int, buf *[]byte) []byte {
	if s.file == nil {
		return s.termKey(i)
	}
	if i < 0 || i >= s.terms {
		panic(corrupt{})
	}
	const maxProbe = 96 // a key is a field byte and a term of up to maxTermLen bytes
	at := s.termIndex + 8*i
	b, n := s.pointSpan(s.termArea, s.postArea, at, 0, maxProbe, *buf)
	*buf = b[:0]
	if l, k := binary.Uvarint(b); k > 0 && l <= uint64(n) && k+int(l) > len(b) {
		// A longer key than any this build writes: read the rest.
		rest, _ := s.pointSpan(s.termArea, s.postArea, at, len(b), k+int(l)-len(b), nil)
		b = append(b, rest...)
	}
	r := reader{b: b}
	return r.bytes()
}

// lookup returns the entries whose key is key, or (prefix) starts with it.
func (s *Segment) lookup(key []byte, prefix bool) []term {
	var buf []byte // one for every probe
	lo := sort.Search(s.terms, func(i int) bool { return bytes.Compare(s.probeKey(i, &buf), key) >= 0 })
	var out []term
	for i := lo; i < s.terms; i++ {
		k := s.termKey(i)
		if !(bytes.Equal(k, key) || prefix && bytes.HasPrefix(k, key)) {
			break
		}
		out = append(out, s.termAt(i))
	}
	return out
}

// countPrefix counts the dictionary keys that start with key, up to limit:
// the keys only, no entry or postings list read.
func (s *Segment) countPrefix(key []byte, limit int) int {
	var buf []byte
	lo := sort.Search(s.terms, func(i int) bool { return bytes.Compare(s.probeKey(i, &buf), key) >= 0 })
	n := 0
	for i := lo; i < s.terms && n < limit && bytes.HasPrefix(s.termKey(i), key); i++ {
		n++
	}
	return n
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

// Build encodes docs as one segment (in id order; a later doc with the
// same id replaces an earlier one).
func Build(docs []*Doc) []byte {
	docs = uniqueByID(docs)
	b := newBuilder()
	for i, d := range docs {
		b.add(uint32(i), d)
	}
	return b.encode(docs)
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

type builder struct {
	dict   map[string]*postingList
	lens   []uint32
	totals [numFields]uint64
	// per document and field: the terms seen and their positions
	seen  map[string]int
	terms []docTerm
}

type docTerm struct {
	key string
	pos []uint32
}

func newBuilder() *builder {
	return &builder{dict: map[string]*postingList{}, seen: map[string]int{}}
}

func (b *builder) add(doc uint32, d *Doc) {
	keyBuf := make([]byte, 0, 1+maxTermLen)
	for f := Field(0); f < numFields; f++ {
		clear(b.seen)
		b.terms = b.terms[:0]
		note := func(term string, pos uint32) {
			keyBuf = append(append(keyBuf[:0], byte(f)), term...)
			k, ok := b.seen[string(keyBuf)]
			if !ok {
				k = len(b.terms)
				key := string(keyBuf)
				b.seen[key] = k
				if k < cap(b.terms) {
					b.terms = b.terms[:k+1]
					b.terms[k].key, b.terms[k].pos = key, b.terms[k].pos[:0]
				} else {
					b.terms = append(b.terms, docTerm{key: key})
				}
			}
			b.terms[k].pos = append(b.terms[k].pos, pos)
		}
		var pos, length uint32
		for _, v := range d.fieldValues(f) {
			first, n, firstTerm := pos, 0, ""
			tokenize(v, func(t token) {
				if n == 0 {
					firstTerm = t.term
				}
				note(t.term, pos)
				pos++
				n++
			})
			length += uint32(n)
			if keywordField(f) {
				if whole := normalize(v); whole != "" && (n != 1 || firstTerm != whole) {
					note(whole, first)
				}
			}
			pos++ // a gap: a phrase does not run from one value into the next
		}
		b.lens = append(b.lens, length)
		b.totals[f] += uint64(length)
		for _, t := range b.terms {
			pl := b.dict[t.key]
			if pl == nil {
				pl = &postingList{}
				b.dict[t.key] = pl
			}
			slices.Sort(t.pos) // keywords sit at their value's first position
			pl.data = binary.AppendUvarint(pl.data, uint64(doc-pl.lastDoc))
			pl.lastDoc = doc
			pl.df++
			pl.data = binary.AppendUvarint(pl.data, uint64(len(t.pos)))
			var last uint32
			for _, p := range t.pos {
				pl.pos = binary.AppendUvarint(pl.pos, uint64(p-last))
				last = p
			}
		}
	}
}

func (b *builder) encode(docs []*Doc) []byte {
	keys := make([]string, 0, len(b.dict))
	for k := range b.dict {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var docArea, termArea, postArea []byte
	docIndex := make([]uint64, 0, len(docs)+1)
	for _, d := range docs {
		docIndex = append(docIndex, uint64(len(docArea)))
		docArea = appendDoc(docArea, d)
	}
	docIndex = append(docIndex, uint64(len(docArea)))
	termIndex := make([]uint64, 0, len(keys)+1)
	for _, k := range keys {
		pl := b.dict[k]
		termIndex = append(termIndex, uint64(len(termArea)))
		termArea = appendString(termArea, k)
		termArea = binary.AppendUvarint(termArea, uint64(pl.df))
		termArea = binary.AppendUvarint(termArea, uint64(len(postArea)))
		termArea = binary.AppendUvarint(termArea, uint64(len(pl.data)))
		termArea = binary.AppendUvarint(termArea, uint64(len(pl.pos)))
		postArea = append(postArea, pl.data...)
		postArea = append(postArea, pl.pos...)
	}
	termIndex = append(termIndex, uint64(len(termArea)))

	out := make([]byte, 0, headerSize+8*len(docIndex)+4*len(b.lens)+8*len(termIndex)+len(docArea)+len(termArea)+len(postArea))
	out = append(out, segmentMagic...)
	out = binary.LittleEndian.AppendUint32(out, segmentVersion)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(docs)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(keys)))
	for _, t := range b.totals {
		out = binary.LittleEndian.AppendUint64(out, t)
	}
	docIndexAt := uint64(headerSize)
	lensAt := docIndexAt + 8*uint64(len(docIndex))
	termIndexAt := lensAt + 4*uint64(len(b.lens))
	docAreaAt := termIndexAt + 8*uint64(len(termIndex))
	termAreaAt := docAreaAt + uint64(len(docArea))
	postAreaAt := termAreaAt + uint64(len(termArea))
	end := postAreaAt + uint64(len(postArea))
	for _, v := range []uint64{docIndexAt, lensAt, termIndexAt, docAreaAt, termAreaAt, postAreaAt, end} {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	for _, v := range docIndex {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	for f := range int(numFields) { // b.lens is document by document
		for i := f; i < len(b.lens); i += int(numFields) {
			out = binary.LittleEndian.AppendUint32(out, b.lens[i])
		}
	}
	for _, v := range termIndex {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	out = append(out, docArea...)
	out = append(out, termArea...)
	return append(out, postArea...)
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
