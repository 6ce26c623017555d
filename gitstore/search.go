package gitstore

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/search"
)

// The search index is derived like the graph index: keyed by the tip it
// reflects, caught up from the tree diff between that tip and the one
// asked for (the records that changed are read and decoded, nothing else),
// rebuilt from the branch when missing, unreadable or not in this
// history. A write never pays for it. A full read of the records builds it
// in the same pass as the graph index (reindex, the first read of a new
// clone: searchBuild), and a read that catches the graph index up from a
// tree diff (after a fetch, or another process's writes) brings it along
// from the records it decoded (followSearch); a search catches up
// whatever is left.
//
// Two files beside the graph index cache: the base segment,
// <ref>.search-<tip it was built at> (memory-mapped, rewritten only when
// the delta is merged into it), and the delta, <ref>.search (small,
// rewritten atomically by every catch-up), which names its base. Both
// name the store (its ref) and the tip they reflect, and every part is
// checksummed (search/segment.go): a file damaged or of another store or
// tip is rebuilt from the branch, never answered from. A base is written
// to a temporary file beside them (search.Output streams it there: a
// build or a merge holds neither the records nor the base in memory),
// mapped, and renamed into place.

func (s *Store) searchDeltaPath() string {
	return filepath.Join(s.dataDir(), "index", s.indexName()+".search")
}

func (s *Store) searchBasePath(tip [20]byte) string {
	return s.searchDeltaPath() + "-" + plumbing.Hash(tip).String()
}

// searchDocOf derives the search document of a decoded record.
func searchDocOf(r *kernel.Record, blob plumbing.Hash) *search.Doc {
	d := &search.Doc{ID: r.ID, Type: r.Type, Category: r.Category, Title: r.Title, Status: string(r.EffectiveStatus()),
		Kind: string(r.Kind), Role: string(r.Role), Authority: string(r.Authority), Tags: r.Tags, Aliases: r.Aliases,
		Body: r.Body, CreatedAt: r.CreatedAt.UnixMilli(), Blob: blob}
	if exp, ok := r.EffectiveExpiry(); ok {
		d.Expires = exp.UnixMilli()
	}
	return d
}

// loadSearchIndex reads the index files; nil when there are none or they
// do not parse (the caller rebuilds).
func (s *Store) loadSearchIndex() *search.Index {
	for range 3 { // a concurrent merge may replace the base between the two reads
		delta, err := os.ReadFile(s.searchDeltaPath())
		if err != nil {
			return nil
		}
		baseTip, err := search.DeltaBaseTip(delta)
		if err != nil {
			return nil
		}
		base, file, mapped := s.searchBase, s.searchBaseFile, false
		if base == nil || s.searchBaseTip != baseTip {
			if base, file, err = mapIndexFile(s.searchBasePath(baseTip)); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil
			}
			mapped = true
		}
		var ra io.ReaderAt // the file, for the search's point reads
		if file != nil {
			ra = file
		}
		ix, err := search.OpenFile(delta, base, ra)
		if err == nil && ix.Store != s.ref {
			err = search.ErrCorrupt // another store's files, copied in
		}
		if err != nil {
			if mapped {
				releaseIndexFile(base)
				if file != nil {
					file.Close()
				}
			}
			return nil
		}
		if mapped {
			s.setSearchBase(base, baseTip, true, file)
		}
		return ix
	}
	return nil
}

// setSearchBase makes base the base segment this process holds, and
// unmaps the one it replaces: a long-lived process (the MCP server) that
// follows the branch through many merges of the delta would otherwise
// keep every old base mapped, their files deleted but their pages held.
// Nothing else refers to the old one: the store is used by one caller at
// a time, and search results are copied out of the segment.
func (s *Store) setSearchBase(base []byte, tip [20]byte, mapped bool, file *os.File) {
	if s.searchBaseMapped && len(s.searchBase) > 0 && (len(base) == 0 || &s.searchBase[0] != &base[0]) {
		releaseIndexFile(s.searchBase)
	}
	if s.searchBaseFile != nil && s.searchBaseFile != file {
		s.searchBaseFile.Close()
	}
	s.searchBase, s.searchBaseTip, s.searchBaseMapped, s.searchBaseFile = base, tip, mapped, file
}

// searchFilesUnchanged says whether the delta file is as this process last
// read or wrote it: while it is, the index held in memory is the one on disk.
func (s *Store) searchFilesUnchanged() bool {
	fi, err := os.Stat(s.searchDeltaPath())
	old := s.searchDeltaStat
	return err == nil && old != nil && os.SameFile(fi, old) && fi.Size() == old.Size() && fi.ModTime().Equal(old.ModTime())
}

// holdSearch keeps ix as this process's search index, the delta file
// being as stat found it before it was read or after it was written.
func (s *Store) holdSearch(ix *search.Index, stat os.FileInfo) {
	s.search, s.searchDeltaStat = ix, stat
}

// CatchUpSearch brings the search index this process holds to tip, when
// it holds one (a search ran here): a long-lived process that follows the
// branch (the MCP server) answers the next search without a catch-up.
// Nothing happens otherwise.
func (s *Store) CatchUpSearch(tip plumbing.Hash) {
	if s.search != nil && !tip.IsZero() {
		_, _ = s.searchIndexAt(tip)
	}
}

// heldSearch is the search index this process holds while its files are
// as it left them, else the one on disk; nil when there is none.
func (s *Store) heldSearch() *search.Index {
	if ix := s.search; ix != nil && s.searchFilesUnchanged() {
		return ix
	}
	stat, _ := os.Stat(s.searchDeltaPath()) // before the read: a write after it shows as a change
	ix := s.loadSearchIndex()
	if ix != nil {
		s.holdSearch(ix, stat)
	}
	return ix
}

// searchIndexAt returns the search index at tip, caught up or rebuilt, and
// saved for the next process.
func (s *Store) searchIndexAt(tip plumbing.Hash) (*search.Index, error) {
	if tip.IsZero() {
		ix, _, err := search.New(s.ref, [20]byte(tip), nil)
		return ix, err
	}
	if ix := s.heldSearch(); ix != nil {
		if plumbing.Hash(ix.Tip) == tip {
			return ix, nil
		}
		// On failure (its tip gone with a rewritten branch or a gc, an
		// object unreadable) rebuild, which reports a real failure again.
		if changes, err := s.searchChanges(plumbing.Hash(ix.Tip), tip); err == nil {
			if next, err := s.applySearch(ix, tip, changes); err == nil {
				return next, nil
			}
		}
	} else if s.cachedIndex() == nil {
		// No index at all (a new clone): the graph index's full read
		// builds both, so the read that follows the search (a listing's
		// handles) does not read every record again.
		if _, err := s.indexAt(tip, newTreeReader(s.objects)); err != nil {
			return nil, err
		}
		if ix := s.heldSearch(); ix != nil && plumbing.Hash(ix.Tip) == tip {
			return ix, nil
		}
	}
	return s.buildSearchIndex(tip)
}

// followSearch brings the search index along a catch-up of the graph
// index from one tip to another, from the records that catch-up decoded:
// when the search index is at from (else a search catches it up itself).
func (s *Store) followSearch(from, to plumbing.Hash, changes []ChangedRecord) {
	ix := s.heldSearch()
	if ix == nil || plumbing.Hash(ix.Tip) != from {
		return
	}
	_, _ = s.applySearch(ix, to, searchChangesOf(changes))
}

// applySearch moves ix to tip by changes and saves it: the delta alone,
// or, when the delta has outgrown search.MaxDelta, a new base and an
// empty delta.
func (s *Store) applySearch(ix *search.Index, tip plumbing.Hash, changes []search.Change) (*search.Index, error) {
	next, err := ix.ApplyDelta([20]byte(tip), changes)
	if err != nil {
		return nil, err
	}
	if next.NeedsMerge() {
		return s.writeSearchBase(next.WriteBase)
	}
	s.saveSearchDelta(next)
	return next, nil
}

// buildSearchIndex builds the search index at tip from every record.
func (s *Store) buildSearchIndex(tip plumbing.Hash) (*search.Index, error) {
	b := s.newSearchBuild()
	defer b.release()
	// The walk streamed, on a tree reader of its own, as the graph
	// index's full read walks.
	err := s.changes(newTreeReader(s.objects), plumbing.ZeroHash, tip, nil, false, true, func(c ChangedRecord) error {
		if c.Err != nil && kernel.CodeOf(c.Err) == kernel.CodeInternal {
			return c.Err
		}
		b.add(c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.finish(tip)
}

// searchChanges reads the records that differ between two commits as
// search documents, through the store's one batched reader of changed
// records.
func (s *Store) searchChanges(from, to plumbing.Hash) ([]search.Change, error) {
	var changes []ChangedRecord
	err := s.EachChangedRecord(from, to, func(c ChangedRecord) error {
		changes = append(changes, c)
		return nil
	})
	return searchChangesOf(changes), err
}

// searchChangesOf is what changes make of the search index: a record that
// no longer decodes is dropped from it (verify names it), as the graph
// index does. Removals come first: an id gone from one path may be at
// another (a type it has on a rewritten branch), and its removal must not
// undo that.
func searchChangesOf(changes []ChangedRecord) []search.Change {
	var removed, put []search.Change
	for _, c := range changes {
		switch {
		case c.ID == "":
		case c.Record == nil:
			removed = append(removed, search.Change{ID: c.ID})
		default:
			put = append(put, search.Change{ID: c.ID, Doc: searchDocOf(c.Record, c.New)})
		}
	}
	return append(removed, put...)
}

// searchBuild is a search base being built from a full read of the
// records: search.Builder's runs go to temporary files beside the index
// (removed at once where the system allows, so nothing outlives the
// process), read back when it merges them. spill runs on the builder's
// goroutine, the merge on one of searchBuild's own; release waits for
// both.
type searchBuild struct {
	s    *Store
	b    *search.Builder
	runs []*os.File

	merged chan struct{} // closed when the base is written; nil until started
	out    *os.File      // the temporary file it is written to (nil: mem)
	mem    *search.MemFile
	err    error
}

func (s *Store) newSearchBuild() *searchBuild {
	b := &searchBuild{s: s}
	b.b = search.NewBuilder(s.ref, b.spill)
	return b
}

func (b *searchBuild) spill(run []byte) (io.ReaderAt, error) {
	dir := filepath.Dir(b.s.searchDeltaPath())
	if os.MkdirAll(dir, 0o755) == nil {
		if f, err := os.CreateTemp(dir, ".search-run-*"); err == nil {
			_ = os.Remove(f.Name())
			b.runs = append(b.runs, f)
			if writeInPieces(f, run) == nil {
				return f, nil
			}
		}
	}
	return bytes.NewReader(run), nil // no file: the run stays in memory
}

// add indexes a record the read handed out (one that does not decode is
// left out, as the graph index leaves it out).
func (b *searchBuild) add(c ChangedRecord) {
	if c.ID != "" && c.Record != nil {
		b.b.Add(searchDocOf(c.Record, c.New))
	}
}

// start starts writing the base of every record added, at tip, once the
// read is over: the graph index sorts and writes its tables meanwhile.
func (b *searchBuild) start(tip plumbing.Hash) {
	if b.merged != nil {
		return
	}
	b.merged = make(chan struct{})
	b.out = b.s.newSearchBaseFile()
	var out search.Output = b.out
	if b.out == nil {
		b.mem = &search.MemFile{}
		out = b.mem
	}
	go func() {
		defer close(b.merged)
		_, b.err = b.b.Finish([20]byte(tip), out)
	}()
}

// release waits for the builder and the merge, and closes (and removes)
// the runs' files and a base nothing installed.
func (b *searchBuild) release() {
	if b.merged != nil {
		<-b.merged
	}
	b.b.Close()
	for _, f := range b.runs {
		f.Close()
		_ = os.Remove(f.Name())
	}
	b.runs = nil
	if b.out != nil {
		b.out.Close()
		_ = os.Remove(b.out.Name())
		b.out = nil
	}
}

// finish writes the base of every record added, at tip, and saves the
// index: that base and an empty delta.
func (b *searchBuild) finish(tip plumbing.Hash) (*search.Index, error) {
	defer b.release()
	b.start(tip)
	<-b.merged
	if b.err != nil {
		return nil, b.err
	}
	out := b.out
	b.out = nil // installed, or removed by installSearchBase
	return b.s.installSearchBase(out, b.mem)
}

// writeSearchBase writes a base with write and saves it (installSearchBase).
func (s *Store) writeSearchBase(write func(search.Output) (int64, error)) (*search.Index, error) {
	out := s.newSearchBaseFile()
	var err error
	mem := &search.MemFile{}
	if out != nil {
		_, err = write(out)
	} else {
		_, err = write(mem)
	}
	if err != nil {
		if out != nil {
			out.Close()
			_ = os.Remove(out.Name())
		}
		return nil, err
	}
	return s.installSearchBase(out, mem)
}

// newSearchBaseFile is a temporary file beside the index for a base to be
// written to; nil where none can be written (the base is then written in
// memory).
func (s *Store) newSearchBaseFile() *os.File {
	dir := filepath.Dir(s.searchDeltaPath())
	if !mapsPacks || os.MkdirAll(dir, 0o755) != nil {
		return nil
	}
	f, err := os.CreateTemp(dir, ".search-base-*")
	if err != nil {
		return nil
	}
	return f
}

// installSearchBase opens a base written to out (or, out nil, to mem) as
// an index with an empty delta, and saves both: the file is mapped, then
// renamed into place; a base in memory stays there.
func (s *Store) installSearchBase(out *os.File, mem *search.MemFile) (*search.Index, error) {
	if out == nil {
		ix, err := search.OpenBase(mem.Bytes(), nil)
		if err != nil {
			return nil, err
		}
		s.setSearchBase(mem.Bytes(), ix.BaseTip, false, nil)
		s.saveSearchDelta(ix)
		return ix, nil
	}
	defer os.Remove(out.Name()) // once renamed, a no-op
	if err := out.Close(); err != nil {
		return nil, err
	}
	base, file, err := mapIndexFile(out.Name())
	if err != nil {
		return nil, err
	}
	ix, err := search.OpenBase(base, file)
	if err == nil && ix.Store != s.ref {
		err = search.ErrCorrupt
	}
	if err != nil {
		releaseIndexFile(base)
		file.Close()
		return nil, err
	}
	s.setSearchBase(base, ix.BaseTip, true, file)
	if removeDirAtFile(s.searchBasePath(ix.BaseTip)) != nil || os.Rename(out.Name(), s.searchBasePath(ix.BaseTip)) != nil {
		s.holdSearch(ix, nil) // held in memory even when it cannot be saved
		return ix, nil
	}
	s.saveSearchDelta(ix)
	// Older bases are garbage now; a process that still maps one keeps its
	// mapping, and one that reads the old delta after this finds its base
	// gone and reads the delta again. (RemoveAll: a directory where a base
	// belonged goes too.)
	keep := filepath.Base(s.searchBasePath(ix.BaseTip))
	old, _ := filepath.Glob(s.searchDeltaPath() + "-*")
	for _, p := range old {
		if filepath.Base(p) != keep {
			os.RemoveAll(p)
		}
	}
	removeStaleTemps(filepath.Dir(s.searchDeltaPath()), ".search-*")
	return ix, nil
}

// saveSearchDelta writes the delta file of ix, whose base is on disk
// already (a reader sees the old delta or the new one). A cache: failing
// to save costs the next process speed, not correctness.
func (s *Store) saveSearchDelta(ix *search.Index) {
	deltaPath := s.searchDeltaPath()
	s.holdSearch(ix, nil) // held in memory even when it cannot be saved
	if os.MkdirAll(filepath.Dir(deltaPath), 0o755) != nil || removeDirAtFile(deltaPath) != nil ||
		writeAtomic(deltaPath, ix.DeltaFile(), ".search-*") != nil {
		return
	}
	if stat, err := os.Stat(deltaPath); err == nil {
		s.holdSearch(ix, stat)
	}
}

// SearchOptions narrow a search.
type SearchOptions struct {
	Filter Filter // the list filters
	Limit  int    // at most this many hits; ≤ 0: all
	// Keep, when set, is asked about each hit that passes Filter, best
	// first, until Limit are kept (e.g. list --live's freshness test).
	Keep func(id string) (bool, error)
}

// SearchHit is one ranked record.
type SearchHit struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Type     string        `json:"type"`
	Category string        `json:"category,omitempty"`
	Status   kernel.Status `json:"status"`
	Score    float64       `json:"score"`
	Matched  []string      `json:"matched"` // the fields the query matched in
	search.Snippet
}

// Search runs a query (the language of search.ParseQuery) at this view's
// tip, bringing the search index up to it first.
func (v *View) Search(query string, o SearchOptions) ([]SearchHit, error) {
	q, err := search.ParseQuery(query)
	if err != nil {
		return nil, err
	}
	ix, err := v.s.searchIndexAt(v.tip)
	if err != nil {
		return nil, err
	}
	now := o.Filter.Now
	if now.IsZero() {
		now = time.Now()
	}
	keep := func(d *search.Doc) (bool, error) {
		e := &IndexEntry{ID: d.ID, Type: d.Type, Category: d.Category, Tags: d.Tags, Status: kernel.Status(d.Status),
			Kind: kernel.Kind(d.Kind), Role: kernel.Role(d.Role), Authority: kernel.Authority(d.Authority), Expires: d.Expires}
		if !o.Filter.match(e, now.UnixMilli()) {
			return false, nil
		}
		if o.Keep != nil {
			return o.Keep(d.ID)
		}
		return true, nil
	}
	hits, err := ix.Search(q, o.Limit, keep)
	if err != nil {
		if errors.Is(err, search.ErrCorrupt) {
			// Damaged after it was opened: rebuild and ask again.
			if ix, err = v.s.buildSearchIndex(v.tip); err == nil {
				hits, err = ix.Search(q, o.Limit, keep)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]SearchHit, len(hits))
	for i, h := range hits {
		out[i] = SearchHit{ID: h.Doc.ID, Title: h.Doc.Title, Type: h.Doc.Type, Category: h.Doc.Category,
			Status: kernel.Status(h.Doc.Status), Score: h.Score, Matched: h.Fields, Snippet: h.Snippet}
	}
	return out, nil
}

// reindexSearch installs the search index built at v's tip (rebuilt)
// and says how the one it replaces (cached, loaded before the rebuild)
// compared: current, behind (caught up, it agreed), missing (its files
// did not parse, or were not files) or drift (it disagreed with the
// branch, or a part failed its checksum); "" when there was none.
func (s *Store) reindexSearch(v *View, hadFiles bool, cached *search.Index, build *searchBuild) (string, error) {
	// The rebuild must not replace (and unmap) the base cached still reads.
	s.searchBase, s.searchBaseMapped, s.searchBaseFile = nil, false, nil
	rebuilt, err := build.finish(v.tip)
	if err != nil {
		return "", err
	}
	switch {
	case !hadFiles:
		return "", nil
	case cached == nil:
		return IndexMissing, nil
	}
	state := IndexCurrent
	if cached.Tip != rebuilt.Tip {
		// Catching up reads every part of the old delta; Agrees reads the
		// rest.
		changes, err := s.searchChanges(plumbing.Hash(cached.Tip), v.tip)
		if err == nil {
			cached, err = cached.ApplyDelta([20]byte(v.tip), changes)
		}
		if err != nil {
			return IndexDrift, nil // its tip is not in this history, or it is damaged
		}
		state = IndexBehind
	}
	// Every part checked (damaged bytes no search has read yet are drift),
	// and every document as stored, not only which blobs it came from: a
	// cache edited by hand must not pass.
	if same, err := search.Agrees(cached, rebuilt); err != nil || !same {
		return IndexDrift, nil
	}
	return state, nil
}

// removeDirAtFile removes a directory found where a file of an index
// belongs (nothing else is ever there: the index directory is this
// program's), so that reindex can write the file.
func removeDirAtFile(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return nil
	}
	if err := os.RemoveAll(path); err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "remove the directory where the index file %s belongs", path)
	}
	return nil
}
