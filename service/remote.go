package service

import (
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// DefaultRetryFor is how long sync and push keep retrying a push that lost
// a race with another writer's before they report CONFLICT.
const DefaultRetryFor = gitstore.DefaultRetryFor

// SyncRequest says what a sync does: pull (fetch, verify, merge), push
// (with a lease), or both.
type SyncRequest struct {
	Remote     string // "" for the default remote
	Pull, Push bool
	Agent      string // named on a merge commit; "" for user.email
	Approval   kernel.Approval
	// RetryFor bounds the retries of a push that lost a race
	// (DefaultRetryFor when zero).
	RetryFor time.Duration
	// Progress hears the verification of the commits that come in.
	Progress Progress
}

// Sync carries the records branch to and from a remote (gitstore.Sync):
// every commit that comes in is verified first, and all of it refused on
// a violation; then the report of the refusal is returned with the error.
// A fast-forward over merged or replayed commits reports the conflicts
// they resolved, so a conflict is never silent on either clone.
func (s *Service) Sync(req SyncRequest) (*SyncResult, *Report, error) {
	st, err := s.needsGit("sync")
	if err != nil {
		return nil, nil, err
	}
	if req.Remote == "" {
		req.Remote = st.DefaultRemote()
	}
	if req.Agent == "" {
		_, req.Agent = st.Ident()
	}
	var refused *hooks.Report
	var incoming []plumbing.Hash
	res, err := st.Sync(gitstore.SyncOptions{Remote: req.Remote, Pull: req.Pull, Push: req.Push, Agent: req.Agent, Approval: req.Approval, RetryFor: req.RetryFor,
		Check: func(commits []plumbing.Hash) error {
			incoming = append(incoming, commits...)
			rep, err := verifyIncoming(st, commits, gitstore.Progress(req.Progress))
			if err != nil {
				return err
			}
			if !rep.OK {
				refused = rep
				return kernel.Errorf(kernel.CodeVerifyFailed, "refused %d commits from %s: %d violations; nothing was merged", len(commits), req.Remote, len(rep.Violations)).
					WithExtra("violations", rep.Violations)
			}
			return nil
		}})
	// The signers may have changed with what came in: keep the file git
	// verify-commit and git log --show-signature read current.
	_ = st.ExportAllowedSigners()
	if err != nil {
		return syncResultOf(res), reportOf(refused), err
	}
	if res.Merge != nil && res.Merge.Kind == "fast-forward" && len(res.Merge.Conflicts) == 0 {
		res.Merge.Conflicts = resolvedConflicts(st, incoming)
	}
	return syncResultOf(res), nil, nil
}

// Merge brings a reviewed records branch (any revision) into the records
// branch, record by record, after verifying every commit it brings; on a
// violation nothing is merged and the report is returned with the error.
// The result says how many commits came in.
func (s *Service) Merge(rev, agent string, approval kernel.Approval, progress Progress) (*SyncResult, *Report, error) {
	st, err := s.needsGit("merge")
	if err != nil {
		return nil, nil, err
	}
	theirs, err := st.ResolveRev(rev)
	if err != nil {
		return nil, nil, err
	}
	tip, err := st.Tip()
	if err != nil {
		return nil, nil, err
	}
	rangeArgs := []string{theirs.String()}
	if !tip.IsZero() {
		rangeArgs = append(rangeArgs, "--not", tip.String())
	}
	commits, err := st.RevList(rangeArgs...)
	if err != nil {
		return nil, nil, err
	}
	rep, err := verifyIncoming(st, commits, gitstore.Progress(progress))
	if err != nil {
		return nil, nil, err
	}
	if !rep.OK {
		return nil, reportOf(rep), kernel.Errorf(kernel.CodeVerifyFailed, "%s has %d violations: nothing was merged", rev, len(rep.Violations))
	}
	if agent == "" {
		_, agent = st.Ident()
	}
	out, err := st.MergeApproved(theirs, agent, approval)
	if err != nil {
		return nil, nil, err
	}
	_ = st.ExportAllowedSigners()
	return syncResultOf(&gitstore.SyncResult{Ref: st.Ref(), Remote: rev, Incoming: len(commits), Merge: out}), nil, nil
}

// verifyIncoming judges commits that come from elsewhere, as verify does.
func verifyIncoming(st *gitstore.Store, commits []plumbing.Hash, progress gitstore.Progress) (*hooks.Report, error) {
	return hooks.Verify(st, commits, hooks.Options{Progress: progress})
}

// resolvedConflicts reads the conflicts that the merges and replays among
// commits resolved, from their Evidence-Conflict trailers
// ("<id> <field> kept <commit>").
func resolvedConflicts(s *gitstore.Store, commits []plumbing.Hash) []kernel.Conflict {
	var out []kernel.Conflict
	for _, h := range commits {
		c, err := s.Commit(h)
		if err != nil {
			continue
		}
		msg, err := gitstore.DecodeMessage(c.Message)
		if err != nil {
			continue
		}
		for _, v := range msg.All(kernel.TrailerConflict) {
			f := strings.Fields(v)
			if len(f) != 4 || f[2] != "kept" {
				continue
			}
			out = append(out, kernel.Conflict{ID: f[0], Field: f[1], Kept: f[3]})
		}
	}
	return out
}
