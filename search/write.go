package search

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"slices"
	"strings"
)

// Output is where a segment is written: a file, or a MemFile. The
// sections are written in order, and the few whose contents are known
// last (the documents' offsets and field lengths, the header) into the
// space kept for them.
type Output interface {
	io.WriterAt
}

// MemFile is an Output in memory.
type MemFile struct{ b []byte }

// WriteAt writes p at off, growing the file as needed.
func (m *MemFile) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = slices.Grow(m.b, end-len(m.b))[:end]
	}
	return copy(m.b[off:], p), nil
}

// Bytes is what was written.
func (m *MemFile) Bytes() []byte { return m.b }

// streamWriter writes at increasing offsets of an Output through a buffer.
type streamWriter struct {
	out Output
	at  int64 // where buf goes
	buf []byte
	err error
}

const streamBuffer = 256 << 10

func (w *streamWriter) write(p []byte) {
	if len(w.buf)+len(p) > streamBuffer {
		w.flush()
	}
	if len(p) >= streamBuffer {
		w.writeAt(p)
		return
	}
	w.buf = append(w.buf, p...)
}

func (w *streamWriter) writeAt(p []byte) {
	if w.err == nil {
		_, w.err = w.out.WriteAt(p, w.at)
	}
	w.at += int64(len(p))
}

func (w *streamWriter) flush() {
	b := w.buf
	w.buf = w.buf[:0]
	w.writeAt(b)
}

// offset is where the next byte written goes.
func (w *streamWriter) offset() int64 { return w.at + int64(len(w.buf)) }

// segmentWriter writes one segment of a known number of documents: each
// document in id order (addDoc), then each term in key order with its
// postings (addTerm), then finish. Only the dictionary, the documents'
// offsets and their field lengths are held until the end.
type segmentWriter struct {
	out       streamWriter
	store     string
	docs, n   int
	docIndex  []byte   // (docs+1) × u64
	lens      []uint32 // field by field
	totals    [numFields]uint64
	docArea   int64
	postArea  int64 // 0 until the first term
	termArea  []byte
	termIndex []byte
	terms     int
	lastKey   []byte
}

// newSegmentWriter starts a segment of docs documents of store's records.
func newSegmentWriter(out Output, store string, docs int) *segmentWriter {
	w := &segmentWriter{store: store, docs: docs, docIndex: make([]byte, 0, 8*(docs+1)),
		lens: make([]uint32, int(numFields)*docs)}
	w.out = streamWriter{out: out, buf: make([]byte, 0, streamBuffer)}
	nLens := int(numFields) * docs
	w.docArea = int64(headerSize + len(store) + 8*(docs+1) + 4*nLens + 4*((nLens+lensBlock-1)/lensBlock))
	w.out.at = w.docArea
	return w
}

// addDoc writes the next document: its encoding (appendDoc's, checksum
// included) and its field lengths.
func (w *segmentWriter) addDoc(enc []byte, lens *[numFields]uint32) {
	if w.n == w.docs || w.postArea != 0 {
		panic("search: a segment's documents are all written first, as many as it was started with")
	}
	w.docIndex = binary.LittleEndian.AppendUint64(w.docIndex, uint64(w.out.offset()-w.docArea))
	w.out.write(enc)
	for f, l := range lens {
		w.lens[f*w.docs+w.n] = l
		w.totals[f] += uint64(l)
	}
	w.n++
}

// addTerm writes the next term of the dictionary (keys in increasing
// order) with its postings: df documents, their positions.
func (w *segmentWriter) addTerm(key []byte, df int, docs, positions []byte) {
	if w.n != w.docs || w.terms > 0 && bytes.Compare(key, w.lastKey) <= 0 {
		panic("search: a segment's terms are written after its documents, in increasing order")
	}
	if w.postArea == 0 {
		w.postArea = w.out.offset()
	}
	w.lastKey = append(w.lastKey[:0], key...)
	start := len(w.termArea)
	w.termIndex = binary.LittleEndian.AppendUint64(w.termIndex, uint64(start))
	w.termArea = binary.AppendUvarint(w.termArea, uint64(len(key)))
	w.termArea = append(w.termArea, key...)
	w.termArea = binary.AppendUvarint(w.termArea, uint64(df))
	w.termArea = binary.AppendUvarint(w.termArea, uint64(w.out.offset()-w.postArea))
	w.termArea = binary.AppendUvarint(w.termArea, uint64(len(docs)))
	w.termArea = binary.AppendUvarint(w.termArea, uint64(len(positions)))
	w.termArea = binary.LittleEndian.AppendUint32(w.termArea, crc32.ChecksumIEEE(docs))
	w.termArea = binary.LittleEndian.AppendUint32(w.termArea, crc32.ChecksumIEEE(positions))
	w.termArea = binary.LittleEndian.AppendUint32(w.termArea, crc32.ChecksumIEEE(w.termArea[start:]))
	w.out.write(docs)
	w.out.write(positions)
	w.terms++
}

// finish writes the dictionary, then the offsets, lengths and header kept
// for last, and says the size of the segment.
func (w *segmentWriter) finish(tip [20]byte) (int64, error) {
	if w.n != w.docs {
		panic("search: a segment finished before all its documents were written")
	}
	if w.postArea == 0 {
		w.postArea = w.out.offset()
	}
	w.docIndex = binary.LittleEndian.AppendUint64(w.docIndex, uint64(w.postArea-w.docArea))
	termArea := w.out.offset()
	w.out.write(w.termArea)
	termIndex := w.out.offset()
	w.termIndex = binary.LittleEndian.AppendUint64(w.termIndex, uint64(len(w.termArea)))
	w.out.write(w.termIndex)
	end := w.out.offset()
	w.out.flush()

	// The front: header, store, docIndex, lens, lensSums.
	storeAt := int64(headerSize)
	docIndexAt := storeAt + int64(len(w.store))
	lensAt := docIndexAt + int64(len(w.docIndex))
	lens := make([]byte, 0, 4*len(w.lens))
	for _, l := range w.lens {
		lens = binary.LittleEndian.AppendUint32(lens, l)
	}
	lensSumsAt := lensAt + int64(len(lens))
	var lensSums []byte
	for rest := lens; len(rest) > 0; {
		n := min(len(rest), 4*lensBlock)
		lensSums = binary.LittleEndian.AppendUint32(lensSums, crc32.ChecksumIEEE(rest[:n]))
		rest = rest[n:]
	}
	if lensSumsAt+int64(len(lensSums)) != w.docArea {
		panic("search: the space kept for the documents' offsets and lengths does not fit them")
	}
	front := make([]byte, 0, w.docArea)
	front = append(front, segmentMagic...)
	front = binary.LittleEndian.AppendUint32(front, segmentVersion)
	front = append(front, tip[:]...)
	front = binary.LittleEndian.AppendUint32(front, uint32(w.docs))
	front = binary.LittleEndian.AppendUint32(front, uint32(w.terms))
	for _, t := range w.totals {
		front = binary.LittleEndian.AppendUint64(front, t)
	}
	for _, v := range [numSections]int64{storeAt, docIndexAt, lensAt, lensSumsAt, w.docArea, w.postArea, termArea, termIndex, end} {
		front = binary.LittleEndian.AppendUint64(front, uint64(v))
	}
	front = binary.LittleEndian.AppendUint32(front, crc32.Update(crc32.ChecksumIEEE(front), crc32.IEEETable, []byte(w.store)))
	front = append(front, w.store...)
	front = append(front, w.docIndex...)
	front = append(front, lens...)
	front = append(front, lensSums...)
	if w.out.err == nil {
		_, w.out.err = w.out.out.WriteAt(front, 0)
	}
	return end, w.out.err
}

// Build encodes docs as one segment of store's records at tip (in id
// order; a later doc with the same id replaces an earlier one).
func Build(store string, tip [20]byte, docs []*Doc) []byte {
	var m MemFile
	if _, err := buildTo(&m, store, tip, docs); err != nil {
		panic(err) // a MemFile does not fail
	}
	return m.Bytes()
}

// buildTo writes the segment of docs to out.
func buildTo(out Output, store string, tip [20]byte, docs []*Doc) (int64, error) {
	docs = uniqueByID(docs)
	b := newBuilder()
	for i, d := range docs {
		b.add(uint32(i), d)
	}
	w := newSegmentWriter(out, store, len(docs))
	var enc []byte
	var lens [numFields]uint32
	for i, d := range docs {
		enc = appendDoc(enc[:0], d)
		copy(lens[:], b.lens[i*int(numFields):])
		w.addDoc(enc, &lens)
	}
	order := make([]uint32, len(b.keys))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int { return strings.Compare(b.keys[x], b.keys[y]) })
	for _, n := range order {
		pl := &b.lists[n]
		w.addTerm([]byte(b.keys[n]), int(pl.df), pl.data, pl.pos)
	}
	return w.finish(tip)
}
