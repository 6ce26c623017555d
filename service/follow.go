package service

import (
	"context"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
)

// Following the records branch from a long-lived process (the MCP server):
// when it moves, what changed, and writes that arrive together landed as
// one commit group.

// ObserveChanges calls fn with every change the store's index applies (a
// catch-up, a write, a merge; from "" for a rebuild): the ids of the
// records that differ between from and to.
func (s *Service) ObserveChanges(fn func(from, to string, ids []string)) {
	if s.git == nil {
		return
	}
	s.git.ObserveIndex(func(from, to plumbing.Hash, changes []gitstore.ChangedRecord) {
		ids := make([]string, len(changes))
		for i, c := range changes {
			ids[i] = c.ID
		}
		fn(revision(from), revision(to), ids)
	})
}

// ShareWrites makes the service's writes run under l, a lock the caller
// holds around each request: ops that arrive while a commit is in flight
// are written together as one group.
func (s *Service) ShareWrites(l sync.Locker) {
	if s.git != nil {
		s.git.ShareWrites(l)
	}
}

// Landing reports whether a group of writes is being landed now.
func (s *Service) Landing() bool { return s.git != nil && s.git.Landing() }

// WaitTip waits until the records branch is somewhere other than seen,
// reading it at least every poll, and returns the new tip; it fails when
// ctx ends first.
func (s *Service) WaitTip(ctx context.Context, seen string, poll time.Duration) (string, error) {
	g, err := s.needsGit("following the branch")
	if err != nil {
		return "", err
	}
	tip, err := g.WaitTip(ctx, plumbing.NewHash(seen), poll)
	return revision(tip), err
}

// ChangedRecords lists the ids of the records that differ between two
// revisions.
func (s *Service) ChangedRecords(from, to string) ([]string, error) {
	g, err := s.needsGit("a diff of revisions")
	if err != nil {
		return nil, err
	}
	cs, err := g.Changes(plumbing.NewHash(from), plumbing.NewHash(to))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, c := range cs {
		if _, id, ok := gitstore.ParseRecordPath(c.Path); ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// CatchUpSearch brings the search index up to tip now, so the next search
// does not wait for it.
func (s *Service) CatchUpSearch(tip string) {
	if s.git != nil {
		s.git.CatchUpSearch(plumbing.NewHash(tip))
	}
}
