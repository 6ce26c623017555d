package gitstore

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/search"
)

// The search index is derived like the graph index: keyed by the tip it
// reflects, caught up from the tree diff between that tip and the one
// asked for (the records that changed are read and decoded, nothing else),
// rebuilt from the branch when missing, unreadable or not in this
// history. It is kept only by the commands that search (and by reindex
// once it exists): a write does not pay for it.
//
// Two files beside the graph index cache: the base segment,
// <ref>.search-<tip it was built at> (memory-mapped, rewritten only when
// the delta is merged into it), and the delta, <ref>.search (small,
// rewritten atomically by every catch-up), which names its base. Both
// name the store (its ref) and the tip they reflect, and every part is
// checksummed (search/segment.go): a file damaged or of another store or
// tip is rebuilt from the branch, never answered from.

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
// Nothing happens otherwise: writes never pay for the search index.
func (s *Store) CatchUpSearch(tip plumbing.Hash) {
	if s.search != nil && !tip.IsZero() {
		_, _ = s.searchIndexAt(tip)
	}
}

// searchIndexAt returns the search index at tip, caught up or rebuilt, and
// saved for the next process.
func (s *Store) searchIndexAt(tip plumbing.Hash) (*search.Index, error) {
	if tip.IsZero() {
		ix, _, err := search.New(s.ref, [20]byte(tip), nil)
		return ix, err
	}
	// The index this process holds, when the files are still as it left
	// them: no file is read again, only the records that changed since.
	if ix := s.search; ix != nil && s.searchFilesUnchanged() {
		if plumbing.Hash(ix.Tip) == tip {
			return ix, nil
		}
		if next, err := s.catchUpSearch(ix, tip); err == nil {
			return next, nil
		}
	}
	stat, _ := os.Stat(s.searchDeltaPath()) // before the read: a write after it shows as a change
	if ix := s.loadSearchIndex(); ix != nil {
		s.holdSearch(ix, stat)
		if plumbing.Hash(ix.Tip) == tip {
			return ix, nil
		}
		// On failure (its tip gone with a rewritten branch or a gc, an
		// object unreadable) rebuild, which reports a real failure again.
		if next, err := s.catchUpSearch(ix, tip); err == nil {
			return next, nil
		}
	}
	return s.buildSearchIndex(tip)
}

func (s *Store) catchUpSearch(ix *search.Index, tip plumbing.Hash) (*search.Index, error) {
	next, newBase, err := s.applySearchDiff(ix, tip)
	if err != nil {
		return nil, err
	}
	s.saveSearchIndex(next, newBase)
	return next, nil
}

// applySearchDiff moves ix to tip by the tree diff, writing nothing.
func (s *Store) applySearchDiff(ix *search.Index, tip plumbing.Hash) (*search.Index, []byte, error) {
	changes, err := s.searchChanges(plumbing.Hash(ix.Tip), tip)
	if err != nil {
		return nil, nil, err
	}
	return ix.Apply([20]byte(tip), changes)
}

func (s *Store) buildSearchIndex(tip plumbing.Hash) (*search.Index, error) {
	changes, err := s.searchChanges(plumbing.ZeroHash, tip)
	if err != nil {
		return nil, err
	}
	docs := make([]*search.Doc, 0, len(changes))
	for _, c := range changes {
		if c.Doc != nil {
			docs = append(docs, c.Doc)
		}
	}
	ix, base, err := search.New(s.ref, [20]byte(tip), docs)
	if err != nil {
		return nil, err
	}
	s.saveSearchIndex(ix, base)
	return ix, nil
}

// searchChanges reads the records that differ between two commits (zero
// from: every record) as search documents, through the store's one
// batched reader of changed records; a record that no longer decodes is
// dropped from the index (verify names it), as the graph index does.
func (s *Store) searchChanges(from, to plumbing.Hash) ([]search.Change, error) {
	var removed, out []search.Change
	err := s.EachChangedRecord(from, to, func(c ChangedRecord) error {
		switch {
		case c.ID == "":
		case c.Record == nil:
			removed = append(removed, search.Change{ID: c.ID})
		default:
			out = append(out, search.Change{ID: c.ID, Doc: searchDocOf(c.Record, c.New)})
		}
		return nil
	})
	// Removals first: an id gone from one path may be at another (a type
	// it has on a rewritten branch), and its removal must not undo that.
	return append(removed, out...), err
}

// saveSearchIndex writes the index's files: a new base first, then the
// delta that names it (a reader sees the old pair or the new one). A cache:
// failing to save costs the next process speed, not correctness.
func (s *Store) saveSearchIndex(ix *search.Index, newBase []byte) {
	deltaPath := s.searchDeltaPath()
	if err := os.MkdirAll(filepath.Dir(deltaPath), 0o755); err != nil {
		return
	}
	s.holdSearch(ix, nil) // held in memory even when it cannot be saved
	if newBase != nil {
		s.setSearchBase(newBase, ix.BaseTip, false, nil)
		if writeAtomic(s.searchBasePath(ix.BaseTip), newBase, ".search-*") != nil {
			return
		}
	}
	if writeAtomic(deltaPath, ix.DeltaFile(), ".search-*") != nil {
		return
	}
	if stat, err := os.Stat(deltaPath); err == nil {
		s.holdSearch(ix, stat)
	}
	if newBase == nil {
		return
	}
	// Older bases are garbage now; a process that still maps one keeps its
	// mapping, and one that reads the old delta after this finds its base
	// gone and reads the delta again. (RemoveAll: a directory where a base
	// belonged goes too.)
	keep := filepath.Base(s.searchBasePath(ix.BaseTip))
	old, _ := filepath.Glob(deltaPath + "-*")
	for _, p := range old {
		if filepath.Base(p) != keep {
			os.RemoveAll(p)
		}
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

// reindexSearch rebuilds the search index at v's tip when there is one,
// and says how the old one compared: current, behind (caught up, it
// agreed), missing (its files did not parse, or were not files) or drift
// (it disagreed with the branch, or a part failed its checksum).
func (s *Store) reindexSearch(v *View) (string, error) {
	if _, err := os.Stat(s.searchDeltaPath()); err != nil {
		return "", nil
	}
	cached := s.loadSearchIndex()
	// The rebuild must not replace (and unmap) the base cached still reads.
	s.searchBase, s.searchBaseMapped, s.searchBaseFile = nil, false, nil
	// A directory where a file of the index belongs would keep the rebuilt
	// one from being saved, and every search rebuilding.
	for _, p := range []string{s.searchDeltaPath(), s.searchBasePath(v.tip)} {
		if err := removeDirAtFile(p); err != nil {
			return "", err
		}
	}
	rebuilt, err := s.buildSearchIndex(v.tip)
	if err != nil {
		return "", err
	}
	if cached == nil {
		return IndexMissing, nil
	}
	if cached.Verify() != nil {
		return IndexDrift, nil // damaged bytes no search has read yet
	}
	state := IndexCurrent
	if cached.Tip != rebuilt.Tip {
		if cached, _, err = s.applySearchDiff(cached, v.tip); err != nil {
			return IndexDrift, nil // its tip is not in this history
		}
		state = IndexBehind
	}
	// Every document as stored, not only which blobs it came from: a cache
	// edited by hand must not pass.
	a, errA := cached.Docs()
	b, errB := rebuilt.Docs()
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
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
