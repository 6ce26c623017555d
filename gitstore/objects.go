package gitstore

import (
	"errors"
	"io"
	"io/fs"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// freshObjects reads objects with go-git's filesystem storage and, when an
// object or a pack that storage listed has gone, looks again with a new
// storage. git gc, git repack and git maintenance (which git runs in the
// background by itself) move loose objects into a new pack and delete the
// packs it replaces; a storage opened before does not see the new pack and
// fails on the deleted one ("object not found", "packfile not found").
// Objects are read in full inside the retry, so a pack deleted between the
// lookup and the read is retried too. Every view of the store shares one
// freshObjects, so a reload serves them all.
type freshObjects struct {
	dir string

	mu  sync.Mutex
	cur *filesystem.Storage
}

// freshReads bounds the reloads for one read: each needs another repack
// to have replaced the packs in between.
const freshReads = 4

func newFreshObjects(dir string) *freshObjects {
	f := &freshObjects{dir: dir}
	f.cur = f.open()
	return f
}

func (f *freshObjects) open() *filesystem.Storage {
	return filesystem.NewStorage(osfs.New(f.dir), cache.NewObjectLRUDefault())
}

func (f *freshObjects) storage() *filesystem.Storage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

// reload replaces stale with a new storage, unless another reader already
// did, and returns the current one.
func (f *freshObjects) reload(stale *filesystem.Storage) *filesystem.Storage {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur == stale {
		f.cur = f.open()
	}
	return f.cur
}

// movedByGC reports whether err may come from objects moved under us.
func movedByGC(err error) bool {
	return errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, dotgit.ErrPackfileNotFound) ||
		errors.Is(err, fs.ErrNotExist)
}

func (f *freshObjects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	st := f.storage()
	for attempt := 1; ; attempt++ {
		o, err := readFull(st, t, h)
		if err == nil || !movedByGC(err) || attempt == freshReads {
			return o, err
		}
		st = f.reload(st)
	}
}

// readFull looks h up and reads its content into memory.
func readFull(st *filesystem.Storage, t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := st.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	if _, ok := o.(*plumbing.MemoryObject); ok {
		return o, nil
	}
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m := &plumbing.MemoryObject{}
	m.SetType(o.Type())
	if _, err := io.Copy(m, r); err != nil {
		return nil, err
	}
	return m, nil
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

func (f *freshObjects) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (f *freshObjects) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	return f.storage().SetEncodedObject(o)
}

func (f *freshObjects) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return f.storage().IterEncodedObjects(t)
}

func (f *freshObjects) AddAlternate(remote string) error { return f.storage().AddAlternate(remote) }
