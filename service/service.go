// Package service is the one implementation of each op and query of the
// store. Every front-end (the CLI, the contract protocol, the MCP server,
// the web view) parses its own input into the typed inputs here, calls one
// function, and prints the typed result its own way; none computes an
// answer another front-end would need, and none imports a store package.
//
// It sits between the front-ends and the stores: front-ends → service →
// the kernel's store port (kernel.Store) and, for what only git has
// (history, sync, verify, the derived indexes, signing setup), gitstore
// and hooks → kernel. Every op writes through the port: one decision of
// the kernel's, landed by the store's compare-and-swap write loop (gated
// by the branch's policy in the git store). It is a top-level package, not
// internal/, because it is the API a Go program embedding the store should
// call: the same ops, with the same rules and the same answers, as
// `git records`.
package service

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// Service runs ops and queries on one store. A Service is not safe for
// concurrent use (neither is the store under it): a front-end that serves
// several requests at once holds one lock around its calls, or a service
// per request. Other processes writing at the same time lose nothing: the
// write loop's compare-and-swap re-decides an op on the new tip.
type Service struct {
	// store is the port every op writes through and every snapshot is
	// read from.
	store kernel.Store
	// git is the same store when it is a git store: what only git has
	// (history, sync, verify, the indexes) is asked of it. nil over
	// another store, where those answer that they need one.
	git *gitstore.Store
	// WorkDir is where scopes are captured and judged: a directory of the
	// working tree the records speak about ("" for the process's own).
	WorkDir string
	// CheckoutMoved, when set, hears that a write moved the records
	// branch under a checkout of it (git worktrees), so a front-end can
	// tell its user before a hand commit there undoes the write.
	CheckoutMoved func(ref string, worktrees []string, commit string)
}

// New returns the service over an open git store; workDir "" is the
// current directory.
func New(s *gitstore.Store, workDir string) *Service {
	svc := &Service{store: s, git: s, WorkDir: orCwd(workDir)}
	if s != nil {
		// A merge is judged before it is written on the facts verify
		// reads, the commits it brings in too.
		s.JudgeIncomingWith(hooks.IncomingFacts(s))
	}
	return svc
}

// Over returns the service over any store behind the kernel's port (the
// in-memory store, for one): the ops and the reads of records, proposals,
// conflicts and execution records. What needs git (history, sync, verify,
// search, the graph) answers that it needs a git store.
func Over(s kernel.Store, workDir string) *Service {
	if g, ok := s.(*gitstore.Store); ok {
		return New(g, workDir)
	}
	return &Service{store: s, WorkDir: orCwd(workDir)}
}

func orCwd(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return dir
}

// WriteResult is what a mutation reports: the record it wrote (the first
// one, for ops that write several), and its commit, or that nothing changed.
// Its JSON is the CLI's `--json` answer to every write.
type WriteResult struct {
	Commit    string `json:"commit,omitempty"`
	ID        string `json:"id"`
	Unchanged bool   `json:"unchanged,omitempty"`

	// Mutation is what landed; nil when nothing did.
	Mutation *kernel.Mutation `json:"-"`
}

// write is the one way an op reaches the store: decide runs on a snapshot
// of the tip (again on each new tip when another writer moved it) and its
// mutation lands through the port, judged with approval by a gated store.
func (s *Service) write(handle string, approval kernel.Approval, decide kernel.DecideFunc) (*WriteResult, error) {
	var w kernel.Written
	var err error
	if g, ok := s.store.(kernel.GatedWriter); ok {
		w, err = g.WriteApproved(decide, approval)
	} else {
		w, err = s.store.Write(decide)
	}
	if err != nil {
		return nil, err
	}
	res := &WriteResult{ID: handle, Commit: w.Revision, Unchanged: w.Revision == "", Mutation: w.Mutation}
	if w.Mutation != nil && len(w.Mutation.Writes) > 0 {
		res.ID = w.Mutation.Writes[0].ID
	}
	if !res.Unchanged {
		s.noteCheckout(res.Commit)
	}
	return res, nil
}

// noteCheckout tells CheckoutMoved when commit moved the branch under a
// checkout of it.
func (s *Service) noteCheckout(commit string) {
	if s.CheckoutMoved == nil || s.git == nil {
		return
	}
	if where := s.git.CheckedOutIn(); len(where) > 0 {
		s.CheckoutMoved(s.git.Ref(), where, commit)
	}
}

// snapshotOf is the view a write loop hands a decision, as the port's
// Snapshot: every store's write loop passes one (kernel.DecideFunc).
func snapshotOf(v kernel.View) (kernel.Snapshot, error) {
	snap, ok := v.(kernel.Snapshot)
	if !ok {
		return nil, kernel.Errorf(kernel.CodeInternal, "the store decided an op on a view that is not a snapshot (a bug: please report it)")
	}
	return snap, nil
}

// gitViewOf is the git store's view of the snapshot a write loop hands a
// decision: its indexes, at the same tip.
func (s *Service) gitViewOf(v kernel.View) (*gitstore.View, error) {
	snap, err := snapshotOf(v)
	if err != nil {
		return nil, err
	}
	g, err := s.needsGit("this op")
	if err != nil {
		return nil, err
	}
	return g.ViewAt(plumbing.NewHash(snap.Revision()))
}

// needsGit is the git store for what only git has, or the error saying so.
func (s *Service) needsGit(what string) (*gitstore.Store, error) {
	if s.git == nil {
		return nil, kernel.Errorf(kernel.CodeUsage, "%s needs a git store; this service runs over another store", what)
	}
	return s.git, nil
}

// notFound is the error for a handle that names no record.
func notFound(handle string) error {
	return kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", handle)
}
