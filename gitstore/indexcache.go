package gitstore

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// The index cache is loaded by every process that resolves a handle or
// writes a record, and saved after every write, so its cost is paid per op:
// it must stay a small fraction of an op at tens of thousands of records.
// encoding/gob took 20–40 ms each way at 10,000 records (reflection, one
// allocation per string); this flat form loads in a few: strings are
// sliced from one copy of the file, and entries are stored sorted by id so
// that prefix lookups need no sort after a load.
//
//	magic, uvarint version, tip (20 bytes), uvarint count,
//	count entries in increasing id order, each:
//	  ID Type Category Title Status Kind Role Authority (strings),
//	  Tags, Aliases (uvarint n, n strings),
//	  CreatedAt, Expires (varints), Blob (20 bytes),
//	  Edges (uvarint n, n × Source Target Kind Label)
//
// A string is a uvarint length and its bytes. Anything that does not parse
// exactly (garbage, truncation, trailing bytes, ids out of order) is an
// error, and the caller rebuilds the index.
const indexMagic = "git-records index\x00"

// indexFile is the content of the cache.
type indexFile struct {
	Version int
	Tip     plumbing.Hash
	Entries []*IndexEntry
}

// The codec writes IndexEntry and Edge field by field: these conversions
// stop the build when a field is added to either, until the codec (and
// indexVersion) follow.
var (
	_ = indexEntryFields(IndexEntry{})
	_ = edgeFields(Edge{})
)

type indexEntryFields struct {
	ID, Type, Category, Title string
	Status                    kernel.Status
	Kind                      kernel.Kind
	Role                      kernel.Role
	Authority                 kernel.Authority
	Tags, Aliases             []string
	CreatedAt                 int64
	Expires                   int64
	Blob                      plumbing.Hash
	Edges                     []Edge
}

type edgeFields struct{ Source, Target, Kind, Label string }

func loadIndex(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	file, err := decodeIndexFile(data)
	if err != nil {
		return nil, err
	}
	ix := newIndex()
	ix.Tip = file.Tip
	ix.Entries = make(map[string]*IndexEntry, len(file.Entries))
	ix.sorted = make([]string, len(file.Entries))
	for i, e := range file.Entries {
		ix.Entries[e.ID] = e
		ix.sorted[i] = e.ID
		for _, a := range e.Aliases {
			ix.claimAlias(a, e.ID)
		}
	}
	return ix, nil
}

// save writes the cache atomically (temp file + rename): a reader sees the
// old cache or the new one, each valid for the tip it names.
func (ix *Index) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := writeAtomic(path, ix.encodeFile(), ".index-*"); err != nil {
		return err
	}
	return ix.saveHandles(handlesPath(path))
}

func (ix *Index) encodeFile() []byte {
	ids := ix.sorted
	if len(ids) != len(ix.Entries) {
		ids = make([]string, 0, len(ix.Entries))
		for id := range ix.Entries {
			ids = append(ids, id)
		}
		sort.Strings(ids)
	}
	buf := make([]byte, 0, 64+300*len(ids))
	buf = append(buf, indexMagic...)
	buf = binary.AppendUvarint(buf, indexVersion)
	buf = append(buf, ix.Tip[:]...)
	buf = binary.AppendUvarint(buf, uint64(len(ids)))
	str := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	strs := func(ss []string) {
		buf = binary.AppendUvarint(buf, uint64(len(ss)))
		for _, s := range ss {
			str(s)
		}
	}
	for _, id := range ids {
		e := ix.Entries[id]
		for _, s := range []string{e.ID, e.Type, e.Category, e.Title, string(e.Status), string(e.Kind), string(e.Role), string(e.Authority)} {
			str(s)
		}
		strs(e.Tags)
		strs(e.Aliases)
		buf = binary.AppendVarint(buf, e.CreatedAt)
		buf = binary.AppendVarint(buf, e.Expires)
		buf = append(buf, e.Blob[:]...)
		buf = binary.AppendUvarint(buf, uint64(len(e.Edges)))
		for _, ed := range e.Edges {
			str(ed.Source)
			str(ed.Target)
			str(ed.Kind)
			str(ed.Label)
		}
	}
	return buf
}

var errBadIndexCache = errors.New("index cache is not in this version's format")

func decodeIndexFile(data []byte) (*indexFile, error) {
	if len(data) < len(indexMagic) || string(data[:len(indexMagic)]) != indexMagic {
		return nil, errBadIndexCache
	}
	r := &cacheReader{b: data, s: string(data), pos: len(indexMagic)}
	if v := r.uint(); v != indexVersion || r.bad {
		return nil, errBadIndexCache
	}
	file := &indexFile{Version: indexVersion, Tip: r.hash()}
	n := r.count()
	file.Entries = make([]*IndexEntry, 0, n)
	// Entries, edges and string lists are carved out of a few large
	// allocations rather than tens of thousands of small ones: loading is
	// per op, and in a short-lived process the garbage collector's work
	// grows with the number of objects.
	entries := make([]IndexEntry, n)
	var edges []Edge
	var strs []string
	list := func() []string {
		m := r.count()
		if m == 0 {
			return nil
		}
		if len(strs) < m {
			strs = make([]string, max(m, 1024))
		}
		out := strs[:m:m]
		strs = strs[m:]
		for i := range out {
			out[i] = r.str()
		}
		return out
	}
	for i := 0; i < n && !r.bad; i++ {
		e := &entries[i]
		e.ID, e.Type, e.Category, e.Title = r.str(), r.str(), r.str(), r.str()
		e.Status, e.Kind, e.Role, e.Authority = kernel.Status(r.str()), kernel.Kind(r.str()), kernel.Role(r.str()), kernel.Authority(r.str())
		e.Tags = list()
		e.Aliases = list()
		e.CreatedAt = r.int()
		e.Expires = r.int()
		e.Blob = r.hash()
		if m := r.count(); m > 0 {
			if len(edges) < m {
				edges = make([]Edge, max(m, 1024))
			}
			e.Edges = edges[:m:m]
			edges = edges[m:]
			for j := range e.Edges {
				e.Edges[j] = Edge{Source: r.str(), Target: r.str(), Kind: r.str(), Label: r.str()}
			}
		}
		if i > 0 && e.ID <= file.Entries[i-1].ID {
			r.bad = true // out of order or duplicated
		}
		file.Entries = append(file.Entries, e)
	}
	if r.bad || r.pos != len(data) {
		return nil, errBadIndexCache
	}
	return file, nil
}

// cacheReader reads the cache; after the first error every read returns a
// zero value and bad stays set.
type cacheReader struct {
	b   []byte
	s   string // b as one string: strings are slices of it, not copies
	pos int
	bad bool
}

func (r *cacheReader) uint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.pos += n
	return v
}

func (r *cacheReader) int() int64 {
	if r.bad {
		return 0
	}
	v, n := binary.Varint(r.b[r.pos:])
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.pos += n
	return v
}

// count reads a length; every counted item takes at least one byte, so a
// count larger than what is left is garbage, not a reason to allocate.
func (r *cacheReader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)-r.pos) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *cacheReader) str() string {
	n := r.count()
	if r.bad {
		return ""
	}
	s := r.s[r.pos : r.pos+n]
	r.pos += n
	return s
}

func (r *cacheReader) hash() (h plumbing.Hash) {
	if r.bad || len(r.b)-r.pos < len(h) {
		r.bad = true
		return h
	}
	copy(h[:], r.b[r.pos:])
	r.pos += len(h)
	return h
}
