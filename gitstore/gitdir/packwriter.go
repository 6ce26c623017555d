package gitdir

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// PackWriter writes objects as one packfile with its .idx (version 2), the
// way git receives a fetch above fetch.unpackLimit: a batch of thousands of
// objects (an import, a large merge) costs one file and two fsyncs instead
// of a file, an fsync and a rename per object. It has ObjectWriter's
// methods, so the write path takes either.
//
// Objects are compressed into a temporary file in objects/pack as they
// come (memory holds only each object's name, offset and CRC); Sync writes
// the object count and checksum, the .idx, fsyncs both and renames them to
// pack-<checksum>.{pack,idx}, .pack first: git and our reader list packs by
// their .idx, so a pack is seen only once it is whole. A crash leaves only a
// tmp_pack_* file, which git gc removes. Entries are whole objects (no
// deltas): git gc deltifies later. Not safe for concurrent use.
type PackWriter struct {
	dir string // the objects directory

	f       *os.File
	buf     *bufio.Writer
	offset  int64
	entries []packEntry
	seen    map[plumbing.Hash]int64 // each object written, at its offset
	zw      *zlib.Writer
	crc     hash.Hash32
	synced  string     // the last pack made visible, without extension
	flushMu sync.Mutex // Object's flush of buf, from several readers

	// StoreTrees makes Write store trees in zlib's uncompressed blocks.
	// A tree is mostly object names, which do not compress: zlib saves a
	// fifth of its bytes (a 256-entry tree, 9.6 KB, is 7.4 KB compressed)
	// and was the largest cost of a commit group's pack, which rewrites
	// the trees on each record's path once per op. git reads any zlib
	// stream, and git gc compresses and deltifies them later.
	StoreTrees bool
}

// storingWriters are zlib writers that store without compressing.
var storingWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.NoCompression)
	return w
}}

type packEntry struct {
	hash   plumbing.Hash
	offset int64
	crc    uint32
}

// NewPackWriter writes into r.ObjectDir (<CommonDir>/objects when unset).
func (r *Repo) NewPackWriter() *PackWriter {
	dir := r.ObjectDir
	if dir == "" {
		dir = filepath.Join(r.CommonDir, "objects")
	}
	return &PackWriter{dir: dir, seen: map[plumbing.Hash]int64{}}
}

const packHeaderSize = 12

// Write adds one object to the pack and returns its hash; an object
// already in this pack is not added twice. It is readable after Sync.
func (w *PackWriter) Write(t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, content)
	if _, ok := w.seen[h]; ok {
		return h, nil
	}
	if w.f == nil {
		if err := w.start(); err != nil {
			return h, err
		}
	}
	w.crc.Reset()
	out := io.MultiWriter(w.buf, w.crc)
	var header [16]byte
	n := encodeEntryHeader(header[:], t, len(content))
	if _, err := out.Write(header[:n]); err != nil {
		return h, fmt.Errorf("write pack: %w", err)
	}
	counted := &countingWriter{w: out}
	zw := w.zw
	if t == plumbing.TreeObject && w.StoreTrees {
		zw = storingWriters.Get().(*zlib.Writer)
		defer storingWriters.Put(zw)
	}
	zw.Reset(counted)
	if _, err := zw.Write(content); err != nil {
		return h, fmt.Errorf("write pack: %w", err)
	}
	if err := zw.Close(); err != nil {
		return h, fmt.Errorf("write pack: %w", err)
	}
	w.entries = append(w.entries, packEntry{hash: h, offset: w.offset, crc: w.crc.Sum32()})
	w.seen[h] = w.offset
	w.offset += int64(n) + counted.n
	return h, nil
}

// WriteAll adds objects of type t, as Write does one after the other, and
// returns their hashes in order; it hashes and compresses them on every
// core (zlib is most of a pack's cost), a chunk at a time so memory holds
// only one chunk's compressed bytes, and appends them in order.
func (w *PackWriter) WriteAll(t plumbing.ObjectType, contents [][]byte) ([]plumbing.Hash, error) {
	hashes := make([]plumbing.Hash, len(contents))
	if w.f == nil && len(contents) > 0 {
		if err := w.start(); err != nil {
			return nil, err
		}
	}
	workers := runtime.GOMAXPROCS(0)
	// From the pool: a writer that streams (an import) calls WriteAll a
	// batch at a time, and a fresh compressor is about 1 MiB.
	zws := make([]*zlib.Writer, workers)
	for i := range zws {
		zws[i] = zlibWriters.Get().(*zlib.Writer)
		defer zlibWriters.Put(zws[i])
	}
	const chunk = 512
	entries := make([]packedEntry, chunk)
	for lo := 0; lo < len(contents); lo += chunk {
		part := contents[lo:min(lo+chunk, len(contents))]
		var next atomic.Int64
		var wg sync.WaitGroup
		for k := range workers {
			wg.Add(1)
			go func(zw *zlib.Writer) {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < len(part); i = int(next.Add(1) - 1) {
					entries[i] = packEntryOf(zw, t, part[i])
				}
			}(zws[k])
		}
		wg.Wait()
		for i := range part {
			e := &entries[i]
			hashes[lo+i] = e.hash
			if e.err != nil {
				return nil, fmt.Errorf("write pack: %w", e.err)
			}
			if _, ok := w.seen[e.hash]; ok {
				continue
			}
			if _, err := w.buf.Write(e.data); err != nil {
				return nil, fmt.Errorf("write pack: %w", err)
			}
			w.entries = append(w.entries, packEntry{hash: e.hash, offset: w.offset, crc: e.crc})
			w.seen[e.hash] = w.offset
			w.offset += int64(len(e.data))
			*e = packedEntry{}
		}
	}
	return hashes, nil
}

// packedEntry is one object as a pack entry: its header and compressed
// content, their CRC, and the object's hash.
type packedEntry struct {
	hash plumbing.Hash
	data []byte
	crc  uint32
	err  error
}

func packEntryOf(zw *zlib.Writer, t plumbing.ObjectType, content []byte) packedEntry {
	e := packedEntry{hash: plumbing.ComputeHash(t, content)}
	var b bytes.Buffer
	b.Grow(len(content)/2 + 64)
	var header [16]byte
	b.Write(header[:encodeEntryHeader(header[:], t, len(content))])
	zw.Reset(&b)
	if _, e.err = zw.Write(content); e.err == nil {
		e.err = zw.Close()
	}
	e.data = b.Bytes()
	e.crc = crc32.ChecksumIEEE(e.data)
	return e
}

// WriteObject writes an object built with go-git.
func (w *PackWriter) WriteObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	rd, err := o.Reader()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read object: %w", err)
	}
	defer rd.Close()
	content, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read object: %w", err)
	}
	return w.Write(o.Type(), content)
}

// packBuffers and packReaders are the buffers of pack files, reused: a
// server writes a small pack per commit group, and a fresh 256 KiB buffer,
// a second to read it back and a compressor each time were most of what
// a group allocated.
var (
	packBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 256<<10) }}
	packReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 256<<10) }}
)

// release ends the pack being written (after finish or when dropping it),
// returning its buffers to their pools.
func (w *PackWriter) release() {
	w.buf.Reset(nil)
	packBuffers.Put(w.buf)
	zlibWriters.Put(w.zw)
	w.f, w.buf, w.zw, w.entries, w.seen = nil, nil, nil, nil, map[plumbing.Hash]int64{}
}

// Object reads back an object written into the pack since the last Sync
// (ok false for one it did not write): a writer can judge what it wrote
// before anything names it, holding none of it meanwhile. Several
// goroutines may read back at once, while none writes.
func (w *PackWriter) Object(h plumbing.Hash) (t plumbing.ObjectType, content []byte, ok bool, err error) {
	offset, ok := w.seen[h]
	if !ok || w.f == nil {
		return 0, nil, false, nil
	}
	w.flushMu.Lock()
	err = w.buf.Flush()
	w.flushMu.Unlock()
	if err != nil {
		return 0, nil, true, fmt.Errorf("read back %s: %w", h, err)
	}
	// Readers and inflaters are reused: each new one costs about 40 KiB,
	// and a writer may read back a hundred thousand objects.
	rd := backReaders.Get().(*backReader)
	defer backReaders.Put(rd)
	rd.buf.Reset(io.NewSectionReader(w.f, offset, w.offset-offset))
	t, size, err := decodeEntryHeader(rd.buf)
	if err == nil {
		if rd.inflate == nil {
			rd.inflate, err = zlib.NewReader(rd.buf)
		} else {
			err = rd.inflate.(zlib.Resetter).Reset(rd.buf, nil)
		}
	}
	if err == nil {
		content = make([]byte, size)
		_, err = io.ReadFull(rd.inflate, content)
	}
	if err != nil {
		return 0, nil, true, fmt.Errorf("read back %s: %w", h, err)
	}
	return t, content, true, nil
}

// backReader reads one object back from a pack being written.
type backReader struct {
	buf     *bufio.Reader
	inflate io.ReadCloser
}

var backReaders = sync.Pool{New: func() any { return &backReader{buf: bufio.NewReaderSize(nil, 4096)} }}

func (w *PackWriter) start() error {
	packDir := filepath.Join(w.dir, "pack")
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", packDir, err)
	}
	f, err := os.CreateTemp(packDir, "tmp_pack_")
	if err != nil {
		return fmt.Errorf("create a pack in %s: %w", packDir, err)
	}
	w.buf = packBuffers.Get().(*bufio.Writer)
	w.buf.Reset(f)
	w.f, w.zw = f, zlibWriters.Get().(*zlib.Writer)
	w.crc = crc32.NewIEEE()
	// The count is written by Sync, when it is known.
	if _, err := w.buf.Write(make([]byte, packHeaderSize)); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	w.offset = packHeaderSize
	return nil
}

// Sync finishes the pack and makes it and its index durable and visible.
// Call it before a ref points at its objects. Objects written afterwards
// go into a new pack.
func (w *PackWriter) Sync() error { return w.SyncAlongside(nil) }

// SyncAlongside is Sync that runs during, when not nil, alongside its last
// round (the fsync of the pack directory), as ObjectWriter.SyncAlongside
// does; with nothing to sync it runs during alone.
func (w *PackWriter) SyncAlongside(during func() error) error {
	var duringErr error
	alongside := func() error {
		if during != nil {
			duringErr = during()
		}
		return nil
	}
	if w.f == nil {
		alongside()
		return duringErr
	}
	tmp := w.f.Name()
	err := w.finish(alongside)
	w.release()
	if err != nil {
		os.Remove(tmp)
		os.Remove(tmp + ".idx")
		return fmt.Errorf("write pack: %w", err)
	}
	return duringErr
}

func (w *PackWriter) finish(during func() error) error {
	f := w.f
	defer f.Close()
	if err := w.buf.Flush(); err != nil {
		return err
	}
	header := make([]byte, packHeaderSize)
	copy(header, "PACK")
	binary.BigEndian.PutUint32(header[4:], 2)
	binary.BigEndian.PutUint32(header[8:], uint32(len(w.entries)))
	if _, err := f.WriteAt(header, 0); err != nil {
		return err
	}
	// The trailer is the SHA-1 of everything before it, header included:
	// read the file back once rather than keep the pack in memory.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	sum := sha1.New()
	r := packReaders.Get().(*bufio.Reader)
	r.Reset(f)
	_, err := io.Copy(sum, r)
	r.Reset(nil)
	packReaders.Put(r)
	if err != nil {
		return err
	}
	checksum := sum.Sum(nil)
	if _, err := f.Write(checksum); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	idxTmp := f.Name() + ".idx"
	if err := writeIdx(idxTmp, w.entries, checksum); err != nil {
		return err
	}
	base := filepath.Join(filepath.Dir(f.Name()), "pack-"+plumbing.Hash(checksum20(checksum)).String())
	// Read-only, as git leaves packs.
	_ = os.Chmod(f.Name(), 0o444)
	_ = os.Chmod(idxTmp, 0o444)
	if err := os.Rename(f.Name(), base+".pack"); err != nil {
		return err
	}
	if err := os.Rename(idxTmp, base+".idx"); err != nil {
		return err
	}
	dir := filepath.Dir(f.Name())
	if err := parallel(2, func(each func(func() error)) {
		each(func() error { return syncDir(dir) })
		each(during)
	}); err != nil {
		return err
	}
	w.synced = base
	return nil
}

func checksum20(b []byte) (h [20]byte) {
	copy(h[:], b)
	return h
}

// writeIdx writes a version-2 pack index: fan-out, sorted names, CRCs,
// 31-bit offsets (and the 64-bit table for larger ones), the pack's
// checksum and its own.
func writeIdx(path string, entries []packEntry, packChecksum []byte) error {
	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].hash[:], entries[j].hash[:]) < 0 })
	var b bytes.Buffer
	b.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fanout [256]uint32
	for _, e := range entries {
		fanout[e.hash[0]]++
	}
	var total uint32
	for i := range fanout {
		total += fanout[i]
		_ = binary.Write(&b, binary.BigEndian, total)
	}
	for _, e := range entries {
		b.Write(e.hash[:])
	}
	for _, e := range entries {
		_ = binary.Write(&b, binary.BigEndian, e.crc)
	}
	var large []int64
	for _, e := range entries {
		if e.offset < 1<<31 {
			_ = binary.Write(&b, binary.BigEndian, uint32(e.offset))
			continue
		}
		_ = binary.Write(&b, binary.BigEndian, uint32(1<<31|len(large)))
		large = append(large, e.offset)
	}
	for _, off := range large {
		_ = binary.Write(&b, binary.BigEndian, uint64(off))
	}
	b.Write(packChecksum)
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// decodeEntryHeader reads what encodeEntryHeader writes.
func decodeEntryHeader(r io.ByteReader) (plumbing.ObjectType, int64, error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	t := plumbing.ObjectType(c >> 4 & 7)
	size := int64(c & 0x0f)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if shift > 56 {
			return 0, 0, fmt.Errorf("pack entry size overflows")
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, 0, err
		}
		size |= int64(c&0x7f) << shift
	}
	return t, size, nil
}

// encodeEntryHeader writes a pack entry's type and size: 3 bits of type
// and 4 of size in the first byte, then 7 bits of size per byte.
func encodeEntryHeader(b []byte, t plumbing.ObjectType, size int) int {
	c := byte(t)<<4 | byte(size&0x0f)
	size >>= 4
	n := 0
	for size > 0 {
		b[n] = c | 0x80
		n++
		c = byte(size & 0x7f)
		size >>= 7
	}
	b[n] = c
	return n + 1
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
