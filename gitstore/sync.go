package gitstore

import (
	"errors"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// IncomingCheck judges commits fetched from a remote before any of them is
// merged (the CLI passes verify). It returns a non-nil error to refuse them.
type IncomingCheck func(commits []plumbing.Hash) error

// SyncOptions say what sync does.
type SyncOptions struct {
	Remote   string
	Pull     bool // fetch, verify and merge the remote's records branch
	Push     bool // push the records branch with a lease
	Agent    string
	Check    IncomingCheck
	Approval kernel.Approval // for a policy that marks merges as needing approval
	Attempts int             // push attempts on a lost race (fetch, merge, retry); default 5
}

// SyncResult reports a sync.
type SyncResult struct {
	Remote   string        `json:"remote"`
	Ref      string        `json:"ref"`
	Fetched  plumbing.Hash `json:"fetched"`  // the remote's tip as fetched (zero: none)
	Incoming int           `json:"incoming"` // commits new to us that were verified
	Merge    *MergeOutcome `json:"merge,omitempty"`
	Pushed   bool          `json:"pushed"`
	Attempts int           `json:"attempts"`
}

// RemoteTrackingRef is where a remote's records branch is fetched to.
func (s *Store) RemoteTrackingRef(remote string) string {
	return "refs/remotes/" + remote + "/" + strings.TrimPrefix(s.ref, "refs/heads/")
}

// Sync carries records to and from a remote through git itself, so the
// user's remotes, credentials and transports (ssh, https, file) apply.
// Only the records branch and its remote-tracking ref are touched:
//
//  1. fetch the remote's records branch into the remote-tracking ref;
//  2. verify every commit we do not have yet; refuse all of it on a violation;
//  3. merge it: fast-forward, or a record-level merge commit;
//  4. push with a lease on the tip we fetched, so a concurrent push is never
//     overwritten; on a lost race go back to 1, a bounded number of times.
//
// Each step is atomic (a ref update), so a sync killed anywhere leaves both
// sides valid, and the next sync picks up where it stopped.
func (s *Store) Sync(o SyncOptions) (*SyncResult, error) {
	if o.Attempts == 0 {
		o.Attempts = 5
	}
	res := &SyncResult{Remote: o.Remote, Ref: s.ref}
	for attempt := 1; attempt <= o.Attempts; attempt++ {
		res.Attempts = attempt
		theirs, err := s.fetch(o.Remote)
		if err != nil {
			return nil, err
		}
		res.Fetched = theirs
		if o.Pull && !theirs.IsZero() {
			if err := s.checkIncoming(theirs, o.Check, res); err != nil {
				return res, err
			}
			if res.Merge, err = s.MergeApproved(theirs, o.Agent, o.Approval); err != nil {
				return res, err
			}
		}
		if !o.Push {
			return res, nil
		}
		tip, err := s.Tip()
		if err != nil {
			return nil, err
		}
		if tip.IsZero() || tip == theirs {
			return res, nil
		}
		if !theirs.IsZero() && !s.IsAncestor(theirs, tip) {
			return res, kernel.Errorf(kernel.CodeConflict, "%s has commits we do not: run git records sync %s (or pull) first", o.Remote, o.Remote)
		}
		err = s.pushWithLease(o.Remote, tip, theirs)
		if errors.Is(err, errLeaseLost) {
			backoff(attempt)
			continue
		}
		if err != nil {
			return res, err
		}
		res.Pushed = true
		return res, nil
	}
	return res, kernel.Errorf(kernel.CodeConflict, "%s kept moving during %d sync attempts; run sync again", o.Remote, o.Attempts)
}

func (s *Store) checkIncoming(theirs plumbing.Hash, check IncomingCheck, res *SyncResult) error {
	ours, err := s.Tip()
	if err != nil {
		return err
	}
	args := []string{theirs.String()}
	if !ours.IsZero() {
		args = append(args, "--not", ours.String())
	}
	commits, err := s.RevList(args...)
	if err != nil {
		return err
	}
	res.Incoming = len(commits)
	if check == nil || len(commits) == 0 {
		return nil
	}
	return check(commits)
}

var errLeaseLost = errors.New("lease lost")

// fetch updates the remote-tracking ref of the records branch and returns
// its value; zero when the remote has no records branch yet.
func (s *Store) fetch(remote string) (plumbing.Hash, error) {
	track := s.RemoteTrackingRef(remote)
	out, err := s.runGit("fetch", "--no-tags", "--no-write-fetch-head", "--quiet", remote, "+"+s.ref+":"+track)
	if err != nil {
		if strings.Contains(out, "couldn't find remote ref") {
			return plumbing.ZeroHash, nil
		}
		return plumbing.ZeroHash, kernel.Errorf(kernel.CodeNotAStore, "git fetch %s: %s", remote, strings.TrimSpace(out))
	}
	return s.repo.ReadRef(track)
}

// pushWithLease pushes tip to the remote's records branch only if the
// remote still points where we fetched it (git push --force-with-lease).
func (s *Store) pushWithLease(remote string, tip, expect plumbing.Hash) error {
	lease := s.ref + ":"
	if !expect.IsZero() {
		lease += expect.String()
	}
	// Push the branch by name, not tip's hash: git's pre-push hook reads
	// the local ref from the refspec, and a hash there hides the push from
	// the hook that verifies outgoing record commits. The branch only moves
	// forward, so whatever it holds now descends from the lease too.
	out, err := s.runGit("push", "--porcelain", "--force-with-lease="+lease, remote, s.ref+":"+s.ref)
	if err == nil {
		if now, _ := s.Tip(); now == tip {
			_ = s.repo.UpdateRef(s.RemoteTrackingRef(remote), tip, expect, identNow(s), "records: push")
		}
		return nil
	}
	if leaseLost(out) {
		return errLeaseLost
	}
	return kernel.Errorf(kernel.CodeVerifyFailed, "git push %s refused: %s", remote, strings.TrimSpace(out))
}

// leaseLost reports whether a failed push lost a race with another push:
// refused by the lease or as not a fast-forward before the update, or by
// the remote's own compare-and-swap when the other push landed between
// the remote's advertisement and our ref update ("cannot lock ref …: is
// at X but expected Y", reported as "failed to update ref").
func leaseLost(out string) bool {
	for _, s := range []string{"stale info", "fetch first", "non-fast-forward", "cannot lock ref", "failed to update ref", "incorrect old value"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// runGit runs git with the user's environment (credentials, ssh agent) in
// this repository and returns its combined output.
func (s *Store) runGit(args ...string) (string, error) {
	run := s.repo.Git("", args...)
	return string(run.Stdout) + string(run.Stderr), run.Err
}

// DefaultRemote is branch.<records>.remote, else origin.
func (s *Store) DefaultRemote() string {
	if r, ok := s.config.Get("branch." + strings.TrimPrefix(s.ref, "refs/heads/") + ".remote"); ok && r != "" {
		return r
	}
	return "origin"
}

// identNow is the committer identity at this moment, for reflog entries.
func identNow(s *Store) gitdir.Ident {
	name, email := s.Ident()
	return gitdir.Ident{Name: name, Email: email, When: s.opts.Now()}
}

// RequireBranch says what to do when the records branch does not exist
// here yet: pull it when the default remote has one (a fresh clone), else
// init one. It is nil once the branch exists.
func (s *Store) RequireBranch() error {
	tip, err := s.Tip()
	if err != nil || !tip.IsZero() {
		return err
	}
	remote := s.DefaultRemote()
	if theirs, err := s.repo.ReadRef(s.RemoteTrackingRef(remote)); err == nil && !theirs.IsZero() {
		return kernel.Errorf(kernel.CodeNotAStore, "there is no local records branch %s yet, but %s has one (%s): git records pull fetches it, verifies every commit and creates the branch",
			s.ref, remote, s.RemoteTrackingRef(remote)).WithExtra("ref", s.ref).WithExtra("remote", remote)
	}
	return kernel.Errorf(kernel.CodeNotAStore, "there is no records branch %s here: git records init starts one, or git records pull fetches it from a remote that has one",
		s.ref).WithExtra("ref", s.ref)
}
