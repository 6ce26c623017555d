// Package service is the one implementation of each op and query of the
// store. Every front-end (the CLI, the contract protocol, the MCP server)
// parses its own input into the typed inputs here, calls one function, and
// prints the typed result its own way; none computes an answer another
// front-end would need. Writes go through gitstore's one gated write path
// (Store.MutateApproved: policy gate, audit line, postcondition).
//
// It sits between the front-ends and the store: cmd → service → hooks →
// gitstore → kernel. It is a top-level package, not internal/, because it is
// the API a Go program embedding the store should call: the same ops, with
// the same rules and the same answers, as `git records`.
package service

import (
	"os"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// Service runs ops and queries on one store. A Service is not safe for
// concurrent use (neither is the gitstore.Store under it): a front-end that
// serves several requests at once holds one lock around its calls. Other
// processes writing at the same time lose nothing: the write path's
// compare-and-swap re-decides an op on the new tip.
type Service struct {
	Store *gitstore.Store
	// WorkDir is where scopes are captured and judged: a directory of the
	// working tree the records speak about ("" for the process's own).
	WorkDir string
}

// New returns the service over an open store; workDir "" is the current directory.
func New(s *gitstore.Store, workDir string) *Service {
	if workDir == "" {
		workDir, _ = os.Getwd()
	}
	if s != nil {
		// A merge is judged before it is written on the facts verify
		// reads, the commits it brings in too.
		s.JudgeIncomingWith(hooks.IncomingFacts(s))
	}
	return &Service{Store: s, WorkDir: workDir}
}

// WriteResult is what a mutation reports: the record it wrote (the first
// one, for ops that write several), and its commit, or that nothing changed.
// Its JSON is the CLI's `--json` answer to every write.
type WriteResult struct {
	Commit    string `json:"commit,omitempty"`
	ID        string `json:"id"`
	Unchanged bool   `json:"unchanged,omitempty"`

	Written *gitstore.Written `json:"-"`
}

// mutate runs one decision through the store's gated write loop.
func (s *Service) mutate(handle string, approval kernel.Approval, decide gitstore.Decision) (*WriteResult, error) {
	w, err := s.Store.MutateApproved(decide, approval)
	if err != nil {
		return nil, err
	}
	res := &WriteResult{ID: handle, Written: w}
	if w.Mutation != nil && len(w.Mutation.Writes) > 0 {
		res.ID = w.Mutation.Writes[0].ID
	}
	if w.Commit.IsZero() {
		res.Unchanged = true
	} else {
		res.Commit = w.Commit.String()
	}
	return res, nil
}

// view reads the tip as it is now.
func (s *Service) view() (*gitstore.View, error) { return s.Store.View() }

// notFound is the error for a handle that names no record.
func notFound(handle string) error {
	return kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", handle)
}
