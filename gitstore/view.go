package gitstore

import (
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/kernel"
)

// View is a consistent read of the store at one tip. It implements
// kernel.View, so ops validate against exactly the commit the write will
// replace. Exact-id reads walk the tree; handles, aliases, lists and links
// use the index, brought up to this tip only when first needed.
type View struct {
	s     *Store
	tip   plumbing.Hash // zero for a branch that does not exist yet
	root  plumbing.Hash // root tree of tip
	trees *treeReader
	// when is the tip's committer date, when the write path that made it
	// knows it (zero: read from the commit).
	when  time.Time
	index *Index
	walk  *Walk // set on a walk's views: handles come from its state
	// execRecords caches ExecutionRecords: a view reads one tip.
	execRecords []*kernel.Record
}

// View returns a view of the current tip.
func (s *Store) View() (*View, error) {
	tip, err := s.Tip()
	if err != nil {
		return nil, err
	}
	v, err := s.viewAt(tip)
	if err != nil {
		return nil, err
	}
	return v, s.checkFormat(v)
}

func (s *Store) viewAt(tip plumbing.Hash) (*View, error) {
	v := &View{s: s, tip: tip, trees: newTreeReader(s.objects)}
	if !tip.IsZero() {
		c, err := s.commit(tip)
		if err != nil {
			return nil, err
		}
		v.root = c.TreeHash
	}
	return v, nil
}

// Tip is the commit this view reads.
func (v *View) Tip() plumbing.Hash { return v.tip }

// Exists reports whether the records branch exists.
func (v *View) Exists() bool { return !v.tip.IsZero() }

// typeDirs lists the record types present on the branch.
func (v *View) typeDirs() ([]string, plumbing.Hash, error) {
	h, mode, err := v.trees.lookup(v.root, "records")
	if err != nil || h.IsZero() || mode != filemode.Dir {
		return nil, plumbing.ZeroHash, err
	}
	t, err := v.trees.tree(h)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	types := make([]string, 0, len(t.Entries))
	for _, e := range t.Entries {
		if e.Mode == filemode.Dir {
			types = append(types, e.Name)
		}
	}
	return types, h, nil
}

// recordBlob finds the blob of record id by probing each type directory:
// a handful of small tree reads, independent of the number of records.
func (v *View) recordBlob(id string) (plumbing.Hash, error) {
	if v.index != nil {
		if e := v.index.Entry(id); e != nil {
			return e.Blob, nil
		}
		return plumbing.ZeroHash, nil
	}
	if kernel.ValidateID(id) != nil {
		return plumbing.ZeroHash, nil
	}
	types, recordsTree, err := v.typeDirs()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	rel := shard(id) + "/" + id + ".md"
	for _, typ := range types {
		e, ok, err := v.trees.entry(recordsTree, typ)
		if err != nil || !ok {
			return plumbing.ZeroHash, err
		}
		h, _, err := v.trees.lookup(e.Hash, rel)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if !h.IsZero() {
			return h, nil
		}
	}
	return plumbing.ZeroHash, nil
}

// Record returns the record with exactly this id, or nil. Its links are the
// frontmatter's only; WithBodyLinks adds the body's wikilinks for output.
func (v *View) Record(id string) (*kernel.Record, error) {
	h, err := v.recordBlob(id)
	if err != nil || h.IsZero() {
		return nil, err
	}
	return v.s.readRecord(h)
}

func (s *Store) readRecord(h plumbing.Hash) (*kernel.Record, error) {
	data, err := s.blobShared(h) // DecodeRecord copies what it keeps
	if err != nil {
		return nil, err
	}
	r, err := DecodeRecord(data)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeOf(err), err, "record blob %s", h)
	}
	return r, nil
}

// Resolve turns a handle into an id (Addendum H): an exact id needs no index.
func (v *View) Resolve(handle string) (string, error) {
	if v.walk == nil {
		if ix := v.currentIndex(); ix != nil {
			// One binary search in the mapped index, where the tree
			// lookup below reads (and inflates) four trees.
			return ix.Resolve(handle)
		}
	}
	if h, err := v.recordBlob(handle); err != nil || !h.IsZero() {
		return handle, err
	}
	if v.walk != nil {
		hs, err := v.walk.handlesAt(v.tip)
		if err != nil {
			return "", err
		}
		return kernel.ResolveHandle(hs, handle)
	}
	ix, err := v.Index()
	if err != nil {
		return "", err
	}
	return ix.Resolve(handle)
}

// ShortHandle is Index.ShortHandle from the index Resolve would search
// (one that reflects this view's tip); ok is false without one.
func (v *View) ShortHandle(id string) (string, bool) {
	if v.walk != nil {
		return "", false
	}
	ix := v.currentIndex()
	if ix == nil {
		return "", false
	}
	return ix.ShortHandle(id)
}

// AliasOwner returns the id that holds alias, or "".
func (v *View) AliasOwner(alias string) (string, error) {
	if v.walk != nil {
		hs, err := v.walk.handlesAt(v.tip)
		if err != nil {
			return "", err
		}
		id, _ := hs.AliasTarget(alias)
		return id, nil
	}
	ix, err := v.Index()
	if err != nil {
		return "", err
	}
	id, _ := ix.AliasTarget(alias)
	return id, nil
}

// Get resolves a handle and returns the record with its body links, or nil.
func (v *View) Get(handle string) (*kernel.Record, error) {
	id, err := v.Resolve(handle)
	if err != nil || id == "" {
		return nil, err
	}
	r, err := v.Record(id)
	if err != nil || r == nil {
		return nil, err
	}
	return WithBodyLinks(r), nil
}

// WithBodyLinks returns r with its body's wikilinks appended to its links
// (kind related, label kept), each (target, kind) once, as get returns it.
func WithBodyLinks(r *kernel.Record) *kernel.Record {
	extra := BodyLinks(r.Body)
	if len(extra) == 0 {
		return r
	}
	c := r.Clone()
	c.Links = kernel.UnionLinks(c.Links, extra)
	return c
}

// currentIndex returns the index when one already reflects this view's tip
// (this process's, or the file on disk), without catching anything up; nil
// otherwise. A point read uses it instead of walking trees.
func (v *View) currentIndex() *Index {
	if v.index != nil {
		return v.index
	}
	if v.s.index == nil {
		// indexAt starts from s.index too: what is loaded here is loaded once.
		v.s.index, _ = v.s.loadIndex()
	}
	if ix := v.s.index; ix != nil && ix.Tip == v.tip {
		v.index = ix
		return ix
	}
	return nil
}

// Index returns the index at this view's tip, catching the store's cached
// index up from the tree diff between the tip it reflects and this one.
func (v *View) Index() (*Index, error) {
	if v.index != nil {
		return v.index, nil
	}
	ix, err := v.s.indexAt(v.tip, v.trees)
	if err != nil {
		return nil, err
	}
	v.index = ix
	return ix, nil
}

// ReadFile returns a non-record file on the branch (e.g. .records/policy.yaml); nil when absent.
func (v *View) ReadFile(path string) ([]byte, error) {
	h, mode, err := v.trees.lookup(v.root, path)
	if err != nil || h.IsZero() || mode == filemode.Dir {
		return nil, err
	}
	return v.s.blob(h)
}

// FileHash returns the blob hash of a file on the branch (zero when absent).
func (v *View) FileHash(path string) (plumbing.Hash, error) {
	h, mode, err := v.trees.lookup(v.root, path)
	if err != nil || mode == filemode.Dir {
		return plumbing.ZeroHash, err
	}
	return h, nil
}

// HasFile reports whether the tree holds a file at path (kernel.CommitView).
func (v *View) HasFile(path string) (bool, error) {
	h, err := v.FileHash(path)
	return !h.IsZero(), err
}
