package gitstore

import (
	"fmt"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// Group commit. A front-end that serves several requests at once (the MCP
// server) holds one lock around every call into the store and names it
// with ShareWrites. An op that reaches the write path while another op's
// commit is being synced waits in a queue, with that lock released; the
// writer then takes the whole queue and, for each op in turn, decides it on
// the commit the previous op of the group made, judges it by the same gate
// and kernel rules and writes its own signed commit. All the group's
// objects are synced at once and the ref moves once, by compare-and-swap
// from the tip the group started on; on a lost race every op of the group
// is decided again on the new tip. An op refused in the middle of a group
// refuses that op alone. Each op has its own audit line, and each caller
// hears of its op only once the ref move is durable.

// writeRequest is one op asking the write path for a commit, and, once
// done, what became of it.
type writeRequest struct {
	call     Call
	decide   plan
	approval kernel.Approval
	creates  bool
	// streams: the op is decided as a stream (stream.go), written in a
	// group of its own.
	streams bool
	start   time.Time
	st      auditState

	w    *Written
	pw   *plannedWrite
	err  error
	done bool
	// panicked is what the op's decision panicked with: the op fails
	// alone, and write raises it again in the op's own caller.
	panicked any
}

// step is one op of a group, in order: built (b), or held: refused or
// changing nothing on the commit of an earlier op of the group, which is
// not on the ref yet. A held op is answered only once that commit lands,
// and decided again when it does not (a lost race, a failed sync): its
// caller never hears of a record that did not land.
type step struct {
	req *writeRequest
	b   *built
	w   *Written
	pw  *plannedWrite
	err error
}

// built is an op whose commit is written (not yet synced, nor on the ref).
type built struct {
	req     *writeRequest
	view    *View // the view the op was decided on
	pw      *plannedWrite
	env     kernel.Env
	commit  plumbing.Hash
	made    madeCommit // zero for a fast-forward
	blobs   map[string]plumbing.Hash
	subject string
}

// alone is an op that cannot share a group: a merge, a fast-forward or a
// streamed op, whose index update reads the commit back (indexMerged).
func (b *built) alone() bool { return b.pw.m == nil || !b.pw.merged.IsZero() || b.pw.streamed != nil }

// ShareWrites tells the store that its caller serves concurrent requests,
// each holding l around its calls into the store: ops then wait for a
// commit in flight with l released, and are written together (group
// commit). Call it once, before serving.
func (s *Store) ShareWrites(l sync.Locker) {
	s.shared = l
	s.groupDone = sync.NewCond(l)
}

// Landing says that a group of ops is being written (ShareWrites): its
// commits may be on the ref already while this process's index and
// observers have not heard of them yet, which they will before the writer
// returns. A caller holding the shared lock that reads the tip now would
// catch the index up with a tree diff the writer is about to make
// needless; a follower waits for the observers instead.
func (s *Store) Landing() bool { return s.writing }

// queueWrite runs r in a group; the caller holds s.shared. The first op
// to find no writer at work becomes the writer and writes groups until
// its own op is done; the others wait.
func (s *Store) queueWrite(r *writeRequest) {
	s.queue = append(s.queue, r)
	for !r.done && s.writing {
		s.groupDone.Wait()
	}
	if r.done {
		return
	}
	s.writing = true
	var group []*writeRequest
	defer func() {
		s.writing = false
		if p := recover(); p != nil {
			// The writer failed outside any op's decision: the ops it
			// took from the queue must not wait for it forever.
			for _, q := range group {
				if !q.done {
					s.finish(q, nil, nil, kernel.Errorf(kernel.CodeInternal, "the write path failed while writing this op's group: %v", p))
				}
			}
			s.groupDone.Broadcast()
			panic(p)
		}
		s.groupDone.Broadcast() // a waiter whose op is still queued takes over
	}()
	for !r.done {
		if len(s.queue) == 0 {
			// Every op is finished, queued or left for later by runGroup;
			// an op in none of them would have its caller wait forever.
			s.finish(r, nil, nil, kernel.Errorf(kernel.CodeInternal, "the write path lost this op from its group; retry it"))
			break
		}
		group = s.queue
		s.queue = nil
		later := s.runGroup(group)
		s.queue = append(later, s.queue...)
		s.groupDone.Broadcast()
	}
}

// finish ends r with its outcome and writes its audit line.
func (s *Store) finish(r *writeRequest, w *Written, pw *plannedWrite, err error) {
	if err != nil {
		w, pw = nil, nil
	}
	r.w, r.pw, r.err, r.done = w, pw, err, true
	if !s.opts.Ungated {
		s.auditOp(r.call, &r.st, r.approval, r.start, w, err)
	}
}

// runGroup writes reqs as one group and finishes each; it returns the ops
// it left for a later group (those after an op that must go alone).
func (s *Store) runGroup(reqs []*writeRequest) (later []*writeRequest) {
	locked := 0
	for attempt := 1; ; attempt++ {
		tip, err := s.Tip()
		if err != nil {
			for _, r := range reqs {
				s.finish(r, nil, nil, err)
			}
			return later
		}
		g := &groupObjects{s: s, EncodedObjectStorer: s.objects}
		steps, left := s.buildGroup(reqs, tip, g, attempt)
		// What this attempt left comes before what an earlier one left.
		later = append(left, later...)
		var builds []*built
		for _, st := range steps {
			if st.b != nil {
				builds = append(builds, st.b)
			}
		}
		if len(builds) == 0 {
			return later // a held step follows a built one
		}
		last := builds[len(builds)-1]
		subject := last.subject
		if len(builds) > 1 {
			subject = fmt.Sprintf("%d commits, the last: %s", len(builds), subject)
		}
		// The objects must be durable before the ref names them: a crash
		// after the ref moves never leaves it on a commit whose objects
		// were lost. The ref's lock is taken, checked and its new value
		// fsynced while the objects' directories are fsynced (their files
		// already are, and renamed); the ref moves only once both are
		// done. Other requests run meanwhile, and queue their ops for the
		// next group.
		var lock *gitdir.RefLock
		retry, err := s.unshared(func() (bool, error) {
			var lockErr error
			err := g.SyncAlongside(func() error {
				if s.groupSynced != nil {
					s.groupSynced()
				}
				lock, lockErr = s.lockRef(last.commit, tip)
				return nil
			})
			if err == nil {
				s.addGroupPack(g.pack)
				err = lockErr
			}
			if err == nil {
				err = s.moveRef(lock, subject, last.env)
			} else {
				lock.Abort() // the objects are not all durable: the ref stays
			}
			return s.retryable(err, attempt, &locked)
		})
		if retry {
			reqs = make([]*writeRequest, 0, len(steps))
			for _, st := range steps {
				reqs = append(reqs, st.req)
			}
			continue
		}
		moved := err == nil
		if moved {
			// The ref's directory is fsynced while this process's index
			// and observers catch up with the commits, which every reader
			// sees on the ref already; no caller is answered, and no audit
			// line written, before the fsync is done.
			durable := make(chan error, 1)
			go func() { durable <- lock.Sync() }()
			err = s.landedGroup(builds)
			s.carry(last)
			if serr := <-durable; serr != nil {
				err = serr
			}
			s.maintainAfterWrite()
		}
		var again []*writeRequest
		for _, st := range steps {
			switch {
			case st.b != nil:
				s.finish(st.req, &Written{Commit: st.b.commit, Mutation: st.b.pw.m, Attempts: attempt}, st.b.pw, err)
			case moved:
				s.finish(st.req, st.w, st.pw, st.err)
			default:
				again = append(again, st.req) // decided on commits that did not land
			}
		}
		if len(s.groupPacks) > 1 {
			// The group's callers are answered: they return while the
			// packs are copied, and new ops queue for the next group.
			s.unshared(func() (bool, error) { s.consolidatePacks(); return false, nil })
		}
		return append(again, later...)
	}
}

// carriedTrees bounds the tree entries a carried reader holds (a few MB):
// past it the next group starts with an empty one.
const carriedTrees = 1 << 16

// carry keeps b's commit, which is now the tip, for the next group: its
// root, its date and the trees its group read and wrote (named by their
// content, so never stale), where the next group would read the commit
// back, list the packs again to find it (it is in a pack this process has
// not listed yet), and read and decode the trees on its path again. Only a
// store that shares writes carries: its groups are written one at a time,
// under the shared lock, so no two use the reader at once.
func (s *Store) carry(b *built) {
	s.carried = nil
	if s.shared == nil || b.made.hash != b.commit || b.view.trees.entries > carriedTrees {
		return
	}
	s.carried = &View{s: s, tip: b.commit, root: b.made.tree, when: b.made.when, trees: b.view.trees}
}

// groupView is the view a group starts on: the one the last group carried
// when tip is still its commit, else a fresh one.
func (s *Store) groupView(tip plumbing.Hash) (*View, error) {
	if c := s.carried; c != nil && c.tip == tip && !tip.IsZero() {
		c.trees.objects = s.objects // this group's (buildGroup)
		return &View{s: s, tip: tip, root: c.root, when: c.when, trees: c.trees}, nil
	}
	return s.viewAt(tip)
}

// unshared runs fn with the caller's shared lock released, when there is one.
func (s *Store) unshared(fn func() (bool, error)) (bool, error) {
	if s.shared == nil {
		return fn()
	}
	s.shared.Unlock()
	defer s.shared.Lock()
	return fn()
}

// buildGroup decides each op of reqs in turn, each on the commit of the
// op before it (the first on tip), and writes their commits into g. Ops
// refused or changing nothing on tip are finished here, after an op that
// built a commit they are held (step); later are the ops left for another
// group.
func (s *Store) buildGroup(reqs []*writeRequest, tip plumbing.Hash, g *groupObjects, attempt int) (steps []*step, later []*writeRequest) {
	if len(reqs) > 1 {
		// Later ops read what earlier ones wrote before it is synced.
		g.mem = map[plumbing.Hash]plumbing.EncodedObject{}
		saved := s.objects
		s.objects = g
		defer func() { s.objects = saved }()
	}
	var last *built // the group's last commit so far
	v, err := s.groupView(tip)
	for i, r := range reqs {
		if last != nil {
			v, err = s.chainView(last)
		}
		if err != nil {
			if last != nil {
				// The group so far still lands; the rest go in the next.
				return steps, append(later, reqs[i:]...)
			}
			s.finish(r, nil, nil, err)
			continue
		}
		if r.streams && last != nil {
			// Decided in a group of its own: deciding it here would
			// read its whole source to throw the commit away.
			return steps, append(later, reqs[i:]...)
		}
		b, err := s.decideGuarded(r, v, g)
		switch {
		case b != nil && b.alone() && last != nil:
			return steps, append(later, reqs[i:]...)
		case b != nil:
			steps = append(steps, &step{req: r, b: b})
			last = b
			if b.alone() {
				return steps, append(later, reqs[i+1:]...)
			}
		case last != nil && err != nil:
			steps = append(steps, &step{req: r, err: err})
		case last != nil:
			steps = append(steps, &step{req: r, w: &Written{Attempts: attempt}, pw: r.pw})
		case err != nil:
			s.finish(r, nil, nil, err)
		default:
			s.finish(r, &Written{Attempts: attempt}, r.pw, nil)
		}
	}
	return steps, later
}

// decideGuarded is decideOn, with a panic in the op's decision failing
// that op alone: the other ops of its group still land and are answered,
// and write raises the panic again in the op's own caller.
func (s *Store) decideGuarded(r *writeRequest, v *View, g *groupObjects) (b *built, err error) {
	r.panicked = nil
	defer func() {
		if p := recover(); p != nil {
			r.panicked = p
			b, err = nil, kernel.Errorf(kernel.CodeInternal, "the %s op failed: %v", r.call.Op, p)
		}
	}()
	return s.decideOn(r, v, g)
}

// chainView is the view at b's commit, which is not on the ref yet, with
// the index of b's view moved by b's writes.
func (s *Store) chainView(b *built) (*View, error) {
	ix, err := b.view.Index()
	if err != nil {
		return nil, err
	}
	v := &View{s: s, tip: b.commit, root: b.made.tree, when: b.made.when}
	if b.made.hash != b.commit {
		var err error
		if v, err = s.viewAt(b.commit); err != nil {
			return nil, err
		}
	}
	// Trees are named by their content: the group's views share one
	// reader, which holds the trees each op wrote (writeTree).
	v.trees = b.view.trees
	v.index = ix.withChanges(b.commit, writtenEntries(b.pw.m, b.blobs))
	return v, nil
}

func writtenEntries(m *kernel.Mutation, blobs map[string]plumbing.Hash) map[string]*IndexEntry {
	changes := make(map[string]*IndexEntry, len(m.Writes))
	for _, r := range m.Writes {
		changes[r.ID] = entryOf(r, blobs[RecordPath(r.Type, r.ID)])
	}
	return changes
}

// landedGroup updates this process's caches for the group's commits, now
// on the ref: observers hear of each commit in order, and the index is
// saved once, at the last.
func (s *Store) landedGroup(builds []*built) error {
	if len(builds) == 1 {
		return s.landed(builds[0])
	}
	if len(s.observers) > 0 {
		for _, b := range builds {
			s.notify(b.view.tip, b.commit, changedRecords(b.pw.m, b.blobs))
		}
	}
	last := builds[len(builds)-1]
	if ix, err := last.view.Index(); err == nil {
		s.index, _ = s.saveIndex(ix.withChanges(last.commit, writtenEntries(last.pw.m, last.blobs)))
	}
	return s.writeGraphFile()
}

// groupObjects is where a group's commits write their objects: in a
// store that shares writes (a long-lived server), one pack for the group,
// consolidated with the packs of earlier groups (grouppacks.go); else one
// loose object writer for the group, a pack for each commit of many files. With
// mem set it also keeps every object it wrote, and reads them back before
// the store's objects: a later op of the group reads the trees and records
// of the earlier ones before they are synced.
type groupObjects struct {
	storer.EncodedObjectStorer
	s       *Store
	mem     map[plumbing.Hash]plumbing.EncodedObject
	loose   batchWriter
	pack    *gitdir.PackWriter
	writers []batchWriter
}

// writer is the writer for a commit that changes files paths.
func (g *groupObjects) writer(files int) batchWriter {
	var w batchWriter
	if g.s.shared != nil {
		// One file, its index and two fsyncs for the group, where loose
		// objects cost a file and an fsync each (six or more per op).
		if g.pack == nil {
			g.pack = g.s.repo.NewPackWriter()
			g.pack.StoreTrees = true
			g.writers = append(g.writers, g.pack)
		}
		w = g.pack
	} else if files >= packThreshold || g.loose == nil {
		w = g.s.objectWriter(files)
		g.writers = append(g.writers, w)
		if files < packThreshold {
			g.loose = w
		}
	} else {
		w = g.loose
	}
	if g.mem == nil {
		return w
	}
	return &keptWriter{batchWriter: w, mem: g.mem}
}

// SyncAlongside makes every object of the group durable, running during
// alongside the last writer's last round (gitdir.ObjectWriter.SyncAlongside),
// or alone when the group wrote nothing (a fast-forward). It returns the
// sync's error first, else during's.
func (g *groupObjects) SyncAlongside(during func() error) error {
	if len(g.writers) == 0 {
		return during()
	}
	for i, w := range g.writers {
		var err error
		if i == len(g.writers)-1 {
			err = w.SyncAlongside(during)
		} else {
			err = w.Sync()
		}
		if err != nil {
			return kernel.Wrap(kernel.CodeInternal, err, "sync objects")
		}
	}
	return nil
}

func (g *groupObjects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := g.mem[h]; ok && (t == plumbing.AnyObject || t == o.Type()) {
		return o, nil
	}
	return g.EncodedObjectStorer.EncodedObject(t, h)
}

func (g *groupObjects) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := g.mem[h]; ok {
		return nil
	}
	return g.EncodedObjectStorer.HasEncodedObject(h)
}

// keptWriter writes through to a batchWriter and keeps each object in mem.
type keptWriter struct {
	batchWriter
	mem map[plumbing.Hash]plumbing.EncodedObject
}

func (k *keptWriter) Write(t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h, err := k.batchWriter.Write(t, content)
	if err == nil {
		o := &plumbing.MemoryObject{}
		o.SetType(t)
		o.Write(content)
		k.mem[h] = o
	}
	return h, err
}

func (k *keptWriter) WriteObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	content, err := readAll(o)
	if err != nil {
		return plumbing.ZeroHash, kernel.Wrap(kernel.CodeInternal, err, "read object")
	}
	return k.Write(o.Type(), content)
}
