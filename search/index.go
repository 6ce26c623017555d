package search

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"slices"
)

// MaxDelta is how many documents the delta holds before the index asks
// for a new base (NeedsMerge): every update rewrites the delta, so it must
// stay small; a merge copies the base and the delta into a new base (no
// record is read or tokenized again), about once per MaxDelta changed
// records.
var MaxDelta = 512

// Index is a base segment and a delta segment. The delta holds every
// document changed since the base was built and hides the base's copy;
// Tip names the commit the pair reflects, BaseTip the commit the base was
// built at (which names its file), Store the store whose records they are
// (each segment's header names both, checked at open).
type Index struct {
	Store        string
	Tip, BaseTip [20]byte
	base, delta  *Segment
	hiddenIDs    []string // sorted: base documents the delta replaces or removes
	hidden       []uint64 // the same as a bitset of base document numbers
	hiddenNums   []int    // and as a list
	nHidden      int
	deltaFile    []byte
}

// Change is one record a tree diff changed: Doc nil when it is gone (or
// no longer a valid record).
type Change struct {
	ID  string
	Doc *Doc
}

// The delta file: magic, u32 version, tip [20], base tip [20], the hidden
// ids (uvarint n + n strings), u32 CRC-32 of the bytes before it, then the
// delta segment (which checks itself).
const deltaMagic = "git-records search delta\x00"

// New returns the index of store's docs at tip, as a base with an empty delta.
func New(store string, tip [20]byte, docs []*Doc) (*Index, []byte, error) {
	base := Build(store, tip, docs)
	ix, err := open(tip, tip, base, nil, nil, Build(store, tip, nil))
	return ix, base, err
}

// DeltaBaseTip reads, from a delta file, the tip of the base it goes with
// (not checked: Open checks it, and the base's header names it too).
func DeltaBaseTip(delta []byte) ([20]byte, error) {
	var t [20]byte
	if len(delta) < len(deltaMagic)+4+40 || string(delta[:len(deltaMagic)]) != deltaMagic ||
		binary.LittleEndian.Uint32(delta[len(deltaMagic):]) != segmentVersion {
		return t, ErrCorrupt
	}
	copy(t[:], delta[len(deltaMagic)+4+20:])
	return t, nil
}

// Open reads an index from its delta file and the base it names.
func Open(deltaFile, base []byte) (ix *Index, err error) { return OpenFile(deltaFile, base, nil) }

// OpenFile is Open of a base read from file (from its offset 0, as a
// mapping of it): a search reads its hits' documents and its dictionary
// probes from the file with pread. file nil is Open.
func OpenFile(deltaFile, base []byte, file io.ReaderAt) (ix *Index, err error) {
	defer guard(&err)
	baseTip, err := DeltaBaseTip(deltaFile)
	if err != nil {
		return nil, err
	}
	var tip [20]byte
	p := len(deltaMagic) + 4
	copy(tip[:], deltaFile[p:])
	r := reader{b: deltaFile[p+40:]}
	hidden := r.strs()
	head := len(deltaFile) - len(r.b)
	r.next(4)
	sealed(deltaFile[:head+4])
	return open(tip, baseTip, base, file, hidden, r.b)
}

func open(tip, baseTip [20]byte, base []byte, baseFile io.ReaderAt, hiddenIDs []string, delta []byte) (ix *Index, err error) {
	defer guard(&err)
	ix = &Index{Tip: tip, BaseTip: baseTip, hiddenIDs: hiddenIDs}
	if ix.base, err = OpenSegment(base); err != nil {
		return nil, err
	}
	ix.base.file = baseFile
	if ix.delta, err = OpenSegment(delta); err != nil {
		return nil, err
	}
	// Each segment names what it indexes: a base of another tip or store
	// (a file copied in) is not this index's.
	if ix.base.tip != baseTip || ix.delta.tip != tip || ix.base.store != ix.delta.store {
		return nil, ErrCorrupt
	}
	ix.Store = ix.base.store
	ix.hidden = make([]uint64, (ix.base.Len()+63)/64)
	for i, id := range hiddenIDs {
		if i > 0 && hiddenIDs[i-1] >= id {
			return nil, ErrCorrupt
		}
		if n, ok := ix.base.find(id); ok {
			ix.hidden[n/64] |= 1 << (n % 64)
			ix.hiddenNums = append(ix.hiddenNums, n)
			ix.nHidden++
		}
	}
	ix.deltaFile = ix.encodeDelta(delta)
	return ix, nil
}

func (ix *Index) encodeDelta(delta []byte) []byte {
	out := append([]byte(deltaMagic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(out[len(deltaMagic):], segmentVersion)
	out = append(out, ix.Tip[:]...)
	out = append(out, ix.BaseTip[:]...)
	out = binary.AppendUvarint(out, uint64(len(ix.hiddenIDs)))
	for _, id := range ix.hiddenIDs {
		out = appendString(out, id)
	}
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
	return append(out, delta...)
}

// Verify checks every part of both segments against its checksum, and
// that documents and dictionary are in order: what reindex asks of an
// index (a search checks only the parts it reads). Each segment is read
// front to back from its file, not through its mapping, so that checking
// a base does not make all of it resident.
func (ix *Index) Verify() (err error) {
	defer guard(&err)
	for _, in := range ix.inputs(false) {
		src := openSource(&in, ix.Store, 64<<10)
		for src.docB != nil {
			src.nextDoc()
		}
		for !src.termDone {
			src.nextTerm()
		}
	}
	return nil
}

// inputs are ix's two segments as a merge reads them: the base from its
// file when it has one, the documents the delta hides left out (hide).
func (ix *Index) inputs(hide bool) []mergeInput {
	var base io.ReaderAt = bytes.NewReader(ix.base.data)
	if ix.base.file != nil {
		base = ix.base.file
	}
	in := []mergeInput{
		{ra: base, size: int64(len(ix.base.data))},
		{ra: bytes.NewReader(ix.delta.data), size: int64(len(ix.delta.data))},
	}
	if hide {
		in[0].drop = ix.hidden
	}
	return in
}

// Agrees checks every part of a, as Verify does, and says whether it
// holds the same documents as b, each as stored (b's checked too): what
// reindex asks of a cached index against a rebuilt one. Each index walks
// its documents in id order, one at a time, and a its dictionary, read
// front to back from their segments' files.
func Agrees(a, b *Index) (same bool, err error) {
	defer guard(&err)
	next := func(ix *Index, terms bool) func() []byte {
		srcs := sourceHeap{less: func(x, y *mergeSource) bool { return bytes.Compare(x.docID, y.docID) < 0 }}
		for _, in := range ix.inputs(true) {
			s := openSource(&in, ix.Store, 64<<10)
			for terms && !s.termDone {
				s.nextTerm()
			}
			if s.docB != nil {
				srcs.push(s)
			}
		}
		return func() []byte {
			for len(srcs.s) > 0 {
				s := srcs.s[0]
				var doc []byte
				if !s.in.dropped(s.doc) {
					doc = append([]byte(nil), s.docB...)
				}
				if s.nextDoc(); s.docB != nil {
					srcs.down(0)
				} else {
					srcs.pop()
				}
				if doc != nil {
					return doc
				}
			}
			return nil
		}
	}
	na, nb := next(a, true), next(b, false)
	same = true
	for {
		da, db := na(), nb()
		if da == nil && db == nil {
			return same, nil
		}
		// a's documents are all read, and so checked, whatever b holds.
		same = same && bytes.Equal(da, db)
		if da == nil {
			return false, nil
		}
	}
}

// DeltaFile is the delta's file content (it names Tip and BaseTip).
func (ix *Index) DeltaFile() []byte { return ix.deltaFile }

// Len is the number of documents.
func (ix *Index) Len() int { return ix.base.Len() - ix.nHidden + ix.delta.Len() }

func (ix *Index) isHidden(n int) bool { return ix.hidden[n/64]&(1<<(n%64)) != 0 }

// docs are every document, for a merge or a comparison, in id order.
func (ix *Index) Docs() (out []*Doc, err error) {
	defer guard(&err)
	for i := 0; i < ix.base.Len(); i++ {
		if !ix.isHidden(i) {
			out = append(out, ix.base.doc(i))
		}
	}
	for i := 0; i < ix.delta.Len(); i++ {
		out = append(out, ix.delta.doc(i))
	}
	slices.SortFunc(out, func(a, b *Doc) int { return compareStrings(a.ID, b.ID) })
	return out, nil
}

// Blobs maps every document's id to the blob it was read from: what
// reindex compares against a rebuild.
func (ix *Index) Blobs() (out map[string][20]byte, err error) {
	defer guard(&err)
	out = make(map[string][20]byte, ix.Len())
	add := func(s *Segment, i int) {
		d := s.doc(i) // checked
		out[d.ID] = d.Blob
	}
	for i := 0; i < ix.base.Len(); i++ {
		if !ix.isHidden(i) {
			add(ix.base, i)
		}
	}
	for i := 0; i < ix.delta.Len(); i++ {
		add(ix.delta, i)
	}
	return out, nil
}

// Apply returns the index at tip: ix with changes applied. When the delta
// outgrows MaxDelta it is merged into a new base, in memory, returned as
// newBase (nil otherwise: the base file is unchanged and only DeltaFile is
// written). A caller that keeps the base in a file calls ApplyDelta and
// WriteBase itself.
func (ix *Index) Apply(tip [20]byte, changes []Change) (next *Index, newBase []byte, err error) {
	if next, err = ix.ApplyDelta(tip, changes); err != nil || !next.NeedsMerge() {
		return next, nil, err
	}
	var m MemFile
	if _, err := next.WriteBase(&m); err != nil {
		return nil, nil, err
	}
	next, err = OpenBase(m.Bytes(), nil)
	return next, m.Bytes(), err
}

// ApplyDelta returns the index at tip: ix with changes applied to its
// delta, the base left as it is. The new delta is the old one less the
// documents changed, merged with a segment of their new versions: what
// changed is tokenized, the rest copied.
func (ix *Index) ApplyDelta(tip [20]byte, changes []Change) (next *Index, err error) {
	defer guard(&err)
	latest := make(map[string]*Doc, len(changes)) // an id's last change stands
	for _, c := range changes {
		latest[c.ID] = c.Doc
	}
	hidden := slices.Clone(ix.hiddenIDs)
	replaced := make([]uint64, (ix.delta.Len()+63)/64)
	docs := make([]*Doc, 0, len(latest))
	for id, d := range latest {
		if d != nil {
			docs = append(docs, d)
		}
		if n, held := ix.delta.find(id); held {
			replaced[n/64] |= 1 << (n % 64)
		}
		if _, inBase := ix.base.find(id); inBase {
			if i, found := slices.BinarySearch(hidden, id); !found {
				hidden = slices.Insert(hidden, i, id)
			}
		}
	}
	fresh := Build(ix.Store, tip, docs)
	var delta MemFile
	if _, err := merge(&delta, ix.Store, tip, []mergeInput{
		{ra: bytes.NewReader(ix.delta.data), size: int64(len(ix.delta.data)), drop: replaced},
		{ra: bytes.NewReader(fresh), size: int64(len(fresh))},
	}); err != nil {
		return nil, err
	}
	return open(tip, ix.BaseTip, ix.base.data, ix.base.file, hidden, delta.Bytes())
}

// NeedsMerge says the delta has outgrown MaxDelta: time for WriteBase.
func (ix *Index) NeedsMerge() bool {
	return ix.delta.Len() > MaxDelta || len(ix.hiddenIDs) > MaxDelta
}

// WriteBase writes to out one segment of every document of ix, at ix.Tip:
// the base less what the delta hides, merged with the delta. The base is
// read front to back from its file (when it has one), not through its
// mapping, so that a merge does not make the whole base resident.
func (ix *Index) WriteBase(out Output) (size int64, err error) {
	return merge(out, ix.Store, ix.Tip, ix.inputs(true))
}

// OpenBase opens a base segment as an index with an empty delta, at the
// tip the base names; file, when set, holds base from its offset 0.
func OpenBase(base []byte, file io.ReaderAt) (*Index, error) {
	seg, err := OpenSegment(base)
	if err != nil {
		return nil, err
	}
	return open(seg.tip, seg.tip, base, file, nil, Build(seg.store, seg.tip, nil))
}
