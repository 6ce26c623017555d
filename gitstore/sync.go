package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// IncomingCheck judges commits fetched from a remote before any of them is
// merged or built on (the CLI passes verify). It returns a non-nil error to
// refuse them.
type IncomingCheck func(commits []plumbing.Hash) error

// DefaultRetryFor is how long sync and push keep retrying a push that lost
// a race with another writer's before they report CONFLICT.
const DefaultRetryFor = 2 * time.Minute

// SyncOptions say what sync does.
type SyncOptions struct {
	Remote   string
	Pull     bool // bring the remote's records branch in (fast-forward, or replay what is only ours on it)
	Push     bool // publish what is only ours, with a lease
	Agent    string
	Check    IncomingCheck
	Approval kernel.Approval // for a policy that marks merges as needing approval
	// RetryFor bounds the retries of a push that lost a race (fetch,
	// replay, push again); DefaultRetryFor when zero.
	RetryFor time.Duration
}

// SyncResult reports a sync.
type SyncResult struct {
	Remote   string        `json:"remote"`
	Ref      string        `json:"ref"`
	Fetched  plumbing.Hash `json:"fetched"`  // the remote's tip as last fetched (zero: none)
	Incoming int           `json:"incoming"` // commits new to us that were verified
	Merge    *MergeOutcome `json:"merge,omitempty"`
	// Replay is the last replay of our commits on the remote's tip.
	Replay *ReplayOutcome `json:"replay,omitempty"`
	// Conflicts are the fields the replays resolved (the losing values
	// are in the records' mutation logs).
	Conflicts []kernel.Conflict `json:"conflicts,omitempty"`
	// Kept are our commits that could not be replayed: not published,
	// each kept at its ref.
	Kept     []KeptCommit `json:"kept,omitempty"`
	Pushed   bool         `json:"pushed"`
	Attempts int          `json:"attempts"`
}

// RemoteTrackingRef is where a remote's records branch is fetched to.
func (s *Store) RemoteTrackingRef(remote string) string {
	return "refs/remotes/" + remote + "/" + strings.TrimPrefix(s.ref, "refs/heads/")
}

// Sync carries records to and from a remote through git itself, so the
// user's remotes, credentials and transports (ssh, https, file) apply.
// Only the records branch, its remote-tracking ref and the refs of kept
// commits (KeptRefPrefix) are touched:
//
//  1. fetch the remote's records branch into the remote-tracking ref;
//  2. verify every commit we do not have yet; refuse all of it on a violation;
//  3. bring it in: fast-forward when only the remote moved; when both did,
//     replay our commits on the remote's tip (replay.go), so the branch
//     stays linear, or merge when some of them are published elsewhere
//     already (history others hold is never rewritten) or are not ours to
//     sign again;
//  4. push with a lease on the tip we fetched, so a concurrent push is never
//     overwritten; on a lost race wait (randomized, exponential) and go
//     back to 1, until RetryFor is spent. Everything unpublished goes in
//     that one push.
//
// Each step is atomic (a ref update), so a sync killed anywhere leaves both
// sides valid, and the next sync picks up where it stopped. Commits a replay
// could not make are kept (KeptCommit) and the sync ends in CONFLICT naming
// them, once the rest is published.
func (s *Store) Sync(o SyncOptions) (*SyncResult, error) {
	if o.RetryFor <= 0 {
		o.RetryFor = DefaultRetryFor
	}
	deadline := time.Now().Add(o.RetryFor)
	res := &SyncResult{Remote: o.Remote, Ref: s.ref}
	// git fetch's own auto-maintenance is off (fetch): this is git's
	// estimate of whether it has work, made in-process once the sync is done.
	defer s.maintainAfterWrite()
	for attempt := 1; ; attempt++ {
		res.Attempts = attempt
		theirs, err := s.fetch(o.Remote)
		if err != nil {
			return nil, err
		}
		res.Fetched = theirs
		tip, err := s.Tip()
		if err != nil {
			return nil, err
		}
		sd, err := s.sidesOf(tip, theirs)
		if err != nil {
			return nil, err
		}
		res.Incoming += len(sd.theirs)
		if o.Check != nil && len(sd.theirs) > 0 {
			if err := o.Check(sd.theirs); err != nil {
				return res, err
			}
		}
		publish, err := s.bringIn(o, tip, theirs, sd, res)
		if errors.Is(err, errBranchMoved) {
			// Another write of this clone landed meanwhile: list what is
			// ours again.
			if time.Now().After(deadline) {
				return res, s.keptMoving(o, attempt)
			}
			continue
		}
		if err != nil {
			return res, err
		}
		if !o.Push || !publish {
			return res, s.keptError(res)
		}
		if tip, err = s.Tip(); err != nil {
			return nil, err
		}
		err = s.pushWithLease(o.Remote, tip, theirs)
		if errors.Is(err, errLeaseLost) {
			wait := publishBackoff(attempt)
			if time.Now().Add(wait).After(deadline) {
				return res, s.keptMoving(o, attempt)
			}
			time.Sleep(wait)
			continue
		}
		if err != nil {
			return res, err
		}
		res.Pushed = true
		return res, s.keptError(res)
	}
}

// sides are the commits only the local tip has (ours) and only the
// remote's has (theirs), parents first; ours is nil when the remote has
// no branch.
type sides struct{ ours, theirs []plumbing.Hash }

// sidesOf lists both sides of tip and theirs with one git rev-list
// (--left-right), which answers every question a sync asks of them.
func (s *Store) sidesOf(tip, theirs plumbing.Hash) (sides, error) {
	var sd sides
	switch {
	case theirs.IsZero():
		return sd, nil
	case tip.IsZero():
		all, err := s.RevList(theirs.String())
		sd.theirs = all
		return sd, err
	}
	out, err := s.git("rev-list", "--reverse", "--topo-order", "--left-right", tip.String()+"..."+theirs.String())
	if err != nil {
		return sd, kernel.Errorf(kernel.CodeInternal, "git rev-list %s...%s: %s", short(tip.String()), short(theirs.String()), err)
	}
	for _, line := range strings.Fields(out) {
		switch h := plumbing.NewHash(line[1:]); line[0] {
		case '<':
			sd.ours = append(sd.ours, h)
		case '>':
			sd.theirs = append(sd.theirs, h)
		}
	}
	return sd, nil
}

// bringIn brings theirs (fetched, and its new commits checked) into the
// records branch as step 3 of Sync says, and reports whether we have
// commits of our own to publish on it. A push alone brings it in only
// when we do.
func (s *Store) bringIn(o SyncOptions, tip, theirs plumbing.Hash, sd sides, res *SyncResult) (bool, error) {
	switch {
	case theirs.IsZero():
		return !tip.IsZero(), nil
	case len(sd.theirs) == 0:
		if o.Pull {
			res.Merge = &MergeOutcome{Kind: "up-to-date", Commit: tip, Ours: tip, Theirs: theirs}
		}
		return len(sd.ours) > 0, nil
	case len(sd.ours) == 0:
		if !o.Pull {
			return false, nil
		}
		var err error
		res.Merge, err = s.fastForward(tip, theirs, o.Agent)
		return false, err
	}
	merge, err := s.mustMerge(o.Remote, tip, theirs, sd.ours)
	if err != nil {
		return false, err
	}
	if merge {
		res.Merge, err = s.MergeApproved(theirs, o.Agent, o.Approval)
		return err == nil, err
	}
	out, err := s.replay(theirs, tip, sd.ours)
	if err != nil {
		return false, err
	}
	res.Replay = out
	res.Kept = append(res.Kept, out.Kept...)
	for _, rc := range out.Replayed {
		res.Conflicts = append(res.Conflicts, rc.Conflicts...)
	}
	return out.Commit != theirs, nil
}

// fastForward moves the branch from tip to theirs, a descendant of it,
// through the write loop (a merge that writes nothing); errBranchMoved
// when the branch left tip meanwhile.
func (s *Store) fastForward(tip, theirs plumbing.Hash, agent string) (*MergeOutcome, error) {
	out := &MergeOutcome{Kind: "fast-forward", Commit: theirs, Ours: tip, Theirs: theirs}
	_, _, err := s.write(s.callFor(kernel.OpMerge, agent), func(v *View, env kernel.Env) (*plannedWrite, error) {
		if v.Tip() != tip {
			return nil, errBranchMoved
		}
		return &plannedWrite{moveTo: theirs}, nil
	}, kernel.Approval{}, true)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// mustMerge reports whether ours (tip's commits theirs lacks) are merged
// rather than replayed: when one of them is already on another
// remote-tracking ref (published: others hold it, and a rewrite would fork
// their history), is a merge (a reviewed branch brought in), or was not
// signed by this clone's key (someone else's commit, not ours to sign). A
// root commit among them is a history of its own, with its own trust root:
// neither merged nor replayed.
func (s *Store) mustMerge(remote string, tip, theirs plumbing.Hash, ours []plumbing.Hash) (bool, error) {
	merge := false
	for _, h := range ours {
		c, err := s.commit(h)
		if err != nil {
			return false, err
		}
		if len(c.ParentHashes) == 0 {
			return false, kernel.Errorf(kernel.CodeConflict, "%s shares no history with the remote's %s: records branches with different roots are neither merged nor replayed (each root is its own trust root)", s.ref, short(theirs.String()))
		}
		merge = merge || len(c.ParentHashes) != 1 || s.signedByUs(c) != nil
	}
	if merge || !s.hasOtherRemoteRefs(s.RemoteTrackingRef(remote)) {
		return merge, nil
	}
	unpublished, err := s.RevList(tip.String(), "--not", theirs.String(), "--remotes")
	if err != nil {
		return false, err
	}
	return len(unpublished) != len(ours), nil
}

// hasOtherRemoteRefs reports whether the repository has a remote-tracking
// ref besides except (loose or packed), read from the files: only then
// can a commit of ours be published elsewhere already.
func (s *Store) hasOtherRemoteRefs(except string) bool {
	found := false
	root := filepath.Join(s.repo.CommonDir, "refs", "remotes")
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if !d.IsDir() && filepath.ToSlash(strings.TrimPrefix(path, s.repo.CommonDir+string(filepath.Separator))) != except {
			found = true
		}
		return nil
	})
	if found {
		return true
	}
	packed, err := os.ReadFile(filepath.Join(s.repo.CommonDir, "packed-refs"))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) // unreadable: assume there may be
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[1], "refs/remotes/") && f[1] != except {
			return true
		}
	}
	return false
}

// publishBackoff is the wait after a push lost the race for the remote's
// branch: randomized over [0, d) with d doubling from 20 ms up to 2.5 s, so
// writers that collided spread out and the next tries rarely collide again.
func publishBackoff(attempt int) time.Duration {
	d := 20 * time.Millisecond << min(attempt-1, 7)
	return rand.N(d)
}

// keptMoving is the CONFLICT of a sync whose retries ran out.
func (s *Store) keptMoving(o SyncOptions, attempts int) error {
	return kernel.Errorf(kernel.CodeConflict, "%s kept moving for %s (%d sync attempts); run sync again, or give it longer with --retry-for", o.Remote, o.RetryFor, attempts).
		WithExtra("remote", o.Remote).WithExtra("attempts", attempts)
}

// keptError is the CONFLICT that names the commits a sync could not
// replay (nil when there are none): each is kept, not published.
func (s *Store) keptError(res *SyncResult) error {
	if len(res.Kept) == 0 {
		return nil
	}
	parts := make([]string, len(res.Kept))
	for i, k := range res.Kept {
		parts[i] = fmt.Sprintf("%s (%s %s): %s [%s]; kept at %s", short(k.Commit.String()), k.Op, strings.Join(k.Records, " "), k.Reason, k.Code, k.Ref)
	}
	return kernel.Errorf(kernel.CodeConflict, "%d of our commits could not be replayed on %s's records branch and were not published: %s. Nothing is lost: git records log <ref> shows each; make the change again on the records branch as it is now",
		len(res.Kept), res.Remote, strings.Join(parts, "; ")).WithExtra("kept", res.Kept)
}

var errLeaseLost = errors.New("lease lost")

// fetch updates the remote-tracking ref of the records branch and returns
// its value; zero when the remote has no records branch yet.
func (s *Store) fetch(remote string) (plumbing.Hash, error) {
	track := s.RemoteTrackingRef(remote)
	out, err := s.runGit("fetch", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "--quiet", remote, "+"+s.ref+":"+track)
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
