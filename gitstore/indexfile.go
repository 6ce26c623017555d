package gitstore

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// The base index file is a set of sorted tables read in place from a
// memory-mapped file: a lookup binary-searches a table and touches the few
// pages it reads, so `show <alias>` or `links <id>` costs the same at
// 100,000 records as at 1,000, and no process decodes the whole index.
//
//	magic, version u32, tip [20], fileCRC u32, size u64,
//	tableCount × (offset u64, length u64, rows u32), headerCRC u32 (of all before it)
//	tables…
//
// A table is n u32, n row offsets (u32, from the table's start), then the
// rows; a reader takes n from the header (checked by its CRC), so that
// opening a base touches the header's page and no table's; a row is a uvarint length, its payload and the CRC-32C of the
// payload. Every row read checks its bounds and its CRC, so a corrupt file
// is detected where it is read (and rebuilt), never believed: a flipped
// byte cannot make a lookup answer wrongly, at worst not at all, and the
// answers themselves come from checksummed entry rows. fileCRC covers the
// whole file after the header; reindex checks it.
const (
	indexMagic   = "git-records index\x00"
	indexVersion = 7
)

// The tables, in file order. Pair tables hold (key, id) rows sorted by key
// then id; the targets and sources tables key link ends as written (an id,
// an alias or a prefix), so that a new record or alias changes which rows
// resolve to it without rewriting any of them.
const (
	tabEntries    = iota // entry rows (see appendEntry), sorted by id
	tabByCreated         // u32 entry row numbers in list order (created, then id)
	tabAliases           // (alias, id)
	tabCategory          // (category, id)
	tabType              // (type, id)
	tabTag               // (tag, id)
	tabTargets           // edge rows (see appendEdgeRow), keyed by link target as written: every edge
	tabSources           // (relation from as written, holder id): relation records' edges
	tabSupersedes        // (target as written, holder id): the edges of kind supersedes
	tabIDs               // row i is the id of entry row i: what a search by id reads
	tableCount
)

// pairTablesEnd ends the tables of pair rows (and edge rows) that follow
// tabAliases: each is sorted and merged on its own, where tabIDs follows
// the entries.
const pairTablesEnd = tabIDs

const indexHeaderSize = len(indexMagic) + 4 + 20 + 4 + 8 + tableCount*dirEntrySize + 4

// dirEntrySize is a table's entry in the header: offset, length, rows.
const dirEntrySize = 8 + 8 + 4

// castagnoli is built on first use: with SSE 4.2 hash/crc32 builds its
// tables for long inputs then, 1% of a process that reads no index
// (--version, help).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// castagnoliBytes is CRC-32C's 256-entry byte table, built in microseconds.
// hash/crc32's MakeTable(Castagnoli) builds its SSE 4.2 tables for long
// inputs, 0.3-0.7 ms, more than a point read (show, links) checksums in
// all: its header and a few dozen rows of under 1 KiB. So the first
// bytewiseBudget bytes a process checksums in pieces of at most
// bytewiseMax go byte by byte; past that, or for a longer piece (a whole
// file, reindex), hash/crc32's tables are built and used. Both give the
// same sum (TestChecksumBytewiseIsCRC32C).
var castagnoliBytes = sync.OnceValue(func() *[256]uint32 {
	var t [256]uint32
	for i := range t {
		c := uint32(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ crc32.Castagnoli
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return &t
})

const (
	bytewiseMax    = 4 << 10
	bytewiseBudget = 64 << 10
)

// bytewiseSpent counts the bytes checksummed byte by byte. Racing adds
// can only let a few pieces more through; the sum is the same either way.
var bytewiseSpent atomic.Int64

func checksum(b []byte) uint32 {
	if len(b) <= bytewiseMax && bytewiseSpent.Load() < bytewiseBudget {
		bytewiseSpent.Add(int64(len(b)))
		return checksumBytewise(b)
	}
	return crc32.Checksum(b, castagnoli())
}

func checksumBytewise(b []byte) uint32 {
	t := castagnoliBytes()
	crc := ^uint32(0)
	for _, c := range b {
		crc = t[byte(crc)^c] ^ crc>>8
	}
	return ^crc
}

// errCorruptIndex is what a read of a damaged index file panics with;
// Index.guard recovers it and rebuilds from the branch.
var errCorruptIndex = errors.New("index file is damaged")

func corrupt() { panic(errCorruptIndex) }

// baseFile is an opened base index: its bytes (mapped, or built in memory)
// and its tables.
type baseFile struct {
	data    []byte
	file    *os.File // the file data maps, for pointRow; nil for a base built in memory
	tip     plumbing.Hash
	fileCRC uint32
	tables  [tableCount]table
	written tempFile // the file a rebuild wrote data to, until saved or dropped
}

// tempFile is the path of a base file a rebuild wrote beside the index
// and mapped, until saveIndex renames it into place or it is removed.
type tempFile struct {
	mu   sync.Mutex
	path string
}

// take returns the path and forgets it: one caller renames or removes it.
func (t *tempFile) take() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.path
	t.path = ""
	return p
}

// drop removes the file unless it has been taken.
func (t *tempFile) drop() {
	if p := t.take(); p != "" {
		_ = os.Remove(p)
	}
}

type table struct {
	data []byte // from the row count to the table's end
	n    int
	off  int64    // of data in the file
	file *os.File // the file data maps, for point reads; nil for a base built in memory
	// points counts the searches of the base's tables that read their
	// probes with pread, shared by them all: past pointSearches they read
	// the mapping (see pointing).
	points *atomic.Int32
	// recent remembers this table's last answers, for a mapped base
	// (nil in memory, where a second search costs what a lookup in it
	// would).
	recent *recentReads
}

// recentReads remembers a table's last few search answers (key to row)
// and point rows (row to payload). One command asks for the same rows
// many times: a show at 100,000 records searched the ids table 9 times for
// the record shown (resolving the handle, reading it, its links, the
// titles of its links' ends), read its entry row 5 times and its rows of
// the targets table up to 6 times, about 400 of its ~570 preads. An answer
// is what the search, with its checked ends, or the checked read gave the
// first time: the base's bytes do not change while it is open (a rebuild
// writes a new file), so a second search or read could not answer
// otherwise. Payloads are read-only to every caller, as a base in memory
// shares its rows.
//
// A table is always searched with the same keyOf (pairKey, or idKey for
// the ids), so a key alone names an answer. Lookups are lock-free (a base
// is read by many goroutines at once). Only the first recentStores
// answers of a base are kept, and once they are the memory is no longer
// asked: a listing or a reindex, which looks up thousands of different
// keys and rarely one twice, then pays one atomic load a lookup.
type recentReads struct {
	searches         [16]atomic.Pointer[recentSearch]
	rows             [16]atomic.Pointer[recentRow]
	nextSearch, next atomic.Uint32 // where the next answer of each kind goes
	stores           *atomic.Int32 // shared by the base's tables
}

type recentSearch struct {
	key string
	row int
}

type recentRow struct {
	row     int
	payload []byte
}

// recentStores bounds how many answers a base's tables remember.
const recentStores = 128

// live reports whether the base's tables still remember and are asked.
func (r *recentReads) live() bool { return r.stores.Load() < recentStores }

// slot is where the next answer goes (the oldest of its kind is
// replaced), -1 when the base's budget is spent.
func (r *recentReads) slot(next *atomic.Uint32) int {
	if r.stores.Load() >= recentStores || r.stores.Add(1) > recentStores {
		return -1
	}
	return int(next.Add(1) % 16)
}

// search is the remembered answer of a search for key.
func (r *recentReads) search(key []byte) (int, bool) {
	for i := range r.searches {
		if e := r.searches[i].Load(); e != nil && e.key == string(key) {
			return e.row, true
		}
	}
	return 0, false
}

func (r *recentReads) keepSearch(key []byte, row int) {
	if i := r.slot(&r.nextSearch); i >= 0 {
		r.searches[i].Store(&recentSearch{string(key), row})
	}
}

// row is the remembered payload of row i, nil when none.
func (r *recentReads) row(i int) []byte {
	for j := range r.rows {
		if e := r.rows[j].Load(); e != nil && e.row == i {
			return e.payload
		}
	}
	return nil
}

func (r *recentReads) keepRow(i int, p []byte) {
	if j := r.slot(&r.next); j >= 0 {
		r.rows[j].Store(&recentRow{i, p})
	}
}

// pointSearches is how many searches of a mapped base read their probes
// (and the two rows an answer rests on) with pread before searches read
// the mapping, as pointReads and pointLookups bound the pread reads of a
// pack and its index. A search by pread costs ~34 reads at 100,000
// records, where through the mapping the first probes of every search
// land on the same few pages: a show or a record's links (one search per
// handle and per linked record's title, a dozen or two) gains, but a
// listing that looks up 600 records' titles took 2x its time and a cold
// reindex, one or more searches per record, made 4.1 million preads and
// took 2.4x its time without this bound.
const pointSearches = 32

// pointing reports whether this search reads with pread: the table has a
// file and the base's budget of such searches is not spent.
func (t *table) pointing() bool {
	return t.file != nil && t.points.Load() < pointSearches && t.points.Add(1) <= pointSearches
}

// openBase checks what can be checked in constant time: magic, version,
// header checksum, exact size, table bounds. Rows are checked as read.
func openBase(data []byte) (*baseFile, error) {
	if len(data) < indexHeaderSize || string(data[:len(indexMagic)]) != indexMagic {
		return nil, errBadIndexFile
	}
	h := data[len(indexMagic):]
	if binary.LittleEndian.Uint32(h) != indexVersion {
		return nil, errBadIndexFile
	}
	if checksum(data[:indexHeaderSize-4]) != binary.LittleEndian.Uint32(data[indexHeaderSize-4:]) {
		return nil, errBadIndexFile
	}
	b := &baseFile{data: data}
	copy(b.tip[:], h[4:24])
	b.fileCRC = binary.LittleEndian.Uint32(h[24:])
	if binary.LittleEndian.Uint64(h[28:]) != uint64(len(data)) {
		return nil, errBadIndexFile // truncated, or bytes appended
	}
	dir := h[36:]
	for i := range b.tables {
		d := dir[dirEntrySize*i:]
		off, n, rows := binary.LittleEndian.Uint64(d), binary.LittleEndian.Uint64(d[8:]), binary.LittleEndian.Uint32(d[16:])
		if off < uint64(indexHeaderSize) || off > uint64(len(data)) || n > uint64(len(data))-off || n < 4 {
			return nil, errBadIndexFile
		}
		// The row count from the header, not from the table's first bytes:
		// reading those faulted in a page of each table (with the large
		// folios of a file written in big pieces, more than a page), 0.8 ms
		// of every process that opens the base at 100,000 records.
		t := table{data: data[off : off+n], off: int64(off), n: int(rows)}
		if uint64(t.n) > (n-4)/4 || t.n == 0 && n != 4 {
			return nil, errBadIndexFile
		}
		b.tables[i] = t
	}
	if b.tables[tabIDs].n != b.tables[tabEntries].n {
		return nil, errBadIndexFile
	}
	return b, nil
}

var errBadIndexFile = errors.New("index file is not in this version's format")

// setFile names the file b's bytes map, for the point reads of its tables.
func (b *baseFile) setFile(f *os.File) {
	b.file = f
	points, stores := new(atomic.Int32), new(atomic.Int32)
	for i := range b.tables {
		b.tables[i].file, b.tables[i].points = f, points
		b.tables[i].recent = &recentReads{stores: stores}
	}
}

// verify checks the whole file's checksum (reindex does; reads do not).
func (b *baseFile) verify() bool {
	return checksum(b.data[indexHeaderSize:]) == b.fileCRC
}

// row returns the payload of row i, checked.
func (t *table) row(i int) []byte {
	p, sum := t.rawRow(i)
	if checksum(p) != sum {
		corrupt()
	}
	return p
}

// rawRow returns the payload of row i and the checksum stored with it,
// bounds checked but not the checksum: search's probes read rows this way.
func (t *table) rawRow(i int) ([]byte, uint32) {
	if i < 0 || i >= t.n {
		corrupt()
	}
	// Rows are written end to end after the offsets: the first starts
	// right after them, each ends where the next starts and the last ends
	// the table. A row count (in the header, covered by its CRC alone)
	// that says fewer rows than the table holds fails one or the other,
	// where it would hide rows; an offset edited to point at another row
	// (whose checksum holds) or into the table's last bytes fails them too.
	off, end := int(binary.LittleEndian.Uint32(t.data[4+4*i:])), len(t.data)
	if i+1 < t.n {
		end = int(binary.LittleEndian.Uint32(t.data[8+4*i:]))
	}
	if off < 4+4*t.n || end > len(t.data) || i == 0 && off != 4+4*t.n || end-off < 5 {
		corrupt()
	}
	n, k := binary.Uvarint(t.data[off:end])
	if k <= 0 || end-off-k < 4 || n != uint64(end-off-k-4) {
		corrupt()
	}
	return t.data[off+k : end-4], binary.LittleEndian.Uint32(t.data[end-4:])
}

// pair splits a pair row into key and id (both still in the file's bytes).
func pair(p []byte) (key, id []byte) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		corrupt()
	}
	return p[k : k+int(n)], p[k+int(n):]
}

// search returns the first row whose key is not less than key; keyOf
// extracts a row's sort key. Its probes do not check their rows' checksums
// (a search touches 17 rows at 100,000 records, and checksumming them was
// a third of a lookup); it checks the two rows it ends between instead.
// Those two are intact and the table was written sorted, so key falling
// between them proves the answer whatever a damaged probe did on the way;
// a probe misled by a flipped byte ends elsewhere and is caught here.
//
// From a mapped file the probes and the two rows are read with pread, not
// through the mapping: each probe lands on its own page of the offsets and
// of the rows, and on this VM a fault in a mapped file costs 33-300 us
// where a pread of a few bytes costs 3-17. A show at 100,000 records took
// about 30 faults in its searches.
func (t *table) search(key []byte, keyOf func([]byte) []byte) int {
	live := t.recent != nil && t.recent.live()
	if live {
		if lo, ok := t.recent.search(key); ok {
			return lo
		}
	}
	var r *probeReader
	ends := t.row // the two rows the answer rests on
	if t.pointing() {
		r, ends = &probeReader{t: t}, t.point
	}
	lo, hi := 0, t.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		var p []byte
		if r != nil {
			p = r.row(m)
		} else {
			p, _ = t.rawRow(m)
		}
		if bytes.Compare(keyOf(p), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo > 0 && bytes.Compare(keyOf(ends(lo-1)), key) >= 0 {
		corrupt()
	}
	if lo < t.n && bytes.Compare(keyOf(ends(lo)), key) < 0 {
		corrupt()
	}
	if live {
		t.recent.keepSearch(key, lo)
	}
	return lo
}

// probeReader reads a search's probes with pread, into one buffer: each
// row is bounds checked as rawRow checks it, and (as there) not
// checksummed.
type probeReader struct {
	t   *table
	arr [256]byte
	buf []byte
}

// row is rawRow(i)'s payload, read with pread and checked as rawRow
// checks it; valid until the next call.
func (r *probeReader) row(i int) []byte {
	if r.buf == nil {
		r.buf = r.arr[:]
	}
	p, _ := r.t.preadRow(i, &r.buf)
	return p
}

// preadRow reads row i with pread into *buf (grown when short) and
// returns its payload and stored checksum, checked as rawRow checks them:
// the offsets in bounds, row i ending where row i+1 starts (the last one
// at the table's end), the length prefix filling the row. The checksum is
// the caller's to check.
func (t *table) preadRow(i int, buf *[]byte) (payload, sum []byte) {
	if i < 0 || i >= t.n {
		corrupt()
	}
	var ob [8]byte
	o := ob[:min(8, 4*(t.n-i))]
	if _, err := t.file.ReadAt(o, t.off+4+4*int64(i)); err != nil {
		corrupt() // cut short under us, or unreadable: rebuild
	}
	off, end := int(binary.LittleEndian.Uint32(o)), len(t.data)
	if i+1 < t.n {
		end = int(binary.LittleEndian.Uint32(o[4:]))
	}
	if off < 4+4*t.n || end > len(t.data) || i == 0 && off != 4+4*t.n || end-off < 5 {
		corrupt()
	}
	if cap(*buf) < end-off {
		*buf = make([]byte, end-off)
	}
	b := (*buf)[:end-off]
	if _, err := t.file.ReadAt(b, t.off+int64(off)); err != nil {
		corrupt()
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || end-off-k < 4 || n != uint64(end-off-k-4) {
		corrupt()
	}
	return b[k : len(b)-4], b[len(b)-4:]
}

func pairKey(p []byte) []byte { k, _ := pair(p); return k }

// entryID reads the id at the start of an entry row.
func entryID(p []byte) []byte {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		corrupt()
	}
	return p[k : k+int(n)]
}

// ids returns the ids of the pair rows whose key is exactly key.
func (t *table) ids(key string) []string {
	var out []string
	t.scanKeys([]byte(key), func(k []byte) bool { return string(k) == key }, func(_, id []byte) { out = append(out, string(id)) })
	return out
}

// scanKeys calls fn for each pair row from the first key ≥ from while
// in(key) holds.
func (t *table) scanKeys(from []byte, in func([]byte) bool, fn func(key, id []byte)) {
	first := t.search(from, pairKey)
	for i := first; i < t.n; i++ {
		k, id := pair(t.near(i, first))
		if !in(k) {
			return
		}
		fn(k, id)
	}
}

// idKey is the sort key of an ids row: the row itself.
func idKey(p []byte) []byte { return p }

// entryRow finds the entry row of id, -1 when absent, searching the ids
// table: the entry row itself is not read. The row the search ended on is
// read again as near reads it: by pread while searches are, else through
// the mapping the search has just read it from (a cold reindex resolves
// every link end this way, and two preads each were 212,848 system calls
// at 100,000 records).
func (b *baseFile) entryRow(id string) int {
	t := &b.tables[tabIDs]
	i := t.search([]byte(id), idKey)
	if i < t.n && string(t.near(i, i)) == id {
		return i
	}
	return -1
}

// nearRows is how many rows from a search's answer a scan reads as point
// reads, before it reads the rest through the mapping: most scans (a
// record's few links, a prefix's one id) end there.
const nearRows = 4

// near is row i of a scan that began at row first. Once the base's
// searches read the mapping (pointSearches), the search that found first
// has faulted in the pages around it, and its scan reads them too.
func (t *table) near(i, first int) []byte {
	if i-first < nearRows && t.file != nil && t.points.Load() < pointSearches {
		return t.point(i)
	}
	return t.row(i)
}

// pointRow is row i of table tab, read as point reads it.
func (b *baseFile) pointRow(tab, i int) []byte { return b.tables[tab].point(i) }

// point returns the payload of row i, checked as row checks it (or the
// payload it returned last time: recentReads). From a
// mapped file it reads the row with pread rather than through the
// mapping: a fault there maps 64 KiB around the row (the kernel's
// fault-around; MADV_RANDOM does not stop it), so a listing of 600
// records spread over the 28 MB of entry rows held most of them resident,
// where a read copies the 300 bytes it needs. Walks over a whole table
// read it through the mapping.
func (t *table) point(i int) []byte {
	if t.file == nil {
		return t.row(i)
	}
	live := t.recent.live()
	if live {
		if p := t.recent.row(i); p != nil {
			return p
		}
	}
	var buf []byte // the caller keeps the payload
	p, sum := t.preadRow(i, &buf)
	if checksum(p) != binary.LittleEndian.Uint32(sum) {
		corrupt()
	}
	if live {
		t.recent.keepRow(i, p)
	}
	return p
}

// eachRow calls fn with the payload of each row of table tab from row i
// on, in order, each checked as row checks it, until fn returns false or
// the table ends. From a mapped file it reads the rows with pread, a piece
// at a time into *buf (4 KiB, then doubled at each read up to 32 KiB, or
// one row's size), rather than faulting in the mapping: fn's p is valid
// only during the call. Rows are written end to end, each starting where
// the one before ends (pointRow reads them so too): the first one's start
// is its offset, checked as rawRow checks it, and the last must end the
// table.
func (b *baseFile) eachRow(tab, i int, buf *[]byte, fn func(p []byte) bool) {
	t := &b.tables[tab]
	if i >= t.n {
		return
	}
	if b.file == nil {
		for ; i < t.n; i++ {
			if !fn(t.row(i)) {
				return
			}
		}
		return
	}
	if i < 0 {
		corrupt()
	}
	off := int(binary.LittleEndian.Uint32(t.data[4+4*i:]))
	if off < 4+4*t.n || off >= len(t.data) || i == 0 && off != 4+4*t.n {
		corrupt()
	}
	const first, most = 4 << 10, 32 << 10
	p := (*buf)[:0]
	if cap(p) < first {
		p = make([]byte, 0, first)
	}
	defer func() { *buf = p[:0] }()
	// p holds the table's bytes from at; the next row starts at p[pos].
	at, pos, reads := off, 0, 0
	fill := func(need int) {
		n := copy(p, p[pos:])
		p, at, pos = p[:n], at+pos, 0
		c := cap(p)
		if reads > 0 && c < most {
			c *= 2
		}
		if c = max(c, need); c > cap(p) {
			np := make([]byte, n, c)
			copy(np, p)
			p = np
		}
		end := min(cap(p), len(t.data)-at)
		if end > n {
			if _, err := b.file.ReadAt(p[n:end], t.off+int64(at+n)); err != nil {
				corrupt() // cut short under us, or unreadable: rebuild
			}
		}
		p, reads = p[:end], reads+1
	}
	for ; i < t.n; i++ {
		if len(p)-pos < binary.MaxVarintLen64 {
			fill(binary.MaxVarintLen64)
		}
		n, k := binary.Uvarint(p[pos:])
		if rest := len(t.data) - (at + pos) - k - 4; k <= 0 || rest < 0 || n > uint64(rest) {
			corrupt()
		}
		size := k + int(n) + 4
		if len(p)-pos < size {
			fill(size)
			if len(p) < size {
				corrupt()
			}
		}
		row := p[pos : pos+size]
		payload := row[k : k+int(n)]
		if checksum(payload) != binary.LittleEndian.Uint32(row[k+int(n):]) {
			corrupt()
		}
		if i == t.n-1 && at+pos+size != len(t.data) {
			corrupt()
		}
		pos += size
		if !fn(payload) {
			return
		}
	}
}

func (b *baseFile) entryAt(i int) *IndexEntry {
	e, ok := decodeEntry(b.tables[tabEntries].row(i))
	if !ok {
		corrupt()
	}
	return e
}

// entry reads the entry of id (one row, by pointRow), nil when absent.
func (b *baseFile) entry(id string) *IndexEntry {
	i := b.entryRow(id)
	if i < 0 {
		return nil
	}
	e, ok := decodeEntry(b.pointRow(tabEntries, i))
	if !ok || e.ID != id {
		corrupt() // the ids table and the entry rows disagree
	}
	return e
}

// idsWithPrefix lists base ids with this prefix, in order.
func (b *baseFile) idsWithPrefix(prefix string, limit int, skip func(string) bool) []string {
	t := &b.tables[tabIDs]
	var out []string
	first := t.search([]byte(prefix), idKey)
	for i := first; i < t.n && len(out) < limit; i++ {
		id := t.near(i, first)
		if !bytes.HasPrefix(id, []byte(prefix)) {
			break
		}
		if s := string(id); !skip(s) {
			out = append(out, s)
		}
	}
	return out
}

// buildBase encodes the base file of entries at tip. It drops each entry
// (entries[i] = nil) once added, so that a large build holds its input or
// its output, not both: the caller must not use entries afterwards.
func buildBase(tip plumbing.Hash, entries []*IndexEntry) []byte {
	var b baseBuilder
	for i, e := range entries {
		entries[i] = nil
		b.add(e)
	}
	return b.finish(tip)
}

// baseBuilder collects a base file's rows as entries come, in any order:
// each table's rows are appended to arenas (one allocation for thousands
// of rows, not one per row), and finish sorts them. A rebuild of 100,000
// records held every entry as a struct of strings, then every row as a
// slice of its own: 200 MB live, where the arenas hold about 70.
type baseBuilder struct {
	tabs    [tableCount]rowArena // tabByCreated unused: finish derives it
	created []int64              // CreatedAt of each entry row, in add order
}

// rowArena is rows stored end to end in chunks of arenaChunk bytes (a
// row longer than what is left of a chunk gets a larger one): no doubling
// of one huge slice, which held the old and the new array at once while
// it grew.
type rowArena struct {
	chunk []byte
	rows  [][]byte
	mem   *rowRegions // where chunks come from; nil: the heap
}

const arenaChunk = 1 << 20

// add appends the row that appendRow appends to its argument.
func (a *rowArena) add(appendRow func([]byte) []byte) {
	if cap(a.chunk)-len(a.chunk) < arenaChunk/16 {
		a.chunk = a.mem.chunk()
	}
	start := len(a.chunk)
	a.chunk = appendRow(a.chunk)
	a.rows = append(a.rows, a.chunk[start:len(a.chunk):len(a.chunk)])
}

func (a *rowArena) pair(key, id string) {
	a.add(func(b []byte) []byte {
		b = binary.AppendUvarint(b, uint64(len(key)))
		return append(append(b, key...), id...)
	})
}

// mapRows has the arenas take their chunks from m.
func (b *baseBuilder) mapRows(m *rowRegions) {
	for t := range b.tabs {
		b.tabs[t].mem = m
	}
}

// rowRegions hands out arena chunks from memory mapped outside the Go
// heap, in huge pages where the kernel gives them, once a build has taken
// rowHeapChunks from the heap (a small build stays there). A rebuild at
// 100,000 records writes 80 MB of rows: in the heap each 4 KiB page of
// them faulted on first touch (20,000 faults, expensive in a VM), and the
// GC's goal grew with them. Rows in these chunks must not be used after
// release: the caller releases once the base is written.
type rowRegions struct {
	heap    int      // chunks taken from the heap
	failed  bool     // a mapping failed: the heap from then on
	regions [][]byte // mapped, until release
	free    []byte   // the rest of the last region
}

const (
	rowHeapChunks = 12
	rowRegionSize = 32 << 20
)

func (m *rowRegions) chunk() []byte {
	if m == nil || m.failed || m.heap < rowHeapChunks {
		if m != nil {
			m.heap++
		}
		return make([]byte, 0, arenaChunk)
	}
	if len(m.free) < arenaChunk {
		r := mapRegion(rowRegionSize)
		if r == nil {
			m.failed = true
			return make([]byte, 0, arenaChunk)
		}
		m.regions, m.free = append(m.regions, r), r
	}
	c := m.free[:0:arenaChunk]
	m.free = m.free[arenaChunk:]
	return c
}

// release unmaps the regions.
func (m *rowRegions) release() {
	for _, r := range m.regions {
		unmapRegion(r)
	}
	m.regions, m.free = nil, nil
}

// add takes e's rows (as pairRows gives them) into the arenas.
func (b *baseBuilder) add(e *IndexEntry) {
	b.tabs[tabEntries].add(func(buf []byte) []byte { return appendEntry(buf, e) })
	b.created = append(b.created, e.CreatedAt)
	for _, a := range e.Aliases {
		b.tabs[tabAliases].pair(a, e.ID)
	}
	b.tabs[tabCategory].pair(e.Category, e.ID)
	b.tabs[tabType].pair(e.Type, e.ID)
	for _, tag := range e.Tags {
		b.tabs[tabTag].pair(tag, e.ID)
	}
	for i, ed := range e.Edges {
		b.tabs[tabTargets].add(func(buf []byte) []byte { return appendEdgeRow(buf, e, i) })
		if ed.Source != "" {
			b.tabs[tabSources].pair(ed.Source, e.ID)
		}
		if ed.Kind == kernel.LinkSupersedes {
			b.tabs[tabSupersedes].pair(ed.Target, e.ID)
		}
	}
}

// finish sorts the tables and encodes the file.
func (b *baseBuilder) finish(tip plumbing.Hash) []byte {
	return encodeBase(tip, b.sorted())
}

// sorted sorts the tables (each on a goroutine of its own: they are
// independent) and returns them; the builder is empty after.
func (b *baseBuilder) sorted() (tabs [tableCount][][]byte) {
	var wg sync.WaitGroup
	wg.Go(func() {
		// Entry rows by id, then the list order of those rows.
		rows, created := b.tabs[tabEntries].rows, b.created
		byID := make([]int, len(rows))
		for i := range byID {
			byID[i] = i
		}
		slices.SortFunc(byID, func(x, y int) int {
			if c := bytes.Compare(entryID(rows[x]), entryID(rows[y])); c != 0 {
				return c
			}
			return x - y
		})
		byCreated := make([]int, len(byID))
		for i := range byCreated {
			byCreated[i] = i
		}
		slices.SortFunc(byCreated, func(x, y int) int {
			a, c := byID[x], byID[y]
			if created[a] != created[c] {
				if created[a] < created[c] {
					return -1
				}
				return 1
			}
			return bytes.Compare(entryID(rows[a]), entryID(rows[c]))
		})
		sorted := make([][]byte, len(byID))
		for i, r := range byID {
			sorted[i] = rows[r]
		}
		order := make([][]byte, len(byCreated))
		u32s := make([]byte, 4*len(byCreated)) // one allocation for every row
		for i, r := range byCreated {
			order[i] = binary.LittleEndian.AppendUint32(u32s[4*i:4*i], uint32(r))
		}
		tabs[tabEntries], tabs[tabByCreated], tabs[tabIDs] = sorted, order, idRows(sorted)
	})
	for t := tabAliases; t < pairTablesEnd; t++ {
		wg.Go(func() {
			rows := b.tabs[t].rows
			slices.SortFunc(rows, compareRows(t))
			tabs[t] = slices.CompactFunc(rows, func(a, b []byte) bool { return bytes.Equal(a, b) })
		})
	}
	wg.Wait()
	*b = baseBuilder{}
	return tabs
}

// pairRows appends e's rows of each pair table to tabs.
func pairRows(tabs *[tableCount][][]byte, e *IndexEntry) {
	rowPair := func(key, id string) []byte {
		p := binary.AppendUvarint(make([]byte, 0, len(key)+len(id)+2), uint64(len(key)))
		return append(append(p, key...), id...)
	}
	for _, a := range e.Aliases {
		tabs[tabAliases] = append(tabs[tabAliases], rowPair(a, e.ID))
	}
	tabs[tabCategory] = append(tabs[tabCategory], rowPair(e.Category, e.ID))
	tabs[tabType] = append(tabs[tabType], rowPair(e.Type, e.ID))
	for _, tag := range e.Tags {
		tabs[tabTag] = append(tabs[tabTag], rowPair(tag, e.ID))
	}
	for i, ed := range e.Edges {
		tabs[tabTargets] = append(tabs[tabTargets], appendEdgeRow(nil, e, i))
		if ed.Source != "" {
			tabs[tabSources] = append(tabs[tabSources], rowPair(ed.Source, e.ID))
		}
		if ed.Kind == kernel.LinkSupersedes {
			tabs[tabSupersedes] = append(tabs[tabSupersedes], rowPair(ed.Target, e.ID))
		}
	}
}

// idRows are the rows of tabIDs for entry rows sorted by id: each the id
// at the start of the entry row, in place. A search by id reads these
// (3 MB at 100,000 records) and then the one entry row it found, where a
// search of the entry rows (28 MB) faulted a page of them per probe.
func idRows(entries [][]byte) [][]byte {
	ids := make([][]byte, len(entries))
	for i, p := range entries {
		ids[i] = entryID(p)
	}
	return ids
}

// mergeBase encodes the base file at tip of b's entries with delta
// applied (an entry put, or nil for an id removed), byte for byte the file
// buildBase writes of the merged entries. The rows of records the delta
// leaves alone are copied (their checksums checked as any read checks
// them), never decoded and encoded again, and each table is a merge of two
// sorted runs, not a sort: a merge after a pull of 1,000 records costs a
// copy of the file, not a rebuild of 10,000 entries. A damaged row panics
// (corrupt) as every read does.
func mergeBase(tip plumbing.Hash, b *baseFile, delta map[string]*IndexEntry) []byte {
	return encodeBase(tip, mergeTables(b, delta))
}

// mergeTables are the rows of mergeBase's tables, for a caller that writes
// them to a file (writeBaseFile) rather than encoding them in memory.
func mergeTables(b *baseFile, delta map[string]*IndexEntry) [tableCount][][]byte {
	keys := make([]string, 0, len(delta))
	for id, e := range delta {
		if e != nil {
			keys = append(keys, id)
		}
	}
	slices.Sort(keys)
	var tabs [tableCount][][]byte

	// Entries, by id, as Index.walk merges them.
	et := &b.tables[tabEntries]
	rows := make([][]byte, 0, et.n+len(keys))
	newRow := make([]int, et.n) // base row -> its row in the merged table, -1 when the delta replaces it
	type added struct {
		e   *IndexEntry
		row int
	}
	news := make([]added, 0, len(keys))
	put := func(id string) {
		news = append(news, added{delta[id], len(rows)})
		rows = append(rows, appendEntry(nil, delta[id]))
	}
	j := 0
	for i := 0; i < et.n; i++ {
		p := et.row(i)
		id := string(entryID(p))
		for ; j < len(keys) && keys[j] < id; j++ {
			put(keys[j])
		}
		if j < len(keys) && keys[j] == id {
			j++
		}
		if e, ok := delta[id]; ok {
			newRow[i] = -1
			if e != nil {
				put(id)
			}
			continue
		}
		newRow[i] = len(rows)
		rows = append(rows, p)
	}
	for ; j < len(keys); j++ {
		put(keys[j])
	}
	tabs[tabEntries], tabs[tabIDs] = rows, idRows(rows)

	// List order: the base's, less what the delta replaced, merged with
	// the delta's entries sorted the same way.
	slices.SortFunc(news, func(a, b added) int { return listOrder(a.e, b.e) })
	ct := &b.tables[tabByCreated]
	order := make([][]byte, 0, len(rows))
	u32 := func(n int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(n)) }
	k := 0
	for i := 0; i < ct.n; i++ {
		p := ct.row(i)
		if len(p) != 4 {
			corrupt()
		}
		old := int(binary.LittleEndian.Uint32(p))
		if old >= et.n {
			corrupt()
		}
		at := newRow[old]
		if at < 0 {
			continue
		}
		if k < len(news) {
			created, id := rowListKey(rows[at])
			for ; k < len(news) && compareListKey(news[k].e, created, id) < 0; k++ {
				order = append(order, u32(news[k].row))
			}
		}
		order = append(order, u32(at))
	}
	for ; k < len(news); k++ {
		order = append(order, u32(news[k].row))
	}
	if len(order) != len(rows) {
		corrupt() // the base's list order did not list each of its rows once
	}
	tabs[tabByCreated] = order

	// Pair tables: the base's rows less those of ids the delta touches,
	// merged with the delta entries' rows.
	var fresh [tableCount][][]byte
	for _, a := range news {
		pairRows(&fresh, a.e)
	}
	for t := tabAliases; t < pairTablesEnd; t++ {
		cmp := compareRows(t)
		slices.SortFunc(fresh[t], cmp)
		pt := &b.tables[t]
		out := make([][]byte, 0, pt.n+len(fresh[t]))
		f := fresh[t]
		for i := 0; i < pt.n; i++ {
			p := pt.row(i)
			if _, touched := delta[string(rowID(t, p))]; touched {
				continue
			}
			for ; len(f) > 0 && cmp(f[0], p) < 0; f = f[1:] {
				out = append(out, f[0])
			}
			out = append(out, p)
		}
		out = append(out, f...)
		tabs[t] = slices.CompactFunc(out, func(a, b []byte) bool { return bytes.Equal(a, b) })
	}
	return tabs
}

// rowID is the id of the record a row of table t belongs to.
func rowID(t int, p []byte) []byte {
	if t == tabTargets {
		return parseEdgeRow(p).holder
	}
	_, id := pair(p)
	return id
}

// compareRows is the order of table t's rows: edge rows by target, holder
// and index, pair rows by key and id.
func compareRows(t int) func(a, b []byte) int {
	if t == tabTargets {
		return compareEdgeRows
	}
	return comparePairs
}

// rowListKey reads what listOrder compares of an encoded entry.
func rowListKey(p []byte) (created int64, id []byte) {
	r := &entryReader{b: p}
	id = r.raw()
	for range 7 { // Type Category Title Status Kind Role Authority
		r.raw()
	}
	for range 2 { // Tags, Aliases
		for m := r.count(); m > 0; m-- {
			r.raw()
		}
	}
	created = r.int()
	if r.bad {
		corrupt()
	}
	return created, id
}

// compareListKey is listOrder of e against an entry with this key.
func compareListKey(e *IndexEntry, created int64, id []byte) int {
	if e.CreatedAt != created {
		if e.CreatedAt < created {
			return -1
		}
		return 1
	}
	return strings.Compare(e.ID, string(id))
}

// encodeBase writes the base file of tables of row payloads (each sorted
// as its table requires). It drops each table's rows once copied.
func encodeBase(tip plumbing.Hash, tabs [tableCount][][]byte) []byte {
	size := indexHeaderSize
	for _, rows := range tabs {
		size += tableSize(rows)
	}
	w := &appendWriter{buf: make([]byte, indexHeaderSize, size)}
	dir, crc := writeTables(w, &tabs, true)
	copy(w.buf, baseHeader(tip, crc, uint64(len(w.buf)), dir))
	return w.buf
}

// writeBaseFile writes the base file of tabs to f, which must be empty, in
// pieces of at most 64 KiB (see writeAtomic): a rebuild at 100,000 records
// holds its rows and never also a 62 MB copy of the file in its heap.
// The bytes are encodeBase's; tabs is left as it was.
func writeBaseFile(f *os.File, tip plumbing.Hash, tabs *[tableCount][][]byte) error {
	bw := bufio.NewWriterSize(pieceWriter{f}, 64<<10)
	w := &errWriter{w: bw}
	w.Write(make([]byte, indexHeaderSize))
	dir, crc := writeTables(w, tabs, false)
	if w.err != nil {
		return w.err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := f.WriteAt(baseHeader(tip, crc, w.n, dir), 0)
	return err
}

// tableSize is the encoded size of a table of rows.
func tableSize(rows [][]byte) int {
	size := 4 + 4*len(rows)
	for _, r := range rows {
		size += uvarintLen(uint64(len(r))) + len(r) + 4
	}
	return size
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// writeTables writes the tables after the header (which w has been given
// already) and returns the directory and the checksum of what it wrote;
// with drop, each table's rows are dropped once written.
func writeTables(w io.Writer, tabs *[tableCount][][]byte, drop bool) (dir [tableCount][3]uint64, crc uint32) {
	pos := uint64(indexHeaderSize)
	var scratch []byte
	put := func(b []byte) {
		crc = crc32.Update(crc, castagnoli(), b)
		w.Write(b)
		pos += uint64(len(b))
	}
	for t, rows := range tabs {
		start := pos
		// The row count and the offsets, then the rows.
		scratch = binary.LittleEndian.AppendUint32(scratch[:0], uint32(len(rows)))
		off := 4 + 4*len(rows)
		for _, r := range rows {
			scratch = binary.LittleEndian.AppendUint32(scratch, uint32(off))
			off += uvarintLen(uint64(len(r))) + len(r) + 4
			if len(scratch) >= 64<<10 {
				put(scratch)
				scratch = scratch[:0]
			}
		}
		put(scratch)
		// Rows are gathered into pieces of 64 KiB: one checksum update
		// and one write a piece, not three a row (400,000 rows at
		// 100,000 records).
		scratch = scratch[:0]
		for _, r := range rows {
			scratch = binary.AppendUvarint(scratch, uint64(len(r)))
			scratch = append(scratch, r...)
			scratch = binary.LittleEndian.AppendUint32(scratch, checksum(r))
			if len(scratch) >= 64<<10 {
				put(scratch)
				scratch = scratch[:0]
			}
		}
		put(scratch)
		if drop {
			tabs[t] = nil
		}
		dir[t] = [3]uint64{start, pos - start, uint64(len(rows))}
	}
	return dir, crc
}

// baseHeader is the header of a base file.
func baseHeader(tip plumbing.Hash, crc uint32, size uint64, dir [tableCount][3]uint64) []byte {
	h := make([]byte, 0, indexHeaderSize)
	h = append(h, indexMagic...)
	h = binary.LittleEndian.AppendUint32(h, indexVersion)
	h = append(h, tip[:]...)
	h = binary.LittleEndian.AppendUint32(h, crc)
	h = binary.LittleEndian.AppendUint64(h, size)
	for _, d := range dir {
		h = binary.LittleEndian.AppendUint64(h, d[0])
		h = binary.LittleEndian.AppendUint64(h, d[1])
		h = binary.LittleEndian.AppendUint32(h, uint32(d[2]))
	}
	return binary.LittleEndian.AppendUint32(h, checksum(h))
}

// appendWriter appends what it is given to buf.
type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// errWriter keeps the first error and counts what it wrote.
type errWriter struct {
	w   io.Writer
	n   uint64
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	if w.err == nil {
		var n int
		n, w.err = w.w.Write(p)
		w.n += uint64(n)
	}
	return len(p), nil
}

// pieceWriter writes to w in pieces of at most 64 KiB.
type pieceWriter struct{ w io.Writer }

func (p pieceWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		k, err := p.w.Write(b[:min(len(b), 64<<10)])
		n += k
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

func comparePairs(a, b []byte) int {
	ka, ia := pair(a)
	kb, ib := pair(b)
	if c := bytes.Compare(ka, kb); c != 0 {
		return c
	}
	return bytes.Compare(ia, ib)
}

// An edge row is one edge of a holder, keyed by its target as written, with
// what a backlink listing shows of it: the holder's id, the edge's place
// among the holder's edges (so that a holder's edges to one record, found
// under several of its handles, keep their order), its kind, label and
// relation source, and the holder's title. `links <hub>` reads its 10,000
// backlinks from these contiguous rows instead of from 10,000 entry rows
// spread over the whole entries table (a page each, and a search each).
//
//	target, holder (strings), index (uvarint), kind, label, source, title (strings)
//
// The key comes first, as in a pair row, so pairKey reads it.
func appendEdgeRow(buf []byte, e *IndexEntry, i int) []byte {
	ed := e.Edges[i]
	str := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	str(ed.Target)
	str(e.ID)
	buf = binary.AppendUvarint(buf, uint64(i))
	str(ed.Kind)
	str(ed.Label)
	str(ed.Source)
	str(e.Title)
	return buf
}

// edgeRow is an edge row's fields, in place in the file's bytes.
type edgeRow struct {
	target, holder             []byte
	index                      uint64
	kind, label, source, title []byte
}

func parseEdgeRow(p []byte) edgeRow {
	r := &entryReader{b: p}
	var e edgeRow
	e.target, e.holder = r.raw(), r.raw()
	e.index = r.uint()
	e.kind, e.label, e.source, e.title = r.raw(), r.raw(), r.raw(), r.raw()
	if r.bad || r.pos != len(p) {
		corrupt()
	}
	return e
}

// compareEdgeRows orders edge rows by target, holder, then index. It reads
// only those three fields: a reindex sorts hundreds of thousands of rows,
// and parsing the rest of each row (kind, label, source, title) on every
// comparison was a tenth of its time. The rows compared are the builder's
// own or rows whose checksum a read has checked.
func compareEdgeRows(a, b []byte) int {
	// Nearly every target and holder is shorter than 128 bytes and every
	// index under 128: each is then one length byte and its bytes, and
	// the rows compare in place. Anything else reads the long way.
	if ta, na, ok := shortField(a, 0); ok {
		if tb, nb, ok := shortField(b, 0); ok {
			if c := bytes.Compare(ta, tb); c != 0 {
				return c
			}
			if ha, ma, ok := shortField(a, na); ok {
				if hb, mb, ok := shortField(b, nb); ok {
					if c := bytes.Compare(ha, hb); c != 0 {
						return c
					}
					if ma < len(a) && mb < len(b) && a[ma] < 0x80 && b[mb] < 0x80 {
						return cmp.Compare(a[ma], b[mb])
					}
				}
			}
		}
	}
	return compareEdgeRowsRead(a, b)
}

// shortField is the field of p at pos when its length is one byte (under
// 128) and the field lies within p, and where the next field starts; ok
// is false otherwise.
func shortField(p []byte, pos int) (field []byte, next int, ok bool) {
	if pos >= len(p) || p[pos] >= 0x80 {
		return nil, 0, false
	}
	next = pos + 1 + int(p[pos])
	if next > len(p) {
		return nil, 0, false
	}
	return p[pos+1 : next], next, true
}

// compareEdgeRowsRead is compareEdgeRows reading each field with an
// entryReader, whatever its length; a damaged row panics (corrupt).
func compareEdgeRowsRead(a, b []byte) int {
	ra, rb := &entryReader{b: a}, &entryReader{b: b}
	if c := bytes.Compare(ra.raw(), rb.raw()); c != 0 {
		if ra.bad || rb.bad {
			corrupt()
		}
		return c
	}
	if c := bytes.Compare(ra.raw(), rb.raw()); c != 0 {
		if ra.bad || rb.bad {
			corrupt()
		}
		return c
	}
	ia, ib := ra.uint(), rb.uint()
	if ra.bad || rb.bad {
		corrupt()
	}
	switch {
	case ia < ib:
		return -1
	case ia > ib:
		return 1
	}
	return 0
}

// listOrder is the order List returns records in: oldest first, ties by id.
func listOrder(a, b *IndexEntry) int {
	if a.CreatedAt != b.CreatedAt {
		if a.CreatedAt < b.CreatedAt {
			return -1
		}
		return 1
	}
	return strings.Compare(a.ID, b.ID)
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
	UpdatedAt                 int64
	Expires                   int64
	Blob                      plumbing.Hash
	Edges                     []Edge
}

type edgeFields struct{ Source, Target, Kind, Label string }

// appendEntry encodes one entry: ID Type Category Title Status Kind Role
// Authority (strings), Tags, Aliases (uvarint n, n strings), CreatedAt,
// UpdatedAt, Expires (varints), Blob (20 bytes), Edges (uvarint n, n × Source Target
// Kind Label). A string is a uvarint length and its bytes; ID comes first,
// so a row's id is read without decoding the rest.
func appendEntry(buf []byte, e *IndexEntry) []byte {
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
	for _, s := range []string{e.ID, e.Type, e.Category, e.Title, string(e.Status), string(e.Kind), string(e.Role), string(e.Authority)} {
		str(s)
	}
	strs(e.Tags)
	strs(e.Aliases)
	buf = binary.AppendVarint(buf, e.CreatedAt)
	buf = binary.AppendVarint(buf, e.UpdatedAt)
	buf = binary.AppendVarint(buf, e.Expires)
	buf = append(buf, e.Blob[:]...)
	buf = binary.AppendUvarint(buf, uint64(len(e.Edges)))
	for _, ed := range e.Edges {
		str(ed.Source)
		str(ed.Target)
		str(ed.Kind)
		str(ed.Label)
	}
	return buf
}

// decodeEntry decodes exactly one encoded entry; strings are copied out of
// data, which may be a mapping.
func decodeEntry(data []byte) (*IndexEntry, bool) {
	r := &entryReader{b: data}
	e := r.entry()
	return e, !r.bad && r.pos == len(data)
}

// entryReader reads encoded entries; after the first error every read
// returns a zero value and bad stays set.
type entryReader struct {
	b   []byte
	pos int
	bad bool
}

func (r *entryReader) entry() *IndexEntry {
	e := &IndexEntry{}
	e.ID, e.Type, e.Category, e.Title = r.str(), r.str(), r.str(), r.str()
	e.Status, e.Kind, e.Role, e.Authority = kernel.Status(r.str()), kernel.Kind(r.str()), kernel.Role(r.str()), kernel.Authority(r.str())
	e.Tags = r.list()
	e.Aliases = r.list()
	e.CreatedAt = r.int()
	e.UpdatedAt = r.int()
	e.Expires = r.int()
	e.Blob = r.hash()
	if m := r.count(); m > 0 {
		e.Edges = make([]Edge, m)
		for j := range e.Edges {
			e.Edges[j] = Edge{Source: r.str(), Target: r.str(), Kind: r.str(), Label: r.str()}
		}
	}
	return e
}

func (r *entryReader) list() []string {
	m := r.count()
	if m == 0 {
		return nil
	}
	out := make([]string, m)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *entryReader) uint() uint64 {
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

func (r *entryReader) int() int64 {
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
func (r *entryReader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)-r.pos) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *entryReader) str() string { return string(r.raw()) }

// raw reads a string's bytes in place, without copying them.
func (r *entryReader) raw() []byte {
	n := r.count()
	if r.bad {
		return nil
	}
	b := r.b[r.pos : r.pos+n]
	r.pos += n
	return b
}

// skipToEdges reads past an entry's fields up to its edge count.
func (r *entryReader) skipToEdges() {
	for range 8 { // ID Type Category Title Status Kind Role Authority
		r.raw()
	}
	for range 2 { // Tags, Aliases
		for m := r.count(); m > 0; m-- {
			r.raw()
		}
	}
	r.int() // CreatedAt
	r.int() // UpdatedAt
	r.int() // Expires
	r.hash()
}

// eachRowEdge calls fn with each edge of an encoded entry, its strings in
// place (valid while the row is); a malformed row is corrupt.
func eachRowEdge(p []byte, fn func(source, target, kind, label []byte)) {
	r := &entryReader{b: p}
	r.skipToEdges()
	for m := r.count(); m > 0 && !r.bad; m-- {
		source, target, kind, label := r.raw(), r.raw(), r.raw(), r.raw()
		if r.bad {
			break
		}
		fn(source, target, kind, label)
	}
	if r.bad || r.pos != len(p) {
		corrupt()
	}
}

// rowTitle reads the title of an encoded entry (its fourth string).
func rowTitle(p []byte) string {
	r := &entryReader{b: p}
	r.raw()
	r.raw()
	r.raw()
	title := r.str()
	if r.bad {
		corrupt()
	}
	return title
}

func (r *entryReader) hash() (h plumbing.Hash) {
	if r.bad || len(r.b)-r.pos < len(h) {
		r.bad = true
		return h
	}
	copy(h[:], r.b[r.pos:])
	r.pos += len(h)
	return h
}

// The delta file holds what changed since the base: entries put and ids
// removed, for the tip it names. A write rewrites it (its size follows the
// changes since the last merge, never the store); past maxDelta changes the
// two are merged into a new base.
//
//	deltaMagic, version u32, base tip [20], base fileCRC u32, tip [20],
//	n uvarint, n × (0 id | 1 entry), CRC-32C of all before it
const deltaMagic = "git-records index delta\x00"

// maxDelta is how many changed records the delta holds before a merge: a
// delta stays a few hundred KiB, and a merge (which costs a pass over the
// base) comes once per this many changes.
const maxDelta = 512

type deltaFile struct {
	baseTip plumbing.Hash
	baseCRC uint32
	tip     plumbing.Hash
	changes map[string]*IndexEntry // nil: removed
}

func (d *deltaFile) encode() []byte {
	ids := make([]string, 0, len(d.changes))
	for id := range d.changes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	buf := append([]byte(deltaMagic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(buf[len(deltaMagic):], indexVersion)
	buf = append(buf, d.baseTip[:]...)
	buf = binary.LittleEndian.AppendUint32(buf, d.baseCRC)
	buf = append(buf, d.tip[:]...)
	buf = binary.AppendUvarint(buf, uint64(len(ids)))
	for _, id := range ids {
		if e := d.changes[id]; e != nil {
			buf = append(buf, 1)
			buf = appendEntry(buf, e)
		} else {
			buf = append(buf, 0)
			buf = binary.AppendUvarint(buf, uint64(len(id)))
			buf = append(buf, id...)
		}
	}
	return binary.LittleEndian.AppendUint32(buf, checksum(buf))
}

func decodeDelta(data []byte) (*deltaFile, error) {
	head := len(deltaMagic) + 4 + 20 + 4 + 20
	if len(data) < head+4 || string(data[:len(deltaMagic)]) != deltaMagic ||
		binary.LittleEndian.Uint32(data[len(deltaMagic):]) != indexVersion ||
		checksum(data[:len(data)-4]) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errBadIndexFile
	}
	d := &deltaFile{}
	p := data[len(deltaMagic)+4:]
	copy(d.baseTip[:], p)
	d.baseCRC = binary.LittleEndian.Uint32(p[20:])
	copy(d.tip[:], p[24:])
	r := &entryReader{b: data[:len(data)-4], pos: head}
	n := r.count()
	d.changes = make(map[string]*IndexEntry, n)
	for i := 0; i < n && !r.bad; i++ {
		if r.pos >= len(r.b) {
			r.bad = true
			break
		}
		kind := r.b[r.pos]
		r.pos++
		switch kind {
		case 0:
			d.changes[r.str()] = nil
		case 1:
			e := r.entry()
			d.changes[e.ID] = e
		default:
			r.bad = true
		}
	}
	if r.bad || r.pos != len(r.b) {
		return nil, errBadIndexFile
	}
	return d, nil
}

// readDelta reads a delta file; any error means there is none to use.
func readDelta(path string) (*deltaFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeDelta(data)
}
