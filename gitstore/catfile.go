package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/git-records/git-records/kernel"
)

// catFileObjects reads objects through one long-lived `git cat-file
// --batch`. The store uses it where go-git cannot see every object git
// can: inside a receive hook, where pushed objects sit in a quarantine
// directory named only by environment variables (GIT_OBJECT_DIRECTORY,
// GIT_ALTERNATE_OBJECT_DIRECTORIES), and in repositories with alternates.
type catFileObjects struct {
	storer.EncodedObjectStorer // nil: only reads are used; anything else panics loudly

	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	broken error // a read failed mid-stream: later answers would be misread
}

// needsGitObjects reports whether objects may live where go-git does not look.
func needsGitObjects(commonDir string) bool {
	for _, v := range []string{"GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	_, err := os.Stat(commonDir + "/objects/info/alternates")
	return err == nil
}

func newCatFileObjects(gitDir string) (*catFileObjects, error) {
	cmd := exec.Command("git", "--git-dir="+gitDir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	return &catFileObjects{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

func (c *catFileObjects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return nil, c.broken
	}
	o, err := c.read(t, h)
	if err != nil && !errors.Is(err, plumbing.ErrObjectNotFound) {
		c.broken = fmt.Errorf("git cat-file --batch stopped answering: %w", err)
	}
	return o, err
}

// read asks for one object; the caller holds the lock.
func (c *catFileObjects) read(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if _, err := fmt.Fprintf(c.in, "%s\n", h); err != nil {
		return nil, err
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	fields := bytes.Fields([]byte(header))
	if len(fields) == 2 && string(fields[1]) == "missing" {
		return nil, plumbing.ErrObjectNotFound
	}
	if len(fields) != 3 {
		return nil, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	typ, err := plumbing.ParseObjectType(string(fields[1]))
	if err != nil {
		return nil, err
	}
	size, err := strconv.ParseInt(string(fields[2]), 10, 64)
	if err != nil {
		return nil, err
	}
	data := make([]byte, size+1) // content and the trailing newline
	if _, err := io.ReadFull(c.out, data); err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && t != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	o.SetSize(size)
	_, _ = o.Write(data[:size])
	return o, nil
}

func (c *catFileObjects) HasEncodedObject(h plumbing.Hash) error {
	_, err := c.EncodedObject(plumbing.AnyObject, h)
	return err
}

func (c *catFileObjects) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	o, err := c.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, err
	}
	return o.Size(), nil
}

// Close ends the cat-file process.
func (c *catFileObjects) Close() error {
	c.in.Close()
	return c.cmd.Wait()
}

// batchedReads is the number of blobs from which readBlobs starts one
// `git cat-file --batch` rather than reading each blob on its own.
const batchedReads = 16

// readBlobs calls fn with the content of each blob, in order. Many blobs go
// through one `git cat-file --batch` (git resolves the pack deltas, and a
// goroutine feeds it every hash at once, so it never waits for us): one
// pass, each blob held only while fn runs, so memory does not grow with
// the number of blobs.
func (s *Store) readBlobs(hashes []plumbing.Hash, fn func(i int, data []byte) error) error {
	if len(hashes) < batchedReads {
		for i, h := range hashes {
			data, err := s.blob(h)
			if err != nil {
				return err
			}
			if err := fn(i, data); err != nil {
				return err
			}
		}
		return nil
	}
	cmd := exec.Command("git", "--git-dir="+s.repo.GitDir, "cat-file", "--batch", "--buffer")
	in, err := cmd.StdinPipe()
	if err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "git cat-file --batch")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "git cat-file --batch")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "start git cat-file --batch")
	}
	go func() {
		w := bufio.NewWriterSize(in, 1<<16)
		for _, h := range hashes {
			if _, err := w.WriteString(h.String() + "\n"); err != nil {
				break // the reader stopped and killed git
			}
		}
		w.Flush()
		in.Close()
	}()
	stop := func(err error) error {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	r := bufio.NewReaderSize(out, 1<<16)
	for i, h := range hashes {
		data, err := readBatchEntry(r, h)
		if err != nil {
			return stop(kernel.Wrap(kernel.CodeInternal, err, "read blob %s through git cat-file --batch %s", h, stderr.String()))
		}
		if err := fn(i, data); err != nil {
			return stop(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "git cat-file --batch: %s", stderr.String())
	}
	return nil
}

// readBatchEntry reads one answer of `git cat-file --batch`: a header, the
// content and a newline.
func readBatchEntry(r *bufio.Reader, h plumbing.Hash) ([]byte, error) {
	header, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(header)
	if len(fields) == 2 && fields[1] == "missing" {
		return nil, plumbing.ErrObjectNotFound
	}
	if len(fields) != 3 || fields[0] != h.String() || fields[1] != "blob" {
		return nil, fmt.Errorf("unexpected answer %q", header)
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return nil, fmt.Errorf("unexpected answer %q", header)
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, err
	}
	return data[:size], nil
}

var errStopped = errors.New("stopped")

// eachDecoded reads the blobs as readBlobs does and decodes each as a
// record, on as many cores as the process has, and calls fn with each in
// order on the caller's goroutine. Decoding (YAML) is most of a full
// read's work, and git and the decoders then run side by side; a few
// blobs at a time are in flight, so memory stays flat.
func (s *Store) eachDecoded(blobs []plumbing.Hash, fn func(i int, r *kernel.Record, err error) error) error {
	return s.eachDecodedWith(blobs, nil, func(i int, d decoded) error { return fn(i, d.r, d.err) })
}

// decoded is one blob decoded, with its index entry when asked for.
type decoded struct {
	r     *kernel.Record
	entry *IndexEntry
	err   error
}

// prepareDecoded is more work on a decoded record (its index entry, its
// body links), done on the decoding goroutine: reading body links costs
// about what decoding does, and there it runs on every core too.
type prepareDecoded func(d *decoded, blob plumbing.Hash)

// withEntry builds the index entry.
func withEntry(d *decoded, blob plumbing.Hash) { d.entry = entryOf(d.r, blob) }

func decodeBlob(data []byte, blob plumbing.Hash, prepare prepareDecoded) decoded {
	r, err := DecodeRecord(data)
	d := decoded{r: r, err: err}
	if prepare != nil && r != nil {
		prepare(&d, blob)
	}
	return d
}

// eachDecodedWith is eachDecoded, with prepare (when set) run on each
// record that decodes, on the decoding goroutines.
//
// The blobs go to a fixed pool of decoders in batches of decodeBatch,
// and come back to fn in order: a goroutine, two channel operations and
// the wake-ups they cause for every blob were a quarter of a full read's
// CPU, in the scheduler and the kernel. At most 2×workers batches are in
// flight, so memory stays flat.
//
// When the store reads objects itself (mapped packs, loose files), each
// decoder reads its own blobs: no git process, no pipe, and the
// inflating runs on every core. git cat-file --batch writes each blob
// with two writes that wake the reader (100,000 records: 200,000
// writes), which cost more CPU than reading the pack. Where objects may
// live where only git looks (a receive hook's quarantine, alternates),
// one `git cat-file --batch` reads them, as readBlobs does.
func (s *Store) eachDecodedWith(blobs []plumbing.Hash, prepare prepareDecoded, fn func(i int, d decoded) error) error {
	return s.eachDecodedFrom(blobs, nil, prepare, fn)
}

// blobSource hands out the blobs of a read while they are still being
// listed: next(start) returns decodeBatch blobs from the start'th on
// (fewer only at the end, none after it), waiting for them to be listed;
// an error is the listing's.
type blobSource func(start int) ([]plumbing.Hash, error)

// streams says whether eachDecodedFrom reads a blobSource as it comes:
// only where each decoder reads its own blobs, on more than one core.
// Elsewhere the caller lists every blob first.
func (s *Store) streams() bool {
	_, inProcess := s.objects.(*freshObjects)
	return inProcess && runtime.GOMAXPROCS(0) >= 2
}

// eachDecodedFrom is eachDecodedWith of blobs, or, when src is set (and
// s.streams()), of the blobs src hands out, read while src lists the rest.
func (s *Store) eachDecodedFrom(blobs []plumbing.Hash, src blobSource, prepare prepareDecoded, fn func(i int, d decoded) error) error {
	workers := runtime.GOMAXPROCS(0)
	_, inProcess := s.objects.(*freshObjects)
	streamed := src != nil && s.streams()
	if src != nil && !streamed {
		// Listed whole first, then read as a slice is.
		var err error
		if blobs, err = drainBlobs(src); err != nil {
			return err
		}
	}
	if !streamed {
		src = func(start int) ([]plumbing.Hash, error) {
			return blobs[min(start, len(blobs)):min(start+decodeBatch, len(blobs))], nil
		}
	}
	switch {
	case streamed:
		// The pool below, whatever the count.
	case inProcess && (workers < 2 || len(blobs) < decodeBatch):
		for i, h := range blobs {
			data, err := s.blobShared(h)
			if err != nil {
				return err
			}
			if err := fn(i, decodeBlob(data, h, prepare)); err != nil {
				return err
			}
		}
		return nil
	case !inProcess && (workers < 2 || len(blobs) < batchedReads):
		return s.readBlobs(blobs, func(i int, data []byte) error {
			return fn(i, decodeBlob(data, blobs[i], prepare))
		})
	}
	type batch struct {
		start, n int
		hashes   []plumbing.Hash
		data     [][]byte // read by git; nil: the decoder reads them
		out      []decoded
		err      error // a blob that could not be read
		done     chan struct{}
	}
	pending := make(chan *batch, 2*workers) // in blob order
	work := make(chan *batch, 2*workers)
	done := make(chan struct{})
	readErr := make(chan error, 1)
	for range workers {
		go func() {
			for b := range work {
				b.out = make([]decoded, b.n)
				for k := range b.n {
					h := b.hashes[k]
					var data []byte
					owned := false
					if b.data != nil {
						data = b.data[k]
					} else if data, owned, b.err = s.blobOwned(h); b.err != nil {
						b.out = b.out[:k]
						break
					}
					b.out[k] = decodeBlob(data, h, prepare)
					if owned {
						// DecodeRecord and prepare copy what they keep
						// (strings, never views of data).
						recycleBlob(data)
					}
				}
				b.data = nil
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(pending)
		defer close(work)
		send := func(b *batch) error {
			select {
			case pending <- b:
			case <-done:
				return errStopped
			}
			work <- b // a worker takes it: they never wait on us
			return nil
		}
		if inProcess {
			var err error
			for start := 0; err == nil; start += decodeBatch {
				var hashes []plumbing.Hash
				if hashes, err = src(start); err != nil || len(hashes) == 0 {
					break
				}
				if start%(dropPagesEvery*decodeBatch) == 0 {
					s.objects.(*freshObjects).dropPackPages()
				}
				err = send(&batch{start: start, n: len(hashes), hashes: hashes, done: make(chan struct{})})
			}
			readErr <- err
			return
		}
		var cur *batch
		err := s.readBlobs(blobs, func(i int, data []byte) error {
			if cur == nil {
				cur = &batch{start: i, data: make([][]byte, 0, decodeBatch), done: make(chan struct{})}
			}
			cur.hashes = append(cur.hashes, blobs[i])
			cur.data = append(cur.data, data)
			cur.n++
			if cur.n < decodeBatch {
				return nil
			}
			b := cur
			cur = nil
			return send(b)
		})
		if err == nil && cur != nil {
			err = send(cur)
		}
		readErr <- err
	}()
	var fnErr error
	stop := func(err error) {
		fnErr = err
		close(done)
	}
	for b := range pending {
		<-b.done
		if fnErr != nil {
			continue
		}
		for k := range b.out {
			if err := fn(b.start+k, b.out[k]); err != nil {
				stop(err)
				break
			}
		}
		if fnErr == nil && b.err != nil {
			stop(b.err)
		}
	}
	if inProcess {
		// What the last batches touched: the read is over.
		s.objects.(*freshObjects).dropPackPages()
	}
	if err := <-readErr; fnErr == nil && err != nil {
		return err
	}
	return fnErr
}

// drainBlobs is every blob src hands out.
func drainBlobs(src blobSource) ([]plumbing.Hash, error) {
	var all []plumbing.Hash
	for {
		hashes, err := src(len(all))
		if err != nil || len(hashes) == 0 {
			return all, err
		}
		all = append(all, hashes...)
	}
}

// decodeBatch is how many blobs a decoder takes at a time.
const decodeBatch = 64

// dropPagesEvery is how many batches a full read hands out between two
// drops of the packs' resident pages (8,192 blobs). Neither tree order nor
// list order follows the pack's (git writes blobs newest commit first),
// so the blobs of one stretch are scattered over the pack, and each first
// touch of a page maps the 64 KiB around it: after a drop the next
// stretch faults most of those pages in again. At 100k records a drop
// every 2,048 blobs cost list --json 58k page faults against 34k, a
// quarter of its CPU in this VM, for no lower peak (list --json 130-150
// MiB either way; reindex 225-233 against 243-245 MiB, under its 256).
const dropPagesEvery = 128
