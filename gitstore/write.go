package gitstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

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
// holds for the commit that lands — up to MaxRetries times.
func (s *Store) Mutate(decide Decision) (*Written, error) {
	locked := 0
	for attempt := 1; ; attempt++ {
		tip, err := s.Tip()
		if err != nil {
			return nil, err
		}
		v, err := s.viewAt(tip)
		if err != nil {
			return nil, err
		}
		generated := map[string]bool{}
		env := kernel.Env{Now: s.opts.Now(), NewID: func() string {
			id := s.opts.NewID()
			generated[id] = true
			return id
		}}
		m, err := decide(v, env)
		if err != nil {
			return nil, err
		}
		if m == nil {
			return &Written{Attempts: attempt}, nil
		}
		files := make(map[string][]byte, len(m.Writes)+len(m.Files)+1)
		for p, data := range m.Files {
			files[p] = data
		}
		for _, r := range m.Writes {
			data, err := EncodeRecord(r)
			if err != nil {
				return nil, err
			}
			files[RecordPath(r.Type, r.ID)] = data
		}
		if tip.IsZero() {
			files[FormatPath] = []byte(kernel.FormatVersion + "\n")
		}
		if err := checkPostcondition(generatedIDs{v, generated}, m, files); err != nil {
			return nil, err
		}
		msg := CommitMessage{Subject: m.Subject(), Body: m.Message, Trailers: m.Trailers}
		commit, blobs, err := s.writeCommit(v, msg, files, env)
		if err != nil {
			return nil, err
		}
		err = s.moveRef(commit, tip, msg.Subject, env)
		if retry, err := s.retryable(err, attempt, &locked); retry {
			continue
		} else if err != nil {
			return nil, err
		}
		s.indexWritten(v, commit, m, blobs)
		return &Written{Commit: commit, Mutation: m, Attempts: attempt}, nil
	}
}

// checkPostcondition judges the commit m is about to become with the
// rules verify will judge it by, reading each record back from the bytes
// that will be written. An op whose output breaks its own rules is a bug:
// it is reported, never committed.
func checkPostcondition(v kernel.View, m *kernel.Mutation, files map[string][]byte) error {
	written := *m
	written.Writes = make([]*kernel.Record, len(m.Writes))
	for i, r := range m.Writes {
		back, err := DecodeRecord(files[RecordPath(r.Type, r.ID)])
		if err != nil {
			return kernel.Wrap(kernel.CodeInternal, err, "%s writes record %s that does not read back", m.Op, r.ID)
		}
		written.Writes[i] = back
	}
	return kernel.CheckWrite(v, &written)
}

// generatedIDs is a view for the write path's check that knows which ids
// this attempt generated: 128 random bits are no one's alias, so, as
// kernel.Create does, a generated id costs no alias lookup (which would
// load the index on a write that otherwise needs only the tree).
type generatedIDs struct {
	kernel.View
	ids map[string]bool
}

func (g generatedIDs) AliasOwner(alias string) (string, error) {
	if g.ids[alias] {
		return "", nil
	}
	return g.View.AliasOwner(alias)
}

// maxLockedAttempts bounds the attempts that find the ref's lock taken. Each
// has already waited the lock timeout (git's core.filesRefLockTimeout) for
// the holder, and a live holder keeps it for milliseconds: a lock still
// there after this many is most likely stale, left by a killed process.
const maxLockedAttempts = 8

// retryable sorts a moveRef error: a lost race is retried (after a backoff)
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
// had loaded it, so the next op in the same process needs no catch-up.
func (s *Store) indexWritten(v *View, commit plumbing.Hash, m *kernel.Mutation, blobs map[string]plumbing.Hash) {
	if v.index == nil {
		s.advanceHandles(v.tip, commit, m)
		return
	}
	ix := v.index.clone()
	ix.Tip = commit
	for _, r := range m.Writes {
		ix.put(entryOf(r, blobs[RecordPath(r.Type, r.ID)]))
	}
	s.index = ix
	_ = ix.save(s.indexPath())
}

// writeCommit writes blobs, the changed trees and a signed commit on top of
// v's tip, all durable before it returns; the ref has not moved yet.
func (s *Store) writeCommit(v *View, msg CommitMessage, files map[string][]byte, env kernel.Env, otherParents ...plumbing.Hash) (plumbing.Hash, map[string]plumbing.Hash, error) {
	return s.writeCommitReusing(v, msg, files, nil, env, otherParents...)
}

// writeCommitReusing is writeCommit where the files in have are blobs the
// repository already holds durably (a merge taking the other side's
// version, fetched in a pack): they go into the tree without being written
// and fsynced again as loose objects.
func (s *Store) writeCommitReusing(v *View, msg CommitMessage, files map[string][]byte, have map[string]plumbing.Hash, env kernel.Env, otherParents ...plumbing.Hash) (plumbing.Hash, map[string]plumbing.Hash, error) {
	signer, err := s.Signer()
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	name, email := s.Ident()
	if email == "" {
		return plumbing.ZeroHash, nil, kernel.Errorf(kernel.CodeUsage, "no committer identity: set git config user.name and user.email (as for git commit)")
	}
	w := s.repo.NewObjectWriter()
	blobs := make(map[string]plumbing.Hash, len(files)+len(have))
	for p, h := range have {
		blobs[p] = h
	}
	for p, data := range files {
		h, err := w.Write(plumbing.BlobObject, data)
		if err != nil {
			return plumbing.ZeroHash, nil, kernel.Wrap(kernel.CodeInternal, err, "write blob for %s", p)
		}
		blobs[p] = h
	}
	tree, err := writeTree(v.trees, w, v.root, blobs)
	if err != nil {
		return plumbing.ZeroHash, nil, kernel.Wrap(kernel.CodeInternal, err, "write tree")
	}
	c := &object.Commit{Message: EncodeMessage(msg), TreeHash: tree}
	if !v.tip.IsZero() {
		c.ParentHashes = append([]plumbing.Hash{v.tip}, otherParents...)
	}
	// Never dated before a parent (kernel.CheckCommitTime), even when this
	// machine's clock is behind the one that wrote the parent.
	var parentDates []time.Time
	for _, p := range c.ParentHashes {
		pc, err := s.Commit(p)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		parentDates = append(parentDates, pc.Committer.When)
	}
	sig := object.Signature{Name: name, Email: email, When: kernel.CommitTime(env.Now, parentDates)}
	c.Author, c.Committer = sig, sig
	unsigned := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(unsigned); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	payload, err := readAll(unsigned)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	armored, err := signer.Sign(payload)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	c.PGPSignature = string(armored)
	signed := &plumbing.MemoryObject{}
	if err := c.Encode(signed); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	h, err := w.WriteObject(signed)
	if err != nil {
		return plumbing.ZeroHash, nil, kernel.Wrap(kernel.CodeInternal, err, "write commit")
	}
	// Objects must be durable before the ref names them: a crash after the
	// ref moves must never leave it on a commit whose objects were lost.
	if err := w.Sync(); err != nil {
		return plumbing.ZeroHash, nil, kernel.Wrap(kernel.CodeInternal, err, "sync objects")
	}
	return h, blobs, nil
}

func (s *Store) moveRef(commit, old plumbing.Hash, subject string, env kernel.Env) error {
	name, email := s.Ident()
	return s.repo.UpdateRef(s.ref, commit, old, gitdir.Ident{Name: name, Email: email, When: env.Now}, "records: "+subject)
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

// InitFiles creates the records branch with its format file and the given
// extra files (allowed signers, policy) as a signed root commit. On an
// existing branch it adds only files that are missing or different, and
// does nothing when none are.
func (s *Store) InitFiles(agent string, extra map[string][]byte) (*Written, error) {
	return s.Mutate(initFiles(agent, extra, false))
}

// initFiles is InitFiles as a Decision; onlyNew makes it write nothing on
// a branch that exists, decided on each tip the write loop tries.
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
