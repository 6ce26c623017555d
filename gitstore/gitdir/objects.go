package gitdir

import (
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// ObjectWriter writes loose objects in git's format, crash-safely: each
// object is written to a "tmp_obj_*" file in its objects/xx directory,
// fsynced and renamed to its final name, so a reader never sees a partial
// object and a crash leaves only a temporary file (git fsck tolerates those,
// git gc deletes them).
//
// The fsyncs and renames happen in Sync, which the caller runs once, after
// the last object and before moving a ref: there the files are fsynced
// concurrently, renamed, and their directories fsynced concurrently, so the
// file system can commit them together instead of one journal flush per
// object. An object is therefore readable only after Sync. At most
// maxPending objects wait for it (each holds a file open); more flush early.
//
// It is safe for concurrent use.
type ObjectWriter struct {
	dir string // the objects directory

	mu      sync.Mutex
	dirty   map[string]bool            // directories with entries not yet fsynced
	pending map[plumbing.Hash]*pending // written, not yet fsynced and renamed
}

// pending is an object whose temporary file is written but not yet synced.
type pending struct {
	f           *os.File
	final, dir  string
	createdDirs []string
}

const maxPending = 128

// NewObjectWriter writes into r.ObjectDir (<CommonDir>/objects when unset).
func (r *Repo) NewObjectWriter() *ObjectWriter {
	dir := r.ObjectDir
	if dir == "" {
		dir = filepath.Join(r.CommonDir, "objects")
	}
	return &ObjectWriter{dir: dir, dirty: map[string]bool{}, pending: map[plumbing.Hash]*pending{}}
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

	w.mu.Lock()
	_, queued := w.pending[h]
	full := len(w.pending) >= maxPending
	w.mu.Unlock()
	if queued {
		return h, nil
	}
	if full {
		if err := w.Sync(); err != nil {
			return h, err
		}
	}
	tmp, newDirs, err := createTemp(dir)
	if err != nil {
		return h, fmt.Errorf("write object %s: %w", hex, err)
	}
	if err := writeLoose(tmp, t, content); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return h, fmt.Errorf("write object %s: %w", hex, err)
	}
	w.mu.Lock()
	w.pending[h] = &pending{f: tmp, final: final, dir: dir, createdDirs: newDirs}
	w.mu.Unlock()
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
		return plumbing.ZeroHash, fmt.Errorf("read object: %w", err)
	}
	defer rd.Close()
	content, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read object: %w", err)
	}
	return w.Write(o.Type(), content)
}

// Sync fsyncs the directories written to since the last Sync, making the
// objects' names durable. Call it before UpdateRef points at them.
func (w *ObjectWriter) Sync() error { return w.SyncAlongside(nil) }

// SyncAlongside is Sync that runs during, when not nil, alongside its last
// round, the fsyncs of the directories: after every object is fsynced and
// renamed, so during may take a ref's lock and fsync the new value into it
// (LockRef) while the objects' names are made durable, but must not move
// the ref. It returns Sync's error first, else during's; a caller that
// holds a lock from during gives it up when Sync failed.
func (w *ObjectWriter) SyncAlongside(during func() error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	objects := w.pending
	w.pending = map[plumbing.Hash]*pending{}
	err := parallel(len(objects), func(each func(func() error)) {
		for _, p := range objects {
			each(func() error {
				err := p.f.Sync()
				if cerr := p.f.Close(); err == nil {
					err = cerr
				}
				return err
			})
		}
	})
	for _, p := range objects {
		if err == nil {
			err = os.Rename(p.f.Name(), p.final)
		}
		if err != nil {
			os.Remove(p.f.Name())
			continue
		}
		w.dirty[p.dir] = true
		for _, d := range p.createdDirs {
			w.dirty[d] = true
		}
	}
	if err != nil {
		return fmt.Errorf("write objects: %w", err)
	}
	dirs := w.dirty
	w.dirty = map[string]bool{}
	var duringErr error
	n := len(dirs)
	if during != nil {
		n++
	}
	err = parallel(n, func(each func(func() error)) {
		if during != nil {
			each(func() error { duringErr = during(); return nil })
		}
		for dir := range dirs {
			each(func() error { return syncDir(dir) })
		}
	})
	if err != nil {
		return fmt.Errorf("fsync object directories: %w", err)
	}
	return duringErr
}

// parallel runs the functions fill hands to each concurrently and returns
// the first error.
func parallel(n int, fill func(each func(func() error))) error {
	if n == 0 {
		return nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	fill(func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				errs <- err
			}
		}()
	})
	wg.Wait()
	close(errs)
	return <-errs
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

// writeLoose writes "<type> <size>\0<content>" zlib-compressed at git's
// core.looseCompression default (best speed), or, for a tree or an object
// that fits one file-system block, in zlib's uncompressed blocks
// (storedUnder); Sync fsyncs and closes f.
func writeLoose(f *os.File, t plumbing.ObjectType, content []byte) error {
	header := append(t.Bytes(), ' ')
	header = strconv.AppendInt(header, int64(len(content)), 10)
	header = append(header, 0)
	if t == plumbing.TreeObject || len(content) < storedUnder {
		_, err := f.Write(appendStoredZlib(make([]byte, 0, storedZlibSize(len(header)+len(content))), header, content))
		return err
	}
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	zw.Reset(f)
	_, err := zw.Write(header)
	if err == nil {
		_, err = zw.Write(content)
	}
	if err == nil {
		err = zw.Close()
	}
	return err
}

// storedUnder is the size under which a loose object is stored without
// compression: its file takes one 4 KiB block compressed or not, and a
// process that compresses nothing never builds a compressor (about 0.5 MiB
// of tables, a millisecond or more of a create's six objects). A tree is
// stored whatever its size: it is mostly object names, which do not
// compress (PackWriter.StoreTrees). git reads any zlib stream, as it
// writes with core.looseCompression=0, and git gc compresses them later.
const storedUnder = 4096 - 64

// maxStoredBlock is the most a deflate stored block holds.
const maxStoredBlock = 65535

// storedZlibSize is the length of appendStoredZlib's stream of n bytes:
// the zlib header, 5 bytes per stored block, the Adler-32 checksum.
func storedZlibSize(n int) int {
	blocks := max(1, (n+maxStoredBlock-1)/maxStoredBlock)
	return 2 + 5*blocks + n + 4
}

// appendStoredZlib appends the concatenation of parts to dst as a zlib
// stream (RFC 1950) of stored deflate blocks (RFC 1951, BTYPE 00).
func appendStoredZlib(dst []byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	dst = append(dst, 0x78, 0x01) // deflate, 32 KiB window, fastest; (0x7801 % 31) == 0
	sum := adler32.New()
	left := n
	for {
		size := min(left, maxStoredBlock)
		left -= size
		final := byte(0)
		if left == 0 {
			final = 1
		}
		dst = append(dst, final, byte(size), byte(size>>8), ^byte(size), ^byte(size>>8))
		for size > 0 {
			k := min(size, len(parts[0]))
			dst = append(dst, parts[0][:k]...)
			sum.Write(parts[0][:k])
			parts[0] = parts[0][k:]
			size -= k
			if len(parts[0]) == 0 {
				parts = parts[1:]
			}
		}
		if left == 0 {
			break
		}
	}
	return binary.BigEndian.AppendUint32(dst, sum.Sum32())
}
