package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// storedObject is an object read from the object store, named by the hash
// it was looked up by (git names an object by its content's hash). A
// plumbing.MemoryObject hashes its content again whenever asked for its
// name, which every tree decode does: a tenth of a verify's CPU.
type storedObject struct {
	h    plumbing.Hash
	t    plumbing.ObjectType
	data []byte // shared with the pack cache: read only
	// owned: data is this read's alone (a whole blob, cached nowhere),
	// which its reader may give back with recycleBlob once done.
	owned bool
}

func (o *storedObject) Hash() plumbing.Hash           { return o.h }
func (o *storedObject) Type() plumbing.ObjectType     { return o.t }
func (o *storedObject) SetType(t plumbing.ObjectType) { o.t = t }
func (o *storedObject) Size() int64                   { return int64(len(o.data)) }
func (o *storedObject) SetSize(int64)                 {}
func (o *storedObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *storedObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("gitstore: a stored object is read only")
}

// packReader reads objects out of a mapped packfile (gitformat-pack(5)):
// an object is inflated straight from the mapping, and a delta is applied
// to its base, which is looked up by offset in a cache of recently
// resolved objects. Consecutive versions of a tree are deltas of each
// other, so a walk over a range resolves each chain once; go-git's reader,
// which it replaces, hashed every object it cached and copied it twice.
type packReader struct {
	data []byte
	// file is the pack the mapping was made from (nil: none kept), for
	// the first pointReads reads; reads counts them.
	file  *os.File
	reads atomic.Int32

	mu         sync.Mutex
	cache      map[int64]packCached
	cacheBytes int
}

type packCached struct {
	t    plumbing.ObjectType
	data []byte
}

// packCacheBytes bounds the resolved objects a pack keeps; past it the
// cache starts again, empty.
const packCacheBytes = 32 << 20

// maxDeltaChain is far beyond git's (50, or 250 with --aggressive): a
// longer chain is a corrupt or hostile pack.
const maxDeltaChain = 10000

var errPackCorrupt = errors.New("gitstore: corrupt pack entry")

// pointReads is how many reads of a pack copy the entries they read with
// pread before reads go through the mapping: a read through the mapping
// faults in the pages around each entry (64 KiB with the kernel's
// fault-around), at a place of the pack no other read shares until
// thousands have been made, and a fault costs tens of microseconds here
// where a pread of a few KiB costs a few. A full read makes hundreds of
// thousands of reads, which a warm mapping serves best.
const pointReads = 512

// read returns the type and content of the object at off; idx finds the
// bases of deltas that name theirs (REF_DELTA). One of the first
// pointReads reads of the pack copies the entries it reads with pread;
// whatever such a read cannot finish (an entry longer than it copied,
// damage) is read again from the mapping, whose answer stands.
func (p *packReader) read(idx *packIndex, off int64) (plumbing.ObjectType, []byte, error) {
	t, data, _, err := p.readOwned(idx, off)
	return t, data, err
}

// readOwned is read, saying whether the content is this read's own: a
// whole blob, in a buffer of blobBufs that nothing else holds (see
// recycleBlob). Other content may be the cache's, shared.
func (p *packReader) readOwned(idx *packIndex, off int64) (plumbing.ObjectType, []byte, bool, error) {
	if p.file != nil && p.reads.Load() < pointReads && p.reads.Add(1) <= pointReads {
		if t, data, owned, err := p.readEntry(idx, off, true); err == nil {
			return t, data, owned, nil
		}
	}
	return p.readEntry(idx, off, false)
}

// readAt is read, from copies of the entries (point) or the mapping.
func (p *packReader) readAt(idx *packIndex, off int64, point bool) (plumbing.ObjectType, []byte, error) {
	t, data, _, err := p.readEntry(idx, off, point)
	return t, data, err
}

// readEntry is readAt, saying whether the content is the read's own.
func (p *packReader) readEntry(idx *packIndex, off int64, point bool) (plumbing.ObjectType, []byte, bool, error) {
	var win *[]byte // the copy of the entry being read (point)
	if point {
		win = entryBufs.Get().(*[]byte)
		defer entryBufs.Put(win)
	}
	p.mu.Lock()
	if _, ok := p.cache[off]; !ok {
		if t, size, body, err := p.entry(off, win); err == nil && t == plumbing.BlobObject {
			// A whole blob: inflated outside the lock and not cached,
			// so full reads inflate on every core at once and do not
			// push the trees (delta bases of the next walk) out of
			// the cache. A blob that is a delta takes the path below.
			p.mu.Unlock()
			content, err := inflateInto(body, size, takeBlobBuf(size))
			if err != nil {
				return 0, nil, false, err
			}
			return t, content, true, nil
		}
	}
	typ, content, err := p.resolve(idx, off, win)
	return typ, content, false, err
}

// resolve reads the object at off through the cache, applying the deltas
// of its chain. The caller holds p.mu, which resolve releases.
func (p *packReader) resolve(idx *packIndex, off int64, win *[]byte) (plumbing.ObjectType, []byte, error) {
	defer p.mu.Unlock()
	type pending struct {
		off   int64
		delta []byte
	}
	var chain []pending
	var typ plumbing.ObjectType
	var content []byte
	for {
		if len(chain) > maxDeltaChain {
			return 0, nil, fmt.Errorf("%w: delta chain longer than %d", errPackCorrupt, maxDeltaChain)
		}
		if c, ok := p.cache[off]; ok {
			typ, content = c.t, c.data
			break
		}
		t, size, body, err := p.entry(off, win)
		if err != nil {
			return 0, nil, err
		}
		switch t {
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			if content, err = inflateEntry(body, size); err != nil {
				return 0, nil, err
			}
			typ = t
			p.remember(off, t, content)
		case plumbing.OFSDeltaObject:
			back, n, err := offsetVarint(body)
			if err != nil {
				return 0, nil, err
			}
			if back <= 0 || back > off {
				return 0, nil, errPackCorrupt
			}
			delta, err := inflateEntry(body[n:], size)
			if err != nil {
				return 0, nil, err
			}
			chain = append(chain, pending{off, delta})
			off -= back
			continue
		case plumbing.REFDeltaObject:
			if len(body) < 20 {
				return 0, nil, errPackCorrupt
			}
			var base plumbing.Hash
			copy(base[:], body[:20])
			baseOff, err := idx.FindOffset(base)
			if err != nil {
				return 0, nil, err // a base in another pack: go-git reads it
			}
			delta, err := inflateEntry(body[20:], size)
			if err != nil {
				return 0, nil, err
			}
			chain = append(chain, pending{off, delta})
			off = baseOff
			continue
		default:
			return 0, nil, errPackCorrupt
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		out, err := packfile.PatchDelta(content, chain[i].delta)
		if err != nil {
			return 0, nil, err
		}
		content = out
		p.remember(chain[i].off, typ, content)
	}
	return typ, content, nil
}

// entryBufs hold the copies of entries that point reads make: a process
// collects no garbage before 64 MiB, so a buffer each read would be fresh
// pages, each a fault.
var entryBufs = sync.Pool{New: func() any { b := make([]byte, 4<<10); return &b }}

// maxPointEntry bounds what a point read copies of one entry; a longer one
// is read from the mapping.
const maxPointEntry = 1 << 20

// dropCache empties the cache of resolved objects.
func (p *packReader) dropCache() {
	p.mu.Lock()
	p.cache, p.cacheBytes = nil, 0
	p.mu.Unlock()
}

func (p *packReader) remember(off int64, t plumbing.ObjectType, data []byte) {
	if len(data) > packCacheBytes/16 {
		return
	}
	if p.cache == nil || p.cacheBytes+len(data) > packCacheBytes {
		p.cache, p.cacheBytes = map[int64]packCached{}, 0
	}
	p.cache[off] = packCached{t, data}
	p.cacheBytes += len(data)
}

// entry reads the header of the entry at off (its type and inflated size)
// and returns what follows it: the rest of the mapping, or with win (a
// point read) a copy made with pread that holds all of the entry if its
// zlib data is no longer than deflate makes it at worst (git writes it
// with zlib); inflateEntry refuses a copy that ends too soon.
func (p *packReader) entry(off int64, win *[]byte) (t plumbing.ObjectType, size int64, body []byte, err error) {
	if off < 12 || off >= int64(len(p.data)) {
		return 0, 0, nil, errPackCorrupt
	}
	e := p.data[off:]
	if win != nil {
		if e, err = p.copyAt(off, min(len(e), len(*win)), win); err != nil {
			return 0, 0, nil, err
		}
	}
	c := e[0]
	t = plumbing.ObjectType((c >> 4) & 7)
	size = int64(c & 15)
	shift := 4
	pos := 1
	for c&0x80 != 0 {
		if pos >= len(e) || shift > 56 {
			return 0, 0, nil, errPackCorrupt
		}
		c = e[pos]
		pos++
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	if win != nil {
		if size > maxPointEntry {
			return 0, 0, nil, errPackCorrupt // the mapping reads it
		}
		// The header, a delta's base (at most 20 bytes), then zlib data:
		// at most zlib's compressBound of the inflated size.
		need := int64(pos) + 20 + size + size>>12 + size>>14 + size>>25 + 13 + 6
		if need > maxPointEntry {
			return 0, 0, nil, errPackCorrupt // the mapping reads it
		}
		if need = min(need, int64(len(p.data))-off); need > int64(len(e)) {
			if e, err = p.copyAt(off, int(need), win); err != nil {
				return 0, 0, nil, err
			}
		}
	}
	return t, size, e[pos:], nil
}

// copyAt copies n bytes of the pack at off into *win (grown to hold them)
// with pread.
func (p *packReader) copyAt(off int64, n int, win *[]byte) ([]byte, error) {
	if cap(*win) < n {
		*win = make([]byte, n)
	}
	b := (*win)[:n]
	if _, err := p.file.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// offsetVarint reads an OFS_DELTA's distance back to its base at the
// start of b; n is the varint's length.
func offsetVarint(b []byte) (back int64, n int, err error) {
	if len(b) == 0 {
		return 0, 0, errPackCorrupt
	}
	c := b[0]
	n = 1
	back = int64(c & 0x7f)
	for c&0x80 != 0 {
		if n >= len(b) || back > 1<<55 {
			return 0, 0, errPackCorrupt
		}
		c = b[n]
		n++
		back = ((back + 1) << 7) | int64(c&0x7f)
	}
	return back, n, nil
}

// inflateEntry inflates the zlib data at the start of b, which must hold
// size bytes and end there.
func inflateEntry(b []byte, size int64) ([]byte, error) {
	return inflateInto(b, size, nil)
}

// inflateInto is inflateEntry into buf when it has room for size bytes.
func inflateInto(b []byte, size int64, buf []byte) ([]byte, error) {
	if len(b) == 0 || size < 0 || size > int64(len(b))*1032+64 {
		return nil, errPackCorrupt // deflate expands at most about 1032:1
	}
	zr, err := inflate(b)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(zr)
	var out []byte
	if int64(cap(buf)) >= size {
		out = buf[:size] // io.ReadFull below fills all of it, or fails
	} else {
		out = make([]byte, size)
	}
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("%w: %v", errPackCorrupt, err)
	}
	// The stream must end here, its checksum good (zlib checks it at EOF).
	var extra [1]byte
	if n, err := zr.Read(extra[:]); n > 0 || !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: inflated size or checksum does not match", errPackCorrupt)
	}
	return out, nil
}

// blobBufs hold the buffers whole blobs are inflated into. A full read
// (reindex, list --json) inflates every record once and decodes it into
// strings of its own: at 100,000 records a fresh buffer per blob was 170
// MB of garbage, a fifth of what a cold reindex allocated, and each its
// zeroing. Its decoders give each buffer back (recycleBlob) once decoded.
var blobBufs sync.Pool

// takeBlobBuf is a buffer with room for size bytes: one of blobBufs, or
// a new one rounded up to 4 KiB so that it fits most records after it.
// A blob larger than maxRecycledBlob gets nil (a buffer of its own).
func takeBlobBuf(size int64) []byte {
	if size < 0 || size > maxRecycledBlob {
		return nil
	}
	if p, ok := blobBufs.Get().(*[]byte); ok && int64(cap(*p)) >= size {
		return *p
	}
	return make([]byte, 0, (size+4095)&^4095)
}

// recycleBlob gives back a blob that a read owned (readOwned), once
// nothing holds it or any part of it: the next whole blob read may be
// inflated into it.
func recycleBlob(data []byte) {
	if cap(data) > 0 && cap(data) <= maxRecycledBlob {
		data = data[:0]
		blobBufs.Put(&data)
	}
}

// maxRecycledBlob bounds the buffers blobBufs keeps: a record is a few
// KiB, and a rare large blob should not stay live in a pool.
const maxRecycledBlob = 64 << 10
