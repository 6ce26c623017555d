package gitstore

import (
	"iter"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// A streamed write is an op that writes more records than it may hold (an
// import of a hundred thousand notes). Its decision hands each batch of
// records over as it decides them: they are encoded and their blobs
// written into the op's own pack at once, and of each only its path and
// blob are kept. Once decided, the commit is judged as every commit is
// (kernel.JudgeCommit), its files read back one at a time from the pack
// not yet synced, and only then are its trees and signed commit written;
// the ref moves last, as for any op. A refused op drops its pack: nothing
// of it is ever seen.

// MutateStream runs a streamed op in the write loop as MutateApproved runs
// an op, holding of its records only their paths and blobs: decide hands
// each batch of records to write as it decides them (each with the
// payload it stands for, stored by hash with it).
func (s *Store) MutateStream(decide kernel.StreamFunc, approval kernel.Approval) (*Written, error) {
	r := &writeRequest{call: s.call, approval: approval, start: time.Now(), streams: true,
		decide: func(v *View, env kernel.Env) (*plannedWrite, error) { return &plannedWrite{streamed: decide}, nil }}
	w, _, err := s.runRequest(r)
	return w, err
}

// streamedFiles are the files a streamed op wrote into its pack: each
// path with its blob (written, in order, while it is decided; blobs, by
// path, once it is), and for a record that stands for a payload, the
// payload's path.
type streamedFiles struct {
	pack     *gitdir.PackWriter
	written  []streamedBlob
	blobs    map[string]plumbing.Hash
	payloads map[string]string // record path -> its payload's path
}

// streamedBlob is a record's blob written: its type and id, whose path is
// made once the op is decided, or ("" type) a payload's path.
type streamedBlob struct {
	typ, id string
	hash    plumbing.Hash
}

func (b streamedBlob) path() string {
	if b.typ == "" {
		return b.id
	}
	return RecordPath(b.typ, b.id)
}

// write encodes a batch of records on every core and writes their blobs
// and payloads into the pack.
func (f *streamedFiles) write(batch []kernel.ImportWrite) error {
	blobs := make([]streamedBlob, 0, 2*len(batch))
	contents := make([][]byte, 0, 2*len(batch))
	encoded, err := encodeAll(batch)
	if err != nil {
		return err
	}
	for i, w := range batch {
		blobs, contents = append(blobs, streamedBlob{typ: w.Record.Type, id: w.Record.ID}), append(contents, encoded[i])
		if w.Payload != nil {
			pp := kernel.PayloadPath(kernel.PayloadRef(w.Payload))
			f.payloads[RecordPath(w.Record.Type, w.Record.ID)] = pp
			blobs, contents = append(blobs, streamedBlob{id: pp}), append(contents, w.Payload)
		}
	}
	hs, err := f.pack.WriteAll(plumbing.BlobObject, contents)
	if err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "write blobs")
	}
	for i := range blobs {
		blobs[i].hash = hs[i]
	}
	f.written = append(f.written, blobs...)
	return nil
}

// encodeAll encodes the records of a batch, by one worker per core for a
// large one: the YAML codec is most of what writing a record costs.
func encodeAll(batch []kernel.ImportWrite) ([][]byte, error) {
	out := make([][]byte, len(batch))
	errs := make([]error, len(batch))
	workers := 1
	if len(batch) >= packThreshold {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(batch); i = int(next.Add(1) - 1) {
				out[i], errs[i] = EncodeRecord(batch[i].Record)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decided makes the files of the commit, once its op is decided: every
// file written, but the records it dropped and the payloads no record it
// keeps stands for.
func (f *streamedFiles) decided(dropped map[string]bool) {
	f.blobs = make(map[string]plumbing.Hash, len(f.written))
	for _, b := range f.written {
		f.blobs[b.path()] = b.hash
	}
	f.written = nil
	if len(dropped) == 0 {
		return
	}
	for p := range f.blobs {
		if _, id, ok := ParseRecordPath(p); ok && dropped[id] {
			delete(f.blobs, p)
			delete(f.payloads, p)
		}
	}
	kept := map[string]bool{}
	for _, pp := range f.payloads {
		kept[pp] = true
	}
	for p := range f.blobs {
		if kernel.IsPayloadPath(p) && !kept[p] {
			delete(f.blobs, p)
		}
	}
}

// changes are the files as the judgment reads them, in path order: each
// read back from the pack and decoded as it comes, with the version the
// parent (v) holds at its path. A window of files ahead is read back and
// decoded on every core (the YAML codec is most of the cost), so memory
// holds a window, never the commit.
func (f *streamedFiles) changes(s *Store, v *View) iter.Seq2[kernel.FileChange, error] {
	paths := make([]string, 0, len(f.blobs))
	for p := range f.blobs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return func(yield func(kernel.FileChange, error) bool) {
		const window = 256
		fcs := make([]kernel.FileChange, window)
		errs := make([]error, window)
		for lo := 0; lo < len(paths); lo += window {
			part := paths[lo:min(lo+window, len(paths))]
			// The parent's side in turn: its trees and records are read
			// through readers of one goroutine.
			for i, p := range part {
				fcs[i], errs[i] = f.parentSide(s, v, p)
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			for range runtime.GOMAXPROCS(0) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := int(next.Add(1) - 1); i < len(part); i = int(next.Add(1) - 1) {
						if errs[i] == nil {
							errs[i] = f.newSide(&fcs[i])
						}
					}
				}()
			}
			wg.Wait()
			for i := range part {
				fc, err := fcs[i], errs[i]
				fcs[i], errs[i] = kernel.FileChange{}, nil
				if !yield(fc, err) || err != nil {
					return
				}
			}
		}
	}
}

// parentSide is the change at p as far as the parent (v) tells: whether
// the file is new, and a record's version there.
func (f *streamedFiles) parentSide(s *Store, v *View, p string) (kernel.FileChange, error) {
	fc := kernel.FileChange{Path: p, Mode: "0100644", Regular: true}
	old, err := v.FileHash(p)
	if err != nil {
		return fc, err
	}
	fc.Added = old.IsZero()
	typ, id, isRecord := ParseRecordPath(p)
	if !isRecord {
		return fc, nil
	}
	fc.IsRecord, fc.Type, fc.ID = true, typ, id
	if !old.IsZero() {
		if fc.Old, err = s.readRecord(old); err != nil {
			fc.Old, fc.OldBroken = nil, true
		}
	}
	return fc, nil
}

// newSide reads fc's file back from the pack: a payload's bytes, or its
// record decoded as verify will decode it.
func (f *streamedFiles) newSide(fc *kernel.FileChange) error {
	_, data, ok, err := f.pack.Object(f.blobs[fc.Path])
	switch {
	case err != nil:
		return kernel.Wrap(kernel.CodeInternal, err, "read back %s", fc.Path)
	case !ok:
		return kernel.Errorf(kernel.CodeInternal, "the blob of %s is not in the pack being written", fc.Path)
	}
	switch {
	case kernel.IsPayloadPath(fc.Path):
		fc.Data = data
	case fc.IsRecord:
		fc.New, fc.NewErr = DecodeRecord(data)
	}
	return nil
}

// streamedView is the tree a streamed commit leaves, for its judgment by
// the write loop: its files, and the parent's for the rest. Its records
// are not held: only rules that warn ask for them (links resolving at the
// commit), and a writer judges without warnings, so asking is a bug.
type streamedView struct {
	*View
	files map[string]plumbing.Hash
}

func (a streamedView) HasFile(path string) (bool, error) {
	if _, ok := a.files[path]; ok {
		return true, nil
	}
	return a.View.HasFile(path)
}

func (a streamedView) notHeld() error {
	return kernel.Errorf(kernel.CodeInternal, "the records a streamed commit writes are not held: its judgment may not ask for them")
}

func (a streamedView) Record(string) (*kernel.Record, error) { return nil, a.notHeld() }
func (a streamedView) Resolve(string) (string, error)        { return "", a.notHeld() }
func (a streamedView) AliasOwner(string) (string, error)     { return "", a.notHeld() }
func (a streamedView) AllRecords() ([]*kernel.Record, error) { return nil, a.notHeld() }
func (a streamedView) Bindings() (*kernel.Bindings, error)   { return a.View.Bindings() }
func (a streamedView) Format() (int, error)                  { return a.View.Format() }

// decideStream runs a streamed op (r's plan, pw) on v: its records are
// written into a pack of its own as they are decided, then its commit is
// judged and built into the same pack, which joins the group's objects.
func (s *Store) decideStream(r *writeRequest, v *View, g *groupObjects, env kernel.Env, generated map[string]bool, pw *plannedWrite) (*built, error) {
	files := &streamedFiles{pack: s.repo.NewPackWriter(), payloads: map[string]string{}}
	landed := false
	defer func() {
		if !landed {
			files.pack.Abort() // refused, failed or panicked: no one will name its objects
		}
	}()
	m, dropped, err := pw.streamed(v, env, files.write)
	if err != nil {
		return nil, err
	}
	if m == nil {
		r.pw = pw
		return nil, nil
	}
	if len(m.Writes) > 0 || len(m.Files) > 0 {
		return nil, kernel.Errorf(kernel.CodeInternal, "a streamed %s op hands its records to write, not in its mutation", m.Op)
	}
	files.decided(dropped)
	pw.m = m
	r.st.m, r.st.streamed = m, true
	f, err := v.Format()
	if err != nil {
		return nil, err
	}
	if f > 0 {
		if err := kernel.CheckWritable(f, m.Op); err != nil {
			return nil, err
		}
	}
	if !s.opts.Ungated {
		l := &landing{view: v, m: m, stream: files, generated: generated}
		if r.st.auth, err = s.judgeLanding(l, r.approval, env); err != nil {
			return nil, err
		}
	}
	msg := CommitMessage{Subject: m.Subject(), Body: m.Message, Trailers: m.Trailers}
	b := &built{req: r, view: v, pw: pw, env: env}
	// The blobs are in the pack already: only the trees on their paths
	// and the commit are written, into the same pack.
	if b.made, _, err = s.buildCommit(files.pack, v, msg, nil, files.blobs, env); err != nil {
		return nil, err
	}
	b.commit, b.subject = b.made.hash, msg.Subject
	g.writers = append(g.writers, files.pack)
	landed = true
	return b, nil
}
