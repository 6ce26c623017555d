package gitstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/klauspost/compress/zlib"
)

// objectDir reads a repository's objects: loose files, then packs. It
// exists for the cost of a process's first read. go-git's storage decodes
// every entry of a pack's .idx into memory before it can find one object,
// which at 10,000 records is most of a CLI call; here a lookup is a binary
// search over the .idx as git's own format lays it out, so opening a store
// costs the same at any size. Objects come back in memory, read in full.
type objectDir struct {
	dir string // .../objects

	mu    sync.Mutex
	packs []*pack // listed on first need; nil until then
	// readers are the lookups going on in the packs they were given;
	// dropped are the packs a later listing no longer found (removed by a
	// repack), released once no lookup can be reading them. A long-lived
	// process whose packs are consolidated (consolidatePacks) would
	// otherwise keep a descriptor and two mappings per pack it ever read.
	readers int
	dropped []*pack
}

func newObjectDir(dir string) *objectDir { return &objectDir{dir: dir} }

// pack is one packfile with its lazily searched index.
type pack struct {
	idx    *packIndex
	reader *packReader // nil when the pack could not be mapped
	// file is the .pack, opened with its index so that a repack removing
	// it later cannot take it away; data is go-git's reader over it, made
	// on first use (goGit): our reader takes nearly every object, and
	// making go-git's (its scanner, buffers and cache) cost every process
	// ~0.4 ms and 8 page faults for nothing.
	file *os.File
	data *packfile.Packfile
	mu   sync.Mutex // guards data: a go-git Packfile is not safe for concurrent reads
}

// goGit is go-git's reader of the pack, under p.mu.
func (p *pack) goGit() *packfile.Packfile {
	if p.data == nil {
		// No filesystem: go-git then returns objects in memory rather
		// than handles that reopen the pack by name later.
		p.data = packfile.NewPackfile(p.idx, nil, billyFile{p.file}, 0)
	}
	return p.data
}

// billyFile is the *os.File go-git's pack reader reads, as a billy.File.
// It only reads and seeks; the locks are for writers of a billy
// filesystem.
type billyFile struct{ *os.File }

func (billyFile) Lock() error   { return nil }
func (billyFile) Unlock() error { return nil }

func (d *objectDir) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	// The packs known first (a search in a mapped index, where a loose
	// lookup costs a failed open for every packed object), then loose
	// objects, then packs written since they were listed.
	o, err := d.packed(h, false)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		o, err = d.loose(h)
		if errors.Is(err, os.ErrNotExist) {
			o, err = d.packed(h, true)
		}
	}
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && o.Type() != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return o, nil
}

func (d *objectDir) HasEncodedObject(h plumbing.Hash) error {
	_, err := d.EncodedObject(plumbing.AnyObject, h)
	return err
}

func (d *objectDir) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	o, err := d.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, err
	}
	return o.Size(), nil
}

// loose reads objects/xx/yyyy…: zlib over "<type> <size>\0<content>".
// The file is read whole and inflated into a buffer of the size its header
// gives, with a zlib reader reused across reads: a walk over a range reads
// thousands of small loose objects, and a fresh inflater per object cost
// more than the object.
func (d *objectDir) loose(h plumbing.Hash) (plumbing.EncodedObject, error) {
	hex := h.String()
	compressed, err := os.ReadFile(filepath.Join(d.dir, hex[:2], hex[2:]))
	if err != nil {
		return nil, err
	}
	zr, err := inflate(compressed)
	if err != nil {
		return nil, fmt.Errorf("loose object %s: %w", hex, err)
	}
	defer inflaters.Put(zr)
	var head [32]byte
	n, err := io.ReadFull(zr, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("loose object %s: %w", hex, err)
	}
	nul := bytes.IndexByte(head[:n], 0)
	typ, size, ok := strings.Cut(string(head[:max(nul, 0)]), " ")
	if nul < 0 || !ok {
		return nil, fmt.Errorf("loose object %s: bad header", hex)
	}
	ot, err := plumbing.ParseObjectType(typ)
	if err != nil {
		return nil, fmt.Errorf("loose object %s: %w", hex, err)
	}
	want, err := strconv.ParseInt(size, 10, 64)
	if err != nil || want < 0 || want > int64(len(compressed))*1032+int64(n) {
		// Deflate expands at most about 1032:1: a larger header lies.
		return nil, fmt.Errorf("loose object %s: size does not match its header", hex)
	}
	content := make([]byte, want)
	got := copy(content, head[nul+1:n])
	if got < len(content) {
		m, err := io.ReadFull(zr, content[got:])
		got += m
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("loose object %s: %w", hex, err)
		}
	}
	// The stream must end here, its checksum good (zlib checks it at EOF).
	var extra [1]byte
	m, err := zr.Read(extra[:])
	if int64(got) != want || m > 0 || int64(n-nul-1) > want {
		return nil, fmt.Errorf("loose object %s: size does not match its header", hex)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("loose object %s: %w", hex, err)
	}
	return &storedObject{h: h, t: ot, data: content}, nil
}

// inflaters are zlib readers kept for reuse (zlib.Resetter).
var inflaters sync.Pool

func inflate(data []byte) (io.ReadCloser, error) {
	if zr, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(bytes.NewReader(data), nil); err != nil {
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(bytes.NewReader(data))
}

// packed finds h in the packs, listed again first with relist (for a pack
// written since they were listed).
func (d *objectDir) packed(h plumbing.Hash, relist bool) (plumbing.EncodedObject, error) {
	packs, err := d.listPacks(relist)
	if err != nil {
		return nil, err
	}
	defer d.doneReading()
	for _, p := range packs {
		off, err := p.idx.FindOffset(h)
		if err != nil {
			continue
		}
		if p.reader != nil {
			if t, data, owned, err := p.reader.readOwned(p.idx, off); err == nil {
				return &storedObject{h: h, t: t, data: data, owned: owned}, nil
			}
			// Anything the pack reader does not take (a base in
			// another pack, damage), go-git reads or refuses.
		}
		p.mu.Lock()
		o, err := p.goGit().Get(h)
		if err == nil {
			o, err = inMemory(o)
		}
		p.mu.Unlock()
		return o, err
	}
	return nil, plumbing.ErrObjectNotFound
}

func inMemory(o plumbing.EncodedObject) (plumbing.EncodedObject, error) {
	switch o.(type) {
	case *plumbing.MemoryObject, *storedObject:
		return o, nil
	}
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m := &plumbing.MemoryObject{}
	m.SetType(o.Type())
	_, err = io.Copy(m, r)
	return m, err
}

// listPacks lists the packs (again with relist) for one lookup, which
// calls doneReading when it no longer reads them.
func (d *objectDir) listPacks(relist bool) ([]*pack, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.packs != nil && !relist {
		d.readers++
		return d.packs, nil
	}
	have := map[string]*pack{}
	for _, p := range d.packs {
		have[p.idx.path] = p
	}
	packs, err := d.scanPacks(have)
	if err != nil {
		return nil, err
	}
	listed := map[*pack]bool{}
	for _, p := range packs {
		listed[p] = true
	}
	for _, p := range d.packs {
		if !listed[p] {
			d.dropped = append(d.dropped, p)
		}
	}
	d.packs = packs
	d.readers++
	return packs, nil
}

// packListings bounds how often scanPacks lists a directory that keeps
// changing under it.
const packListings = 8

// scanPacks lists and opens the packs, again while the listing was not
// consistent. A repack (git's, or this store's consolidatePacks in another
// process) writes the new pack first and then removes the packs it
// replaced: a listing taken just before the new pack appeared names a
// pack whose files are gone by the time it is opened, and readdir running
// while the directory changes may miss an entry either way. Either would
// make an object that is there look missing ("object not found" for a
// commit another process just wrote). have holds the packs already open,
// by .idx path; it gains the ones opened here, and the ones a later
// listing no longer names are released, never having been published.
func (d *objectDir) scanPacks(have map[string]*pack) ([]*pack, error) {
	known := map[*pack]bool{}
	for _, p := range have {
		known[p] = true
	}
	dir := filepath.Join(d.dir, "pack")
	var packs []*pack
	for attempt := 1; ; attempt++ {
		before, _ := os.Stat(dir)
		names, err := filepath.Glob(filepath.Join(dir, "pack-*.idx"))
		if err != nil {
			return nil, err
		}
		vanished := false
		packs = make([]*pack, 0, len(names))
		for _, name := range names {
			p := have[name]
			if p == nil {
				if p, err = openPack(name); err != nil {
					// Gone since the listing: removed by a repack. Any
					// other failure (a damaged index) a new listing would
					// not mend; the pack is left out, as before.
					vanished = vanished || errors.Is(err, os.ErrNotExist)
					continue
				}
				have[name] = p
			}
			packs = append(packs, p)
		}
		after, _ := os.Stat(dir)
		same := (before == nil) == (after == nil) && (before == nil || before.ModTime().Equal(after.ModTime()))
		if (!vanished && same) || attempt == packListings {
			break
		}
	}
	listed := map[*pack]bool{}
	for _, p := range packs {
		listed[p] = true
	}
	for _, p := range have {
		if !listed[p] && !known[p] {
			p.release()
		}
	}
	return packs, nil
}

// openPack opens the pack whose index is at name.
func openPack(name string) (*pack, error) {
	idx, err := openPackIndex(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(strings.TrimSuffix(name, ".idx") + ".pack")
	if err != nil {
		idx.release()
		return nil, err
	}
	p := &pack{idx: idx, file: f}
	if mapsPacks {
		if mapped, file, err := mapIndexFile(strings.TrimSuffix(name, ".idx") + ".pack"); err == nil && len(mapped) > 12 {
			p.reader = &packReader{data: mapped, file: keepForPointReads(mapped, file)}
		} else if err == nil {
			if mapped != nil {
				releaseIndexFile(mapped)
			}
			if file != nil {
				_ = file.Close()
			}
		}
	}
	return p, nil
}

// doneReading ends a lookup listPacks counted, releasing the dropped packs
// when it was the last.
func (d *objectDir) doneReading() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.readers--; d.readers > 0 {
		return
	}
	for _, p := range d.dropped {
		p.release()
	}
	d.dropped = nil
}

// release unmaps and closes a pack no lookup reads any more.
func (p *pack) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data != nil {
		_ = p.data.Close() // closes p.file
	} else {
		_ = p.file.Close()
	}
	if p.reader != nil {
		releaseIndexFile(p.reader.data)
		if p.reader.file != nil {
			_ = p.reader.file.Close()
		}
	}
	p.idx.release()
}

// packIndex searches a version 2 .idx file in place: a 256-entry fan-out
// table, then the sorted object names, their CRCs, 32-bit offsets and the
// 64-bit offsets that do not fit (git's gitformat-pack(5)).
type packIndex struct {
	path  string
	data  []byte
	count int
	// file is the .idx the mapping was made from (nil: none kept), for
	// the first pointLookups lookups, which copy what they read with
	// pread; lookups counts them.
	file    *os.File
	lookups atomic.Int32
}

// pointLookups is how many lookups in a pack index copy the names of one
// fan-out bucket and the offset found with pread before lookups read the
// mapping. A lookup through the mapping faults in a page of names and one
// of offsets (with the kernel's fault-around, 64 KiB each) at places no
// other lookup shares until thousands have been made: at 100,000 records
// (a 4.5 MB .idx) those faults were four fifths of the page faults of an
// incremental index update, and each costs tens of microseconds here
// where a pread of the 12 KB bucket costs a few. A full read makes
// hundreds of thousands of lookups, which a warm mapping serves best.
const pointLookups = 512

var idxMagic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

func openPackIndex(path string) (*packIndex, error) {
	data, f, err := mapIndexFile(path)
	if err != nil {
		return nil, err
	}
	x := &packIndex{path: path, data: data, file: keepForPointReads(data, f)}
	if len(data) < 8+1024+40 || !bytes.Equal(data[:8], idxMagic) {
		x.release()
		return nil, fmt.Errorf("%s: not a version 2 pack index", path)
	}
	x.count = int(binary.BigEndian.Uint32(data[8+255*4:]))
	if len(data) < 8+1024+x.count*(20+4+4)+40 {
		x.release()
		return nil, fmt.Errorf("%s: truncated pack index", path)
	}
	return x, nil
}

// pointReadsFrom is the size from which a pack or its index is read by
// pread at first (pointLookups, pointReads): a smaller file is mapped in a
// few faults of 64 KiB that every later read shares, and a pread per read
// would cost more than they do.
const pointReadsFrom = 1 << 20

// keepForPointReads returns f when the file it maps as data is large
// enough to be read by pread at first, else closes it and returns nil.
func keepForPointReads(data []byte, f *os.File) *os.File {
	if f != nil && len(data) < pointReadsFrom {
		_ = f.Close()
		return nil
	}
	return f
}

// release unmaps the index and closes its file; nothing may read it after.
func (x *packIndex) release() {
	if x.data != nil {
		releaseIndexFile(x.data)
	}
	if x.file != nil {
		_ = x.file.Close()
	}
}

func (x *packIndex) fanout(b int) int {
	if b < 0 {
		return 0
	}
	return int(binary.BigEndian.Uint32(x.data[8+b*4:]))
}

func (x *packIndex) name(i int) []byte { return x.data[8+1024+i*20 : 8+1024+i*20+20] }

// find returns the position of h in the sorted names, or -1; point is
// true when the lookup is one of the first pointLookups, which read the
// file rather than the mapping.
func (x *packIndex) find(h plumbing.Hash) (i int, point bool) {
	lo, hi := x.fanout(int(h[0])-1), x.fanout(int(h[0]))
	if x.file != nil && x.lookups.Load() < pointLookups && x.lookups.Add(1) <= pointLookups {
		if i, ok := x.findByRead(h, lo, hi); ok {
			return i, true
		}
	}
	for lo < hi {
		mid := (lo + hi) / 2
		switch c := bytes.Compare(x.name(mid), h[:]); {
		case c == 0:
			return mid, false
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1, false
}

// bucketBufs hold the names of one fan-out bucket that findByRead reads:
// a process collects no garbage before 64 MiB, so a buffer each lookup
// would be fresh pages, each a fault.
var bucketBufs sync.Pool

// findByRead is find's search in names lo to hi, copied with one pread;
// ok false when they cannot be read (the mapping's search answers then).
func (x *packIndex) findByRead(h plumbing.Hash, lo, hi int) (i int, ok bool) {
	if lo < 0 || lo > hi || hi > x.count {
		return -1, false
	}
	n := (hi - lo) * 20
	bp, _ := bucketBufs.Get().(*[]byte)
	if bp == nil || cap(*bp) < n {
		bp = new([]byte)
		*bp = make([]byte, max(n, 16<<10))
	}
	defer bucketBufs.Put(bp)
	names := (*bp)[:n]
	if _, err := x.file.ReadAt(names, int64(8+1024+lo*20)); err != nil {
		return -1, false
	}
	j, found := sort.Find(hi-lo, func(k int) int { return bytes.Compare(h[:], names[k*20:k*20+20]) })
	if !found {
		return -1, true
	}
	return lo + j, true
}

// at reads n bytes at off of the index: by pread for a point lookup (a
// slice of buf), else from the mapping. ok false when they cannot be read.
func (x *packIndex) at(off, n int, point bool, buf []byte) ([]byte, bool) {
	if off < 0 || off+n > len(x.data) {
		return nil, false
	}
	if point {
		if _, err := x.file.ReadAt(buf[:n], int64(off)); err == nil {
			return buf[:n], true
		}
	}
	return x.data[off : off+n], true
}

func (x *packIndex) Contains(h plumbing.Hash) (bool, error) {
	i, _ := x.find(h)
	return i >= 0, nil
}

func (x *packIndex) FindOffset(h plumbing.Hash) (int64, error) {
	i, point := x.find(h)
	if i < 0 {
		return 0, plumbing.ErrObjectNotFound
	}
	var buf [8]byte
	base := 8 + 1024 + x.count*24
	b, ok := x.at(base+i*4, 4, point, buf[:])
	if !ok {
		return 0, fmt.Errorf("%s: bad fan-out table", x.path)
	}
	off := binary.BigEndian.Uint32(b)
	if off&0x80000000 == 0 {
		return int64(off), nil
	}
	b, ok = x.at(base+x.count*4+int(off&0x7fffffff)*8, 8, point, buf[:])
	if !ok {
		return 0, fmt.Errorf("%s: bad 64-bit offset", x.path)
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

func (x *packIndex) FindCRC32(h plumbing.Hash) (uint32, error) {
	i, _ := x.find(h)
	if i < 0 {
		return 0, plumbing.ErrObjectNotFound
	}
	return binary.BigEndian.Uint32(x.data[8+1024+x.count*20+i*4:]), nil
}

// FindHash is asked only for the base of an offset delta, as the key its
// decoded content is cached under. Finding the real name would need the
// reverse index that makes go-git's open slow; a name made from the offset
// is as good a key, and no real object can have it in practice.
func (x *packIndex) FindHash(o int64) (plumbing.Hash, error) {
	var h plumbing.Hash
	copy(h[:], "offset-key:")
	binary.BigEndian.PutUint64(h[12:], uint64(o))
	return h, nil
}

func (x *packIndex) Count() (int64, error) { return int64(x.count), nil }

var errNoIteration = errors.New("gitstore: pack index iteration is not supported")

func (x *packIndex) Entries() (idxfile.EntryIter, error)         { return nil, errNoIteration }
func (x *packIndex) EntriesByOffset() (idxfile.EntryIter, error) { return nil, errNoIteration }
