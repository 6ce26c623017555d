package gitdir

import (
	"compress/zlib"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// ObjectWriter writes loose objects in git's format, crash-safely: each
// object is written to a "tmp_obj_*" file in its objects/xx directory,
// fsynced and renamed to its final name, so a reader never sees a partial
// object and a crash leaves only a temporary file (git fsck tolerates those,
// git gc deletes them). The renames become durable only with Sync, which the
// caller runs once, after the last object and before moving a ref.
//
// It is safe for concurrent use.
type ObjectWriter struct {
	dir string // the objects directory

	mu    sync.Mutex
	dirty map[string]bool // directories with entries not yet fsynced
}

// NewObjectWriter writes into r.ObjectDir (<CommonDir>/objects when unset).
func (r *Repo) NewObjectWriter() *ObjectWriter {
	dir := r.ObjectDir
	if dir == "" {
		dir = filepath.Join(r.CommonDir, "objects")
	}
	return &ObjectWriter{dir: dir, dirty: map[string]bool{}}
}

// zlibWriters reuses compressors: a fresh one allocates about 1 MiB.
var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return w
}}

// Write stores one object and returns its hash. An object already present
// as a loose file is not written again, only "freshened" (its mtime set to
// now) as git does, so that a concurrent git gc does not prune an old
// unreachable object just as a new commit starts to reference it; its
// directory is still synced, in case its writer crashed before syncing it.
// Objects present only in packs are written again as loose files, which is
// harmless.
func (w *ObjectWriter) Write(t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, content)
	hex := h.String()
	dir := filepath.Join(w.dir, hex[:2])
	final := filepath.Join(dir, hex[2:])

	now := time.Now()
	err := os.Chtimes(final, now, now)
	if err != nil && !notExist(err) {
		// Present but not ours to touch (a shared repository): still present.
		_, err = os.Stat(final)
	}
	if err == nil {
		w.markDirty(dir)
		return h, nil
	}

	tmp, newDirs, err := createTemp(dir)
	if err != nil {
		return h, kernel.Wrap(kernel.CodeInternal, err, "write object %s", hex)
	}
	if err := writeLoose(tmp, t, content); err != nil {
		os.Remove(tmp.Name())
		return h, kernel.Wrap(kernel.CodeInternal, err, "write object %s", hex)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		os.Remove(tmp.Name())
		return h, kernel.Wrap(kernel.CodeInternal, err, "write object %s", hex)
	}

	w.markDirty(append(newDirs, dir)...)
	return h, nil
}

func (w *ObjectWriter) markDirty(dirs ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, d := range dirs {
		w.dirty[d] = true
	}
}

// WriteObject writes an object built with go-git (for example a commit
// encoded into a plumbing.MemoryObject).
func (w *ObjectWriter) WriteObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	rd, err := o.Reader()
	if err != nil {
		return plumbing.ZeroHash, kernel.Wrap(kernel.CodeInternal, err, "read object")
	}
	defer rd.Close()
	content, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, kernel.Wrap(kernel.CodeInternal, err, "read object")
	}
	return w.Write(o.Type(), content)
}

// Sync fsyncs the directories written to since the last Sync, making the
// objects' names durable. Call it before UpdateRef points at them.
func (w *ObjectWriter) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for dir := range w.dirty {
		if err := syncDir(dir); err != nil {
			return kernel.Wrap(kernel.CodeInternal, err, "fsync %s", dir)
		}
		delete(w.dirty, dir)
	}
	return nil
}

// createTemp creates a "tmp_obj_*" file in dir (git's prefix, which fsck
// skips and gc cleans), creating dir if needed; newDirs are directories whose
// entries changed by that. The file is created read-only, as git leaves
// objects; the open descriptor can still write it.
func createTemp(dir string) (f *os.File, newDirs []string, err error) {
	for range 100 {
		name := filepath.Join(dir, "tmp_obj_"+strconv.FormatUint(rand.Uint64(), 36))
		var made []string
		f, made, err = openFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		newDirs = append(newDirs, made...)
		// A name taken, or the fresh objects/xx directory removed again by a
		// concurrent git prune-packed before we could open in it: try again.
		if !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return f, newDirs, err
}

// writeLoose writes "<type> <size>\0<content>", zlib-compressed at git's
// core.looseCompression default (best speed), fsyncs and closes f.
func writeLoose(f *os.File, t plumbing.ObjectType, content []byte) error {
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	zw.Reset(f)
	header := append(t.Bytes(), ' ')
	header = strconv.AppendInt(header, int64(len(content)), 10)
	header = append(header, 0)
	_, err := zw.Write(header)
	if err == nil {
		_, err = zw.Write(content)
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
