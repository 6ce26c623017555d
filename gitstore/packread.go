package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

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

// read returns the type and content of the object at off; idx finds the
// bases of deltas that name theirs (REF_DELTA).
func (p *packReader) read(idx *packIndex, off int64) (plumbing.ObjectType, []byte, error) {
	p.mu.Lock()
	if _, ok := p.cache[off]; !ok {
		if t, size, pos, err := p.header(off); err == nil && t == plumbing.BlobObject {
			// A whole blob: inflated outside the lock and not cached,
			// so full reads inflate on every core at once and do not
			// push the trees (delta bases of the next walk) out of
			// the cache. A blob that is a delta takes the path below.
			p.mu.Unlock()
			content, err := p.inflate(pos, size)
			if err != nil {
				return 0, nil, err
			}
			return t, content, nil
		}
	}
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
		t, size, pos, err := p.header(off)
		if err != nil {
			return 0, nil, err
		}
		switch t {
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			if content, err = p.inflate(pos, size); err != nil {
				return 0, nil, err
			}
			typ = t
			p.remember(off, t, content)
		case plumbing.OFSDeltaObject:
			back, at, err := p.offsetVarint(pos)
			if err != nil {
				return 0, nil, err
			}
			if back <= 0 || back > off {
				return 0, nil, errPackCorrupt
			}
			delta, err := p.inflate(at, size)
			if err != nil {
				return 0, nil, err
			}
			chain = append(chain, pending{off, delta})
			off -= back
			continue
		case plumbing.REFDeltaObject:
			if pos+20 > int64(len(p.data)) {
				return 0, nil, errPackCorrupt
			}
			var base plumbing.Hash
			copy(base[:], p.data[pos:pos+20])
			baseOff, err := idx.FindOffset(base)
			if err != nil {
				return 0, nil, err // a base in another pack: go-git reads it
			}
			delta, err := p.inflate(pos+20, size)
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

// header reads an entry's type and inflated size; pos is where what
// follows the header starts.
func (p *packReader) header(off int64) (t plumbing.ObjectType, size, pos int64, err error) {
	if off < 12 || off >= int64(len(p.data)) {
		return 0, 0, 0, errPackCorrupt
	}
	c := p.data[off]
	t = plumbing.ObjectType((c >> 4) & 7)
	size = int64(c & 15)
	shift := 4
	pos = off + 1
	for c&0x80 != 0 {
		if pos >= int64(len(p.data)) || shift > 56 {
			return 0, 0, 0, errPackCorrupt
		}
		c = p.data[pos]
		pos++
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	return t, size, pos, nil
}

// offsetVarint reads an OFS_DELTA's distance back to its base.
func (p *packReader) offsetVarint(pos int64) (back, next int64, err error) {
	if pos >= int64(len(p.data)) {
		return 0, 0, errPackCorrupt
	}
	c := p.data[pos]
	pos++
	back = int64(c & 0x7f)
	for c&0x80 != 0 {
		if pos >= int64(len(p.data)) || back > 1<<55 {
			return 0, 0, errPackCorrupt
		}
		c = p.data[pos]
		pos++
		back = ((back + 1) << 7) | int64(c&0x7f)
	}
	return back, pos, nil
}

// inflate reads size bytes of zlib data at pos.
func (p *packReader) inflate(pos, size int64) ([]byte, error) {
	if pos >= int64(len(p.data)) || size < 0 || size > int64(len(p.data)-int(pos))*1032+64 {
		return nil, errPackCorrupt // deflate expands at most about 1032:1
	}
	zr, err := inflate(p.data[pos:])
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(zr)
	out := make([]byte, size)
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
