package service

import (
	"context"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// DefaultPoll is how often a follower of the records branch reads its ref
// when no filesystem notification says it moved.
const DefaultPoll = gitstore.DefaultFollowPoll

// WatchQuery follows the records branch.
type WatchQuery struct {
	// Since is a revision: what it cannot reach is reported first, so a
	// reader that restarts with the last commit it printed misses and
	// repeats nothing. "" starts at the current tip.
	Since string
	// Poll is how often the ref is read when no filesystem notification
	// comes (≤ 0: DefaultPoll).
	Poll time.Duration
}

// Watch calls emit with each commit that lands on the branch, oldest
// first, exactly as Log reports it (first-parent history: a merge or a
// sync's merge is one entry naming the records it touched; a fast-forward
// is each commit), until ctx ends (nil) or emit fails (its error).
func (s *Service) Watch(ctx context.Context, q WatchQuery, emit func(HistoryEntry) error) error {
	g, err := s.needsGit("watch")
	if err != nil {
		return err
	}
	var seen plumbing.Hash
	if q.Since != "" {
		seen, err = g.ResolveRev(q.Since)
		err = kernel.AboutField(err, "since")
	} else {
		seen, err = g.Tip()
	}
	if err != nil {
		return err
	}
	for {
		tip, err := g.Tip()
		if err != nil {
			return err
		}
		if tip != seen {
			since := ""
			if !seen.IsZero() {
				since = seen.String()
			}
			entries, err := s.Log(LogQuery{Since: since})
			if err != nil {
				return err
			}
			for i := len(entries) - 1; i >= 0; i-- {
				if err := emit(entries[i]); err != nil {
					return err
				}
			}
			// The newest entry is the tip Log read (maybe past tip); with
			// none, the branch went back to a commit seen already.
			seen = tip
			if len(entries) > 0 {
				seen = plumbing.NewHash(entries[0].Commit)
			}
		}
		if _, err := g.WaitTip(ctx, seen, q.Poll); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}
