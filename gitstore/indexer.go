package gitstore

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// ChangedRecord is one file under records/ that differs between two tips,
// read and decoded once. It is what every derived index is kept by.
type ChangedRecord struct {
	Path     string
	ID       string        // "" when the path is not a record's (verify reports such files)
	Old, New plumbing.Hash // zero Old: added; zero New: removed
	// Record is the new content; nil when removed, or when the file does
	// not decode (Err says why: verify names such files, indexes leave
	// them out).
	Record *kernel.Record
	Err    error
	entry  *IndexEntry // Record's index entry, when the reader built it
}

// indexEntry is the record's index entry (built once).
func (c ChangedRecord) indexEntry() *IndexEntry {
	if c.entry != nil {
		return c.entry
	}
	return entryOf(c.Record, c.New)
}

// IndexObserver is told every change the graph index applies (a catch-up
// from a tree diff, a write, a merge, a rebuild): the records that differ
// between from and to, decoded once. A second derived index (full-text
// search) that sits beside the graph index hooks in here and is kept the
// same way, without a second tree walk; when its own tip is not from, it
// catches up by itself with Store.EachChangedRecord. from is zero for a rebuild.
type IndexObserver func(from, to plumbing.Hash, changes []ChangedRecord)

// ObserveIndex registers an observer for this store's index updates.
func (s *Store) ObserveIndex(fn IndexObserver) { s.observers = append(s.observers, fn) }

func (s *Store) notify(from, to plumbing.Hash, changes []ChangedRecord) {
	for _, fn := range s.observers {
		fn(from, to, changes)
	}
}

// EachChangedRecord calls fn with every record file that differs between the trees of
// two commits (a zero from: every record at to), its new content read
// through one batched object reader and decoded once. A blob that cannot
// be read at all (I/O, a missing object) stops it with an error.
func (s *Store) EachChangedRecord(from, to plumbing.Hash, fn func(ChangedRecord) error) error {
	return s.changes(newTreeReader(s.objects), from, to, nil, false, false, fn)
}

// changes is EachChangedRecord over trees; progress, when set, hears each
// record handed out of all the diff holds; withEntries builds each
// record's index entry while decoding it, on every core. With stream set
// (the caller's trees are its own, used by nothing else until changes
// returns), a walk from the zero commit is read while it is still
// listed: see changesStreamed.
func (s *Store) changes(trees *treeReader, from, to plumbing.Hash, progress Progress, withEntries, stream bool, fn func(ChangedRecord) error) error {
	fromRoot, err := s.rootOf(from)
	if err != nil {
		return err
	}
	toRoot, err := s.rootOf(to)
	if err != nil {
		return err
	}
	if stream && from.IsZero() && s.streams() {
		return s.changesStreamed(trees, fromRoot, toRoot, progress, withEntries, fn)
	}
	diff, err := recordChanges(trees, fromRoot, toRoot)
	if err != nil {
		return err
	}
	if progress != nil {
		each, done := fn, 0
		fn = func(c ChangedRecord) error {
			done++
			progress(done, len(diff))
			return each(c)
		}
	}
	needsBlob := func(c Change) bool {
		_, _, ok := ParseRecordPath(c.Path)
		return ok && !c.New.IsZero()
	}
	var blobs []plumbing.Hash
	for _, c := range diff {
		if needsBlob(c) {
			blobs = append(blobs, c.New)
		}
	}
	next := 0
	// Hand out, in diff order, the changes that need no blob before the next one that does.
	flush := func() error {
		for ; next < len(diff) && !needsBlob(diff[next]); next++ {
			c := diff[next]
			rc := ChangedRecord{Path: c.Path, Old: c.Old, New: c.New}
			if _, id, ok := ParseRecordPath(c.Path); ok {
				rc.ID = id
			}
			if err := fn(rc); err != nil {
				return err
			}
		}
		return nil
	}
	var prepare prepareDecoded
	if withEntries {
		prepare = withEntry
	}
	err = s.eachDecodedWith(blobs, prepare, func(_ int, d decoded) error {
		if err := flush(); err != nil {
			return err
		}
		c := diff[next]
		next++
		_, id, _ := ParseRecordPath(c.Path)
		rc := ChangedRecord{Path: c.Path, ID: id, Old: c.Old, New: c.New, Record: d.r, entry: d.entry}
		if d.err != nil {
			rc.Err = kernel.Wrap(kernel.CodeOf(d.err), d.err, "record blob %s", c.New)
		}
		return fn(rc)
	})
	if err != nil {
		return err
	}
	return flush()
}

// recordChanges diffs the records/ subtrees of two root trees.
func recordChanges(trees *treeReader, fromRoot, toRoot plumbing.Hash) ([]Change, error) {
	var changes []Change
	err := recordChangesFunc(trees, fromRoot, toRoot, func(c Change) error {
		changes = append(changes, c)
		return nil
	})
	return changes, err
}

// recordChangesFunc is recordChanges calling emit with each change as the
// walk finds it.
func recordChangesFunc(trees *treeReader, fromRoot, toRoot plumbing.Hash, emit func(Change) error) error {
	from, _, err := trees.lookup(fromRoot, "records")
	if err != nil {
		return err
	}
	to, _, err := trees.lookup(toRoot, "records")
	if err != nil {
		return err
	}
	return diffTreesFunc(trees, from, to, "records/", emit)
}

// changesStreamed is changes with the tree walk on a goroutine of its
// own, its changes handed out in the same order as changes hands them,
// the decoders reading each batch of blobs as soon as the walk has listed
// it. A cold build at 100,000 records walked its trees for half a second
// on one core before any decoding started. progress hears a total of 0
// (unknown) until the walk is over.
func (s *Store) changesStreamed(trees *treeReader, fromRoot, toRoot plumbing.Hash, progress Progress, withEntries bool, fn func(ChangedRecord) error) error {
	l := &changeList{}
	l.more.L = &l.mu
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		l.finish(recordChangesFunc(trees, fromRoot, toRoot, l.add))
	}()
	defer func() {
		l.halt() // a failed read: the walk stops at its next change
		<-walked // and uses trees no more once changes returns
	}()
	var prepare prepareDecoded
	if withEntries {
		prepare = withEntry
	}
	handed := 0
	hand := func(c listedChange, d *decoded) error {
		rc := ChangedRecord{Path: c.Path, ID: c.id, Old: c.Old, New: c.New}
		if d != nil {
			rc.Record, rc.entry = d.r, d.entry
			if d.err != nil {
				rc.Err = kernel.Wrap(kernel.CodeOf(d.err), d.err, "record blob %s", c.New)
			}
		}
		if progress != nil {
			handed++
			progress(handed, l.total())
		}
		return fn(rc)
	}
	next := 0
	// Hand out, in walk order, the changes before end (which need no blob).
	handTo := func(end int) error {
		for ; next < end; next++ {
			if err := hand(l.get(next), nil); err != nil {
				return err
			}
		}
		return nil
	}
	err := s.eachDecodedFrom(nil, l.blobs, prepare, func(i int, d decoded) error {
		c, at := l.blob(i)
		if err := handTo(at); err != nil {
			return err
		}
		next = at + 1
		return hand(c, &d)
	})
	if err != nil {
		return err
	}
	// The source ran dry, so the walk is over and listed everything.
	return handTo(l.len())
}

// listedChange is a change the walk listed, with what its path says.
type listedChange struct {
	Change
	id   string // the record's id; "" when the path is not a record's
	blob bool   // a record's new content: read and decoded
}

// changeList holds what a tree walk lists for the readers that take it
// while the walk lists the rest. The changes sit in chunks of changeChunk,
// so growing never copies what was listed.
type changeList struct {
	mu     sync.Mutex
	more   sync.Cond // a batch more of blobs listed, or the walk over
	chunks [][]listedChange
	n      int
	blobAt []int // the change of each blob, in order
	done   bool  // the walk is over
	err    error // why it stopped early
	stop   bool  // the reader went away
}

const changeChunk = 4096

// add lists c (the walk's emit).
func (l *changeList) add(c Change) error {
	lc := listedChange{Change: c}
	if _, id, ok := ParseRecordPath(c.Path); ok {
		lc.id, lc.blob = id, !c.New.IsZero()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop {
		return errStopped
	}
	if l.n%changeChunk == 0 {
		l.chunks = append(l.chunks, make([]listedChange, 0, changeChunk))
	}
	last := len(l.chunks) - 1
	l.chunks[last] = append(l.chunks[last], lc)
	if lc.blob {
		l.blobAt = append(l.blobAt, l.n)
		if len(l.blobAt)%decodeBatch == 0 {
			l.more.Broadcast()
		}
	}
	l.n++
	return nil
}

// finish marks the walk over (err: failed).
func (l *changeList) finish(err error) {
	l.mu.Lock()
	l.done, l.err = true, err
	l.mu.Unlock()
	l.more.Broadcast()
}

// halt has the walk stop at its next change.
func (l *changeList) halt() {
	l.mu.Lock()
	l.stop = true
	l.mu.Unlock()
}

func (l *changeList) at(i int) listedChange { return l.chunks[i/changeChunk][i%changeChunk] }

// get is the i'th change listed (it must have been).
func (l *changeList) get(i int) listedChange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.at(i)
}

// blob is the change of the i'th blob, and where it is in the list.
func (l *changeList) blob(i int) (listedChange, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at := l.blobAt[i]
	return l.at(at), at
}

// len is how many changes are listed.
func (l *changeList) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// total is the number of changes once the walk is over, 0 before.
func (l *changeList) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		return 0
	}
	return l.n
}

// blobs is the blobSource of the list: the blobs from start on, a batch
// at a time, waiting for the walk to list them.
func (l *changeList) blobs(start int) ([]plumbing.Hash, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.done && len(l.blobAt) < start+decodeBatch {
		l.more.Wait()
	}
	if l.err != nil {
		return nil, l.err
	}
	end := min(start+decodeBatch, len(l.blobAt))
	if start >= end {
		return nil, nil
	}
	hashes := make([]plumbing.Hash, 0, end-start)
	for _, at := range l.blobAt[start:end] {
		hashes = append(hashes, l.at(at).New)
	}
	return hashes, nil
}

// rootOf returns the root tree of a commit, zero for the zero commit.
func (s *Store) rootOf(commit plumbing.Hash) (plumbing.Hash, error) {
	if commit.IsZero() {
		return plumbing.ZeroHash, nil
	}
	c, err := s.commit(commit)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// indexChanges turns record changes into index changes: an entry put, or
// nil for a record removed or that does not decode (the index must not make
// a broken file look healthy; verify names it).
func indexChanges(changes []ChangedRecord) map[string]*IndexEntry {
	out := make(map[string]*IndexEntry, len(changes))
	for _, c := range changes {
		if c.ID == "" {
			continue
		}
		if c.Record == nil {
			// An id gone from one path may be at another (a type it has
			// on a rewritten branch): its removal never undoes that.
			if _, added := out[c.ID]; !added {
				out[c.ID] = nil
			}
			continue
		}
		out[c.ID] = c.indexEntry()
	}
	return out
}

// collect gathers the changes between two commits, failing on a record
// that could not be read at all: no index may be saved for a tip without it.
func (s *Store) collect(trees *treeReader, from, to plumbing.Hash) ([]ChangedRecord, error) {
	var out []ChangedRecord
	err := s.changes(trees, from, to, nil, true, false, func(c ChangedRecord) error {
		if c.Err != nil && kernel.CodeOf(c.Err) == kernel.CodeInternal {
			return c.Err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// The index files: the base tables and the delta over them.
func (s *Store) indexPath() string {
	return filepath.Join(s.dataDir(), "index", s.indexName()+".idx")
}

func (s *Store) deltaPath() string { return s.indexPath() + ".delta" }

func (s *Store) indexName() string { return url.PathEscape(strings.TrimPrefix(s.ref, "refs/")) }

// loadIndex opens the index on disk: the base mapped, the delta applied
// when it was written over this base. Anything unusable is an error, and
// the caller rebuilds.
func (s *Store) loadIndex() (ix *Index, err error) {
	data, file, err := mapIndexFile(s.indexPath())
	if err != nil {
		return nil, err
	}
	adviseRandom(data)
	var base *baseFile
	if !(&Index{}).try(func() { base, err = openBase(data) }) {
		err = errBadIndexFile // the file was cut short while mapped
	}
	if err != nil {
		if file != nil {
			file.Close()
		}
		return nil, err
	}
	base.setFile(file)
	ix = newIndex(base.tip, base, nil)
	if d, err := readDelta(s.deltaPath()); err == nil && d.baseTip == base.tip && d.baseCRC == base.fileCRC {
		ix = newIndex(d.tip, base, d.changes)
	}
	ix.onDisk = true
	ix.rebuild = s.rebuildAt
	return ix, nil
}

// rebuildAt builds the index at tip from every record and saves it: what a
// lookup that found the file damaged falls back on.
func (s *Store) rebuildAt(tip plumbing.Hash) (*Index, error) {
	ix, _, err := s.buildIndex(tip, newTreeReader(s.objects))
	if err != nil {
		return nil, err
	}
	ix, _ = s.saveIndex(ix)
	return ix, nil
}

// cachedIndex is the freshest index this store has without catching
// anything up (this process's, else the one on disk), at the tip it
// reflects; nil when there is none.
func (s *Store) cachedIndex() *Index {
	if s.index == nil {
		s.index, _ = s.loadIndex()
	}
	return s.index
}

// indexAt returns the index at tip. It starts from the freshest index it has
// (this process's, else the one on disk) and applies the tree diff from the
// tip that index reflects: one commit of change costs a few tree reads and one
// record decode, whatever the size of the store. With no usable index it
// builds one from scratch.
func (s *Store) indexAt(tip plumbing.Hash, trees *treeReader) (*Index, error) {
	base := s.index
	if base == nil {
		base, _ = s.loadIndex()
	}
	if base != nil && base.Tip == tip {
		s.index = base
		return base, nil
	}
	if base != nil {
		ix, changes, err := s.catchUp(base, tip, trees)
		if err == nil {
			ix, _ = s.saveIndex(ix) // a cache: failing to save only costs speed
			s.index = ix
			s.followSearch(base.Tip, tip, changes)
			return ix, nil
		}
		// The indexed tip may be gone (a rewritten branch, a gc): rebuild.
	}
	// A new clone (no search index either) builds both in one read.
	var sb *searchBuild
	if _, err := os.Lstat(s.searchDeltaPath()); errors.Is(err, fs.ErrNotExist) {
		sb = s.newSearchBuild()
		defer sb.release()
	}
	ix, _, err := s.buildIndexProgress(tip, trees, nil, sb)
	if err != nil {
		return nil, err
	}
	ix, _ = s.saveIndex(ix)
	s.index = ix
	if sb != nil {
		_, _ = sb.finish(tip) // a cache: failing to build it only costs a search its time
	}
	return ix, nil
}

// catchUp returns base moved to tip by the tree diff between them, and
// the records that differ.
func (s *Store) catchUp(base *Index, tip plumbing.Hash, trees *treeReader) (*Index, []ChangedRecord, error) {
	var changes []ChangedRecord
	err := s.changes(trees, base.Tip, tip, nil, true, false, func(c ChangedRecord) error {
		if c.Err != nil && kernel.CodeOf(c.Err) == kernel.CodeInternal {
			return c.Err
		}
		if len(changes) == s.maxCatchUp() {
			return errLargeCatchUp
		}
		changes = append(changes, c)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	ix := base.withChanges(tip, indexChanges(changes))
	s.notify(base.Tip, tip, changes)
	return ix, changes, nil
}

// maxCatchUp bounds the changes a catch-up holds at once, each decoded
// with its entry: past it (the first read after an import or a fetch of
// many records) indexAt builds the index afresh from the tip, which holds
// none of them.
const maxCatchUp = 1 << 13

var errLargeCatchUp = errors.New("gitstore: more changes than a catch-up holds")

// buildIndex reads every record at tip. It also returns the files under
// records/ that failed to decode, for reindex to report.
func (s *Store) buildIndex(tip plumbing.Hash, trees *treeReader) (*Index, []string, error) {
	return s.buildIndexProgress(tip, trees, nil, nil)
}

// buildIndexProgress is buildIndex telling progress of each record read,
// and handing each to sb (when set): the search index built in the same
// read.
func (s *Store) buildIndexProgress(tip plumbing.Hash, trees *treeReader, progress Progress, sb *searchBuild) (*Index, []string, error) {
	// Each entry goes into the builder's arenas as it comes: the tree
	// walk yields records by type directory and shard, and finish sorts.
	var build baseBuilder
	// The rows live outside the heap until the base is written from
	// them (writeBuiltBase copies them into the file, or into memory).
	var regions rowRegions
	defer regions.release()
	build.mapRows(&regions)
	var broken []string
	var changes []ChangedRecord
	// A tree reader of its own: what it caches (every tree of the store,
	// 10 MB at 100k records) is garbage once the walk has listed the
	// records, not live while they are read and the base is built.
	walk := newTreeReader(trees.objects)
	err := s.changes(walk, plumbing.ZeroHash, tip, progress, true, true, func(c ChangedRecord) error {
		switch {
		case c.Err != nil && kernel.CodeOf(c.Err) == kernel.CodeInternal:
			return c.Err
		case c.Record == nil:
			broken = append(broken, c.Path)
		default:
			build.add(c.indexEntry())
			if sb != nil {
				sb.add(c)
			}
		}
		if len(s.observers) > 0 {
			changes = append(changes, c)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if sb != nil {
		sb.start(tip) // merged while the graph's tables are sorted and written
	}
	b, err := s.writeBuiltBase(tip, build.sorted())
	if err != nil {
		return nil, nil, err
	}
	ix := newIndex(tip, b, nil)
	ix.rebuild = s.rebuildAt
	s.notify(plumbing.ZeroHash, tip, changes)
	return ix, broken, nil
}

// writeBuiltBase encodes the base of tabs. It writes it to a temporary
// file beside the index and maps it, so that the rows and a copy of the
// whole file are never in the heap together (and saveIndex renames the
// file into place rather than writing it again). Where no file can be
// written (a read-only store), it encodes the base in memory.
func (s *Store) writeBuiltBase(tip plumbing.Hash, tabs [tableCount][][]byte) (*baseFile, error) {
	if b := s.writeMappedBase(func(f *os.File) error { return writeBaseFile(f, tip, &tabs) }); b != nil {
		return b, nil
	}
	return openBase(encodeBase(tip, tabs))
}

// writeMappedBase writes a base with write into a temporary file beside
// the index and maps it: the base a save renames into place, or removes
// (baseFile.written). It returns nil where no file can be written (a
// read-only store, a system that does not map) or the base does not open.
func (s *Store) writeMappedBase(write func(*os.File) error) *baseFile {
	if !mapsPacks || os.MkdirAll(filepath.Dir(s.indexPath()), 0o755) != nil {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(s.indexPath()), ".index-*")
	if err != nil {
		return nil
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var data []byte
	var file *os.File
	if err == nil {
		data, file, err = mapIndexFile(f.Name())
	}
	var b *baseFile
	if err == nil {
		b, err = openBase(data)
	}
	if err != nil {
		if data != nil {
			releaseIndexFile(data)
		}
		if file != nil {
			file.Close()
		}
		_ = os.Remove(f.Name())
		return nil
	}
	b.setFile(file)
	b.written.path = f.Name()
	return b
}

// saveIndex writes the index: the delta alone when the base on disk is its
// base, else (or when the delta has grown past maxDelta) one new base and
// an empty delta. It returns the index as saved (merged, perhaps).
func (s *Store) saveIndex(ix *Index) (*Index, error) {
	// A base a rebuild wrote is renamed into place below, or removed.
	built := ix.base
	defer built.written.drop()
	ix = s.rebased(ix)
	if len(ix.delta) > s.maxDelta() && !s.mergeAside(ix) {
		ix = ix.merged()
	}
	if ix.base != built {
		dropBasePages(built) // replaced: what was read of it leaves the resident set
	}
	if err := os.MkdirAll(filepath.Dir(s.indexPath()), 0o755); err != nil {
		return ix, err
	}
	if !ix.onDisk {
		if written := ix.base.written.take(); written != "" {
			if err := os.Rename(written, s.indexPath()); err != nil {
				_ = os.Remove(written)
				return ix, err
			}
		} else if err := writeAtomic(s.indexPath(), ix.base.data, ".index-*"); err != nil {
			return ix, err
		}
		ix.onDisk = true
		if m := s.merge; m != nil && ix.base == m.result {
			m.installed = true
		}
		s.removeOldIndexFiles()
	}
	d := &deltaFile{baseTip: ix.base.tip, baseCRC: ix.base.fileCRC, tip: ix.Tip, changes: ix.delta}
	return ix, writeAtomic(s.deltaPath(), d.encode(), ".delta-*")
}

// removeOldIndexFiles removes what versions before 4 kept (one flat cache
// decoded whole by every process, and a handles file), and the temporary
// files of writes that never finished: a process killed while it wrote a
// new base (79 MB at 100k records) leaves its .index-* file, which
// nothing else would remove. Only files older than staleTemp go; a younger
// one may be another process's write in progress.
func (s *Store) removeOldIndexFiles() {
	old := strings.TrimSuffix(s.indexPath(), ".idx") + ".cache"
	_ = os.Remove(old)
	_ = os.Remove(old + ".handles")
	removeStaleTemps(filepath.Dir(s.indexPath()), ".index-*", ".delta-*")
}

// removeStaleTemps removes the files of dir matching patterns that are
// older than staleTemp: temporary files of writes that never finished.
func removeStaleTemps(dir string, patterns ...string) {
	for _, pattern := range patterns {
		names, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, name := range names {
			if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTemp {
				_ = os.Remove(name)
			}
		}
	}
}

// staleTemp is the age past which a temporary index file is an abandoned
// write: writing the largest base takes seconds.
const staleTemp = time.Hour

// advanceDelta moves the delta on disk from the tip a write started on to
// the commit it made, when the write never loaded the index: a create
// costs a rewrite of the delta (bounded by maxDelta), never of a file that
// grows with the store. A delta that is not at from is left alone (the
// next read catches up by the tree diff).
func (s *Store) advanceDelta(from, to plumbing.Hash, m *kernel.Mutation, blobs map[string]plumbing.Hash) {
	d, err := readDelta(s.deltaPath())
	if err != nil || d.tip != from {
		return
	}
	changes := make(map[string]*IndexEntry, len(m.Writes))
	for _, r := range m.Writes {
		changes[r.ID] = entryOf(r, blobs[RecordPath(r.Type, r.ID)])
	}
	if len(d.changes)+len(changes) > s.maxDelta() {
		// Time to merge: that needs the base.
		ix, err := s.loadIndex()
		if err != nil || ix.Tip != from {
			return
		}
		s.index, _ = s.saveIndex(ix.withChanges(to, changes))
		return
	}
	for id, e := range changes {
		d.changes[id] = e
	}
	d.tip = to
	_ = writeAtomic(s.deltaPath(), d.encode(), ".delta-*")
}

func (s *Store) maxCatchUp() int {
	if s.opts.catchUpLimit > 0 {
		return s.opts.catchUpLimit
	}
	return maxCatchUp
}

func (s *Store) maxDelta() int {
	if s.opts.deltaLimit > 0 {
		return s.opts.deltaLimit
	}
	return maxDelta
}

// writeAtomic replaces path with data through a temporary file and a
// rename, so a reader sees the old file or the new one, never a mix.
func writeAtomic(path string, data []byte, pattern string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeInPieces(tmp, data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// writeInPieces writes data to f in pieces of 64 KiB, not one write: the
// page cache keeps what one write puts in it as large folios (megabytes on
// ext4 with Linux 6.x), and a process that maps the file and reads one row
// of it then maps the whole folio. Written whole, the 79 MB base at 100k
// made every point read's resident set 54 MB; in pieces, 21 MB.
func writeInPieces(f *os.File, data []byte) error {
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 64<<10)
		if _, err := f.Write(rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}
