package gitstore

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// freshObjects reads objects through an objectDir and, when an object or a
// pack it listed has gone, looks again with a new one. git gc, git repack and git maintenance (which git runs in the
// background by itself) move loose objects into a new pack and delete the
// packs it replaces; a storage opened before does not see the new pack and
// fails on the deleted one ("object not found", "packfile not found").
// Objects are read in full inside the retry, so a pack deleted between the
// lookup and the read is retried too. Every view of the store shares one
// freshObjects, so a reload serves them all.
type freshObjects struct {
	dir string

	mu  sync.Mutex
	cur *objectDir
}

// freshReads bounds the reloads for one read: each needs another repack
// to have replaced the packs in between.
const freshReads = 4

func newFreshObjects(dir string) *freshObjects {
	f := &freshObjects{dir: dir}
	f.cur = f.open()
	return f
}

func (f *freshObjects) open() *objectDir { return newObjectDir(filepath.Join(f.dir, "objects")) }

func (f *freshObjects) storage() *objectDir {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

// reload replaces stale with a new storage, unless another reader already
// did, and returns the current one.
func (f *freshObjects) reload(stale *objectDir) *objectDir {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur == stale {
		f.cur = f.open()
	}
	return f.cur
}

// movedByGC reports whether err may come from objects moved under us in a
// way the objectDir cannot see for itself. A loose object moved into a new
// pack it finds by listing the packs again on a miss, and a deleted pack it
// still reads through its open descriptor; what is left is a file that
// vanished between listing and opening. A plain "not found" is final:
// reloading for it only reopened every pack (and leaked the old ones).
func movedByGC(err error) bool {
	return errors.Is(err, fs.ErrNotExist) && !errors.Is(err, plumbing.ErrObjectNotFound)
}

func (f *freshObjects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	st := f.storage()
	for attempt := 1; ; attempt++ {
		o, err := st.EncodedObject(t, h)
		if err == nil || !movedByGC(err) || attempt == freshReads {
			return o, err
		}
		st = f.reload(st)
	}
}

func (f *freshObjects) HasEncodedObject(h plumbing.Hash) error {
	st := f.storage()
	err := st.HasEncodedObject(h)
	if err != nil && movedByGC(err) {
		err = f.reload(st).HasEncodedObject(h)
	}
	return err
}

func (f *freshObjects) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	st := f.storage()
	n, err := st.EncodedObjectSize(h)
	if err != nil && movedByGC(err) {
		n, err = f.reload(st).EncodedObjectSize(h)
	}
	return n, err
}

// dropPackPages gives back the resident pages of the mapped packs (see
// dropMappedPages) and empties their caches of resolved objects: a full
// read calls it as it goes, so a 130 MB pack read end to end does not stay
// 130 MB of its resident set, and the blobs it resolves from deltas (each
// read once) or the trees of the walk before it do not keep up to 32 MB of
// its heap live (64 MB of heap, with the collector's slack) while it
// builds an index.
func (f *freshObjects) dropPackPages() {
	d := f.storage()
	d.mu.Lock()
	packs := d.packs
	d.mu.Unlock()
	for _, p := range packs {
		if p.reader != nil {
			dropMappedPages(p.reader.data)
			p.reader.dropCache()
		}
	}
}

func (f *freshObjects) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

// The store writes through gitdir's crash-safe ObjectWriter, never here.
var errReadOnly = errors.New("gitstore: object reads only; writes go through gitdir.ObjectWriter")

func (f *freshObjects) SetEncodedObject(plumbing.EncodedObject) (plumbing.Hash, error) {
	return plumbing.ZeroHash, errReadOnly
}

func (f *freshObjects) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errReadOnly
}

func (f *freshObjects) AddAlternate(string) error { return errReadOnly }
