package gitstore

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// Decision is an op as the write loop runs it (kernel.DecideFunc); the
// view it is given is a *View.
type Decision = kernel.DecideFunc

// Written reports a successful mutation.
type Written struct {
	Commit   plumbing.Hash // zero when the op changed nothing
	Mutation *kernel.Mutation
	Attempts int
}

// Mutate runs decide against the tip and commits its mutation with a
// compare-and-swap of the branch from that tip. On a lost race the op is
// decided again on the new tip — so a rule checked against one tip always
// holds for the commit that lands — up to MaxRetries times. The policy gate
// judges every commit before it is written; see write.
func (s *Store) Mutate(decide Decision) (*Written, error) {
	return s.MutateApproved(decide, kernel.Approval{})
}

// MutateApproved is Mutate with the caller's approval of an op the policy
// marks as needing one.
func (s *Store) MutateApproved(decide Decision, approval kernel.Approval) (*Written, error) {
	return s.MutateCall(s.call, decide, approval)
}

// MutateCall is MutateApproved for one call of a front-end (the op it asked
// for, its agent and input), which the op's audit line names.
func (s *Store) MutateCall(call Call, decide Decision, approval kernel.Approval) (*Written, error) {
	w, _, err := s.write(call, planOf(decide), approval, false)
	return w, err
}

// planOf is an op's decision as a plan of the write loop.
func planOf(decide Decision) plan {
	return func(v *View, env kernel.Env) (*plannedWrite, error) {
		m, err := decide(v, env)
		if err != nil || m == nil {
			return nil, err
		}
		return &plannedWrite{m: m}, nil
	}
}

// plannedWrite is what one attempt of the write loop does on its tip:
// commit m (with a second parent for a merge), or move the ref to an
// existing commit (a fast-forward).
type plannedWrite struct {
	m      *kernel.Mutation
	have   map[string]plumbing.Hash // files of the commit already stored as these blobs
	merged plumbing.Hash            // the second parent of a merge commit
	// theirChanges are what the second parent changed since the merge
	// base, for the merge commit's judgment.
	theirChanges []Change
	moveTo       plumbing.Hash // a fast-forward to this commit: nothing is written
	// replayed is the commit this one decides again on a new parent
	// (replay.go): what its judgment refuses does not apply there.
	replayed plumbing.Hash
	// streamed is an op decided as a stream (stream.go); m is set once
	// it is decided.
	streamed kernel.StreamFunc
}

// plan decides, on one tip, what to write; nil for nothing.
type plan func(v *View, env kernel.Env) (*plannedWrite, error)

// write is the one write loop: every commit the store writes (init, ops,
// policy, merge, sync, hook install) goes through it. On each attempt it
// decides on the tip, refuses a ref that holds no records store (unless
// creating one, on a ref that has no tip), runs the policy gate, writes the
// commit and moves the ref by compare-and-swap; a lost race decides again.
// Every op it runs, whatever its outcome, appends one audit line. In a
// store whose front-end serves concurrent requests (ShareWrites), ops that
// arrive while a commit is in flight are written together (group.go).
func (s *Store) write(call Call, decide plan, approval kernel.Approval, creates bool) (*Written, *plannedWrite, error) {
	return s.runRequest(&writeRequest{call: call, decide: decide, approval: approval, creates: creates, start: time.Now()})
}

// runRequest runs r in the write loop (write).
func (s *Store) runRequest(r *writeRequest) (*Written, *plannedWrite, error) {
	if s.shared == nil {
		s.runGroup([]*writeRequest{r})
	} else {
		s.queueWrite(r)
	}
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.w, r.pw, r.err
}

// decideOn runs r's decision on v and every check of the write path (the
// store's format, the policy gate, the postcondition, payloads, the binding
// manifest), then writes its commit's objects into g without syncing
// them. A nil built with a nil error is an op that changed nothing (r is
// finished); an error refuses r alone.
func (s *Store) decideOn(r *writeRequest, v *View, g *groupObjects) (*built, error) {
	st := &r.st
	st.view = v
	tip := v.tip
	if !(r.creates && tip.IsZero()) {
		if err := s.requireStore(v); err != nil {
			return nil, err
		}
	}
	generated := map[string]bool{}
	env := kernel.Env{Now: s.opts.Now(), NewID: func() string {
		id := s.opts.NewID()
		generated[id] = true
		return id
	}, Principal: func() (string, error) {
		tr, err := v.Trust()
		if err != nil {
			return "", err
		}
		return s.PrincipalAt(tr)
	}}
	pw, err := r.decide(v, env)
	if err != nil {
		return nil, err
	}
	if pw != nil && pw.streamed != nil {
		return s.decideStream(r, v, g, env, generated, pw)
	}
	if pw == nil || (pw.m == nil && pw.moveTo.IsZero()) {
		r.pw = pw
		return nil, nil
	}
	st.m = pw.m
	if pw.m != nil && !tip.IsZero() {
		// A newer format is not ours to write; an older one is
		// migrated first (kernel.CheckWritable).
		f, err := v.Format()
		if err != nil {
			return nil, err
		}
		if f > 0 {
			if err := kernel.CheckWritable(f, pw.m.Op); err != nil {
				return nil, err
			}
		}
	}
	b := &built{req: r, view: v, pw: pw, env: env, commit: pw.moveTo, subject: "fast-forward " + pw.moveTo.String()}
	m := pw.m
	if m == nil {
		return b, nil
	}
	if tip.IsZero() && m.Files[FormatPath] == nil {
		return nil, s.notInitialized()
	}
	files := make(map[string][]byte, len(m.Writes)+len(m.Files))
	for p, data := range m.Files {
		files[p] = data
	}
	// Each record is read back from the bytes that will be written, as
	// verify will read it (a merge's records are judged by the merge rules).
	encoded, back, err := encodeRecords(m, pw.merged.IsZero())
	if err != nil {
		return nil, err
	}
	for i, r := range m.Writes {
		files[RecordPath(r.Type, r.ID)] = encoded[i]
	}
	if !s.opts.Ungated {
		l := &landing{view: v, m: m, back: back, files: files, have: pw.have, merged: pw.merged, theirChanges: pw.theirChanges, generated: generated, replayed: pw.replayed}
		if st.auth, err = s.judgeLanding(l, r.approval, env); err != nil {
			return nil, err
		}
	}
	msg := CommitMessage{Subject: m.Subject(), Body: m.Message, Trailers: m.Trailers}
	var parents []plumbing.Hash
	if !pw.merged.IsZero() {
		parents = append(parents, pw.merged)
	}
	// Every path the commit changes rewrites its trees: a merge that takes
	// a thousand of theirs' records writes no blob but hundreds of trees.
	w := g.writer(len(files) + len(pw.have))
	if b.made, b.blobs, err = s.buildCommit(w, v, msg, files, pw.have, env, parents...); err != nil {
		return nil, err
	}
	b.commit = b.made.hash
	b.subject = msg.Subject
	return b, nil
}

// landed updates this process's caches for a commit now on the ref: the
// index and its observers, and the graph file of a standalone store.
func (s *Store) landed(b *built) error {
	switch {
	case b.pw.streamed != nil:
		// A streamed op's commit is too large to index from memory: the
		// next read catches the index up from the tree diff, as after a
		// fetch, bounded there.
	case b.alone():
		s.indexMerged(b.commit)
	default:
		s.indexWritten(b.view, b.commit, b.pw.m, b.blobs)
	}
	return s.writeGraphFile()
}

// encodeRecords encodes the records m writes and, with readBack, decodes
// each from its bytes again, as verify will read it. A batch (an import,
// a large merge) is encoded by one worker per core: the YAML codec is
// most of its cost.
func encodeRecords(m *kernel.Mutation, readBack bool) ([][]byte, []*kernel.Record, error) {
	encoded := make([][]byte, len(m.Writes))
	back := make([]*kernel.Record, len(m.Writes))
	errs := make([]error, len(m.Writes))
	one := func(i int) {
		r := m.Writes[i]
		if encoded[i], errs[i] = EncodeRecord(r); errs[i] != nil || !readBack {
			return
		}
		if back[i], errs[i] = DecodeRecord(encoded[i]); errs[i] != nil {
			errs[i] = kernel.Wrap(kernel.CodeInternal, errs[i], "%s writes record %s that does not read back", m.Op, r.ID)
		}
	}
	workers := 1
	if len(m.Writes) >= packThreshold {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(m.Writes); i = int(next.Add(1) - 1) {
				one(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return encoded, back, nil
}

// generatedIDs is a view for the write path's check that knows which ids
// this attempt generated: 128 random bits are no one's alias, so, as
// kernel.Create does, a generated id costs no alias lookup (which would
// load the index on a write that otherwise needs only the tree).
type generatedIDs struct {
	*View
	ids map[string]bool
}

func (g generatedIDs) AliasOwner(alias string) (string, error) {
	if g.ids[alias] {
		return "", nil
	}
	return g.View.AliasOwner(alias)
}

// requireStore refuses a write to a ref that holds no records store: only
// init creates one, so a typo in --ref or a write before init never makes a
// branch whose root verify would reject.
func (s *Store) requireStore(v *View) error {
	if v.Exists() {
		if h, err := v.FileHash(FormatPath); err != nil || !h.IsZero() {
			return err
		}
	}
	return s.notInitialized()
}

func (s *Store) notInitialized() error {
	if tip, _ := s.Tip(); !tip.IsZero() {
		return kernel.Errorf(kernel.CodeNotInitialized, "%s is not a records store (it has no %s): records live on their own branch; run git records init, or pick the records branch with --ref or git config records.ref", s.ref, FormatPath).
			WithExtra("ref", s.ref)
	}
	init := "git records init"
	if _, err := s.Signer(); kernel.IsCode(err, kernel.CodeNoSigningKey) {
		init += " --generate-key" // nothing to sign with yet: init makes a key too
	}
	msg := "%s has no records store yet: run " + init + " to create it"
	if s.ref != DefaultRef {
		msg += " (records.ref or --ref named this ref; the default is " + DefaultRef + ": check it is not a typo)"
	}
	return kernel.Errorf(kernel.CodeNotInitialized, msg, s.ref).WithExtra("ref", s.ref)
}

// maxLockedAttempts bounds the attempts that find the ref's lock taken. Each
// has already waited the lock timeout (git's core.filesRefLockTimeout) for
// the holder, and a live holder keeps it for milliseconds: a lock still
// there after this many is most likely stale, left by a killed process.
const maxLockedAttempts = 8

// retryable sorts a lockRef or moveRef error: a lost race is retried (after a backoff)
// until MaxRetries, a held lock until maxLockedAttempts in a row; then, or
// for any other error, it returns the error to report.
func (s *Store) retryable(err error, attempt int, locked *int) (bool, error) {
	var conflict *gitdir.RefConflict
	if !errors.As(err, &conflict) {
		return false, err
	}
	if conflict.Locked {
		*locked++
	} else {
		*locked = 0
	}
	if attempt >= s.opts.MaxRetries || *locked >= maxLockedAttempts {
		return false, conflictError(s.ref, attempt, conflict)
	}
	backoff(attempt)
	return true, nil
}

func conflictError(ref string, attempts int, c *gitdir.RefConflict) error {
	if c.Locked {
		return kernel.Errorf(kernel.CodeConflict, "%s stayed locked for %d attempts: if no other git process is running, a crashed one left the lock file %s behind; remove it and retry", ref, attempts, c.LockPath).
			WithExtra("ref", ref).WithExtra("lock", c.LockPath)
	}
	return kernel.Errorf(kernel.CodeConflict, "%s kept moving under us for %d attempts; retry the op", ref, attempts).WithExtra("ref", ref)
}

// indexWritten moves this process's index to the new commit when the view
// had loaded it, or this process holds it at the view's tip (a server
// whose ops did not read it), so the next op in the same process needs no
// catch-up; a write that never loaded the index moves the delta on disk
// instead.
func (s *Store) indexWritten(v *View, commit plumbing.Hash, m *kernel.Mutation, blobs map[string]plumbing.Hash) {
	if len(s.observers) > 0 {
		s.notify(v.tip, commit, changedRecords(m, blobs))
	}
	ix := v.index
	if ix == nil && s.index != nil && s.index.Tip == v.tip {
		ix = s.index
	}
	if ix == nil {
		s.advanceDelta(v.tip, commit, m, blobs)
		return
	}
	s.index, _ = s.saveIndex(ix.withChanges(commit, writtenEntries(m, blobs)))
}

// changedRecords is what m changed, for the index's observers.
func changedRecords(m *kernel.Mutation, blobs map[string]plumbing.Hash) []ChangedRecord {
	changes := make([]ChangedRecord, 0, len(m.Writes))
	for _, r := range m.Writes {
		p := RecordPath(r.Type, r.ID)
		changes = append(changes, ChangedRecord{Path: p, ID: r.ID, New: blobs[p], Record: r})
	}
	return changes
}

// buildCommit writes blobs, the changed trees and a signed commit on top
// of v's tip into w; the caller syncs w before any ref names the commit.
// The files in have are blobs the repository already holds durably (a
// merge taking the other side's version, fetched in a pack): they go into
// the tree without being written and fsynced again as loose objects.
func (s *Store) buildCommit(w batchWriter, v *View, msg CommitMessage, files map[string][]byte, have map[string]plumbing.Hash, env kernel.Env, otherParents ...plumbing.Hash) (madeCommit, map[string]plumbing.Hash, error) {
	signer, err := s.Signer()
	if err != nil {
		return madeCommit{}, nil, err
	}
	name, email := s.Ident()
	if email == "" {
		return madeCommit{}, nil, kernel.Errorf(kernel.CodeUsage, "no committer identity: set git config user.name and user.email (as for git commit)")
	}
	blobs := have // a commit of blobs written already (stream.go) needs no copy of its many
	if len(files) > 0 {
		blobs = make(map[string]plumbing.Hash, len(files)+len(have))
		for p, h := range have {
			blobs[p] = h
		}
	}
	if all, ok := w.(allWriter); ok && len(files) >= packThreshold {
		// A batch (an import, a large merge): hashed and compressed on
		// every core, in path order.
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		contents := make([][]byte, len(paths))
		for i, p := range paths {
			contents[i] = files[p]
		}
		hs, err := all.WriteAll(plumbing.BlobObject, contents)
		if err != nil {
			return madeCommit{}, nil, kernel.Wrap(kernel.CodeInternal, err, "write blobs")
		}
		for i, p := range paths {
			blobs[p] = hs[i]
		}
	} else {
		for p, data := range files {
			h, err := w.Write(plumbing.BlobObject, data)
			if err != nil {
				return madeCommit{}, nil, kernel.Wrap(kernel.CodeInternal, err, "write blob for %s", p)
			}
			blobs[p] = h
		}
	}
	tree, err := writeTree(v.trees, w, v.root, blobs)
	if err != nil {
		return madeCommit{}, nil, kernel.Wrap(kernel.CodeInternal, err, "write tree")
	}
	c := &Commit{Message: EncodeMessage(msg), TreeHash: tree}
	if !v.tip.IsZero() {
		c.ParentHashes = append([]plumbing.Hash{v.tip}, otherParents...)
	}
	// Never dated before a parent (kernel.CheckCommitTime), even when this
	// machine's clock is behind the one that wrote the parent.
	parentDates, err := s.parentDates(v, c.ParentHashes)
	if err != nil {
		return madeCommit{}, nil, err
	}
	sig := Signature{Name: name, Email: email, When: kernel.CommitTime(env.Now, parentDates)}
	c.Author, c.Committer = sig, sig
	armored, err := signer.Sign(c.encode(false))
	if err != nil {
		return madeCommit{}, nil, FromSigning(err)
	}
	c.PGPSignature = string(armored)
	h, err := w.Write(plumbing.CommitObject, c.encode(true))
	if err != nil {
		return madeCommit{}, nil, kernel.Wrap(kernel.CodeInternal, err, "write commit")
	}
	return madeCommit{hash: h, tree: tree, when: sig.When}, blobs, nil
}

// madeCommit is a commit buildCommit wrote: its name, root tree and date.
type madeCommit struct {
	hash, tree plumbing.Hash
	when       time.Time
}

// packThreshold is the number of files from which a commit's objects go
// into one pack instead of loose files: git's own fetch.unpackLimit (100
// objects) is the same trade, one index file against a file and an fsync
// per object.
const packThreshold = 100

// batchWriter is where a commit's objects go: loose files
// (gitdir.ObjectWriter) or one pack (gitdir.PackWriter).
type batchWriter interface {
	objectSink
	Write(t plumbing.ObjectType, content []byte) (plumbing.Hash, error)
	Sync() error
	SyncAlongside(during func() error) error
}

// allWriter writes many objects at once (gitdir.PackWriter.WriteAll).
type allWriter interface {
	WriteAll(t plumbing.ObjectType, contents [][]byte) ([]plumbing.Hash, error)
}

// objectWriter picks the writer for a commit that changes files paths.
func (s *Store) objectWriter(files int) batchWriter {
	if files >= packThreshold {
		return s.repo.NewPackWriter()
	}
	return s.repo.NewObjectWriter()
}

// lockRef takes the branch's lock, checks that it is still at old and
// makes commit durable in the lock (gitdir.LockRef); moveRef moves it.
func (s *Store) lockRef(commit, old plumbing.Hash) (*gitdir.RefLock, error) {
	l, err := s.repo.LockRef(s.ref, commit, old)
	return l, fromGitdir(err)
}

// moveRef renames the lock over the ref (gitdir.RefLock.Move); the
// caller runs l.Sync before anyone hears of the move.
func (s *Store) moveRef(l *gitdir.RefLock, subject string, env kernel.Env) error {
	name, email := s.Ident()
	return l.Move(gitdir.Ident{Name: name, Email: email, When: env.Now}, "records: "+subject)
}

func readAll(o plumbing.EncodedObject) ([]byte, error) {
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, o.Size())
	_, err = ioReadFull(r, buf)
	return buf, err
}

// initFiles is init as a Decision: it writes the format file and extra
// files (allowed signers, policy) that are missing or different; onlyNew
// makes it write nothing on a branch that exists, decided on each tip the
// write loop tries.
func initFiles(agent string, extra map[string][]byte, onlyNew bool) Decision {
	return func(kv kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		v := kv.(*View)
		if onlyNew && v.Exists() {
			return nil, nil
		}
		want := map[string][]byte{FormatPath: []byte(kernel.FormatVersion + "\n")}
		for p, d := range extra {
			want[p] = d
		}
		files := map[string][]byte{}
		for p, d := range want {
			cur, err := v.ReadFile(p)
			if err != nil {
				return nil, err
			}
			if string(cur) != string(d) {
				files[p] = d
			}
		}
		if len(files) == 0 {
			return nil, nil
		}
		return &kernel.Mutation{Op: kernel.OpInit, Type: "store", Title: "records store",
			Message: fmt.Sprintf("Set up %s.", joinKeys(files)), Files: files,
			Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpInit)}, {Key: kernel.TrailerAgent, Value: agent}, {Key: kernel.TrailerFormat, Value: kernel.FormatVersion}}}, nil
	}
}
