package gitstore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// Replay publishes the commits of this clone that no remote holds yet on
// top of a remote's tip, so the records branch stays linear however many
// writers publish. Each commit is decided again on the commit before it
// (the first on the remote's tip), as the write loop decides an op again
// after a lost race: what it did to each record (its parent's version
// against its own) is applied on the new parent by the merge's field rules
// (kernel.ReplayRecord), with the same op, message and evidence, then
// judged by the write path's judgment on the new parent, under the trust
// in force there, and signed again by this clone's key, which must be the
// key that signed it. A commit the judgment refuses, or that cannot be
// applied, is not published and not lost: it stays reachable from
// KeptRefPrefix, and the sync that met it ends in CONFLICT naming it.

// KeptRefPrefix is where a commit that could not be replayed is kept:
// refs/records-unpublished/<branch>/<commit>.
const KeptRefPrefix = "refs/records-unpublished/"

// ReplayedCommit is one local commit as a replay published it.
type ReplayedCommit struct {
	Original plumbing.Hash `json:"original"`
	// Commit is the commit that replaces it on the branch (zero when the
	// remote held its changes already).
	Commit    plumbing.Hash     `json:"commit"`
	Op        kernel.Op         `json:"op"`
	Conflicts []kernel.Conflict `json:"conflicts,omitempty"`
}

// KeptCommit is a local commit that could not be replayed: not published,
// kept at Ref, with the refusal that stopped it.
type KeptCommit struct {
	Commit  plumbing.Hash `json:"commit"`
	Ref     string        `json:"ref"`
	Op      kernel.Op     `json:"op"`
	Records []string      `json:"records,omitempty"`
	Code    kernel.Code   `json:"code"`
	Reason  string        `json:"reason"`
}

// ReplayOutcome reports a replay: the remote tip it started on, the tip it
// left the branch on, and each local commit's fate, oldest first.
type ReplayOutcome struct {
	Onto     plumbing.Hash    `json:"onto"`
	Commit   plumbing.Hash    `json:"commit"`
	Replayed []ReplayedCommit `json:"replayed,omitempty"`
	Kept     []KeptCommit     `json:"kept,omitempty"`
}

// errBranchMoved is a replay that found the branch moved by another write
// of this clone: the commits to replay must be listed again.
var errBranchMoved = errors.New("the records branch moved during the replay")

// KeptRef is where commit is kept when it cannot be replayed.
func (s *Store) KeptRef(commit plumbing.Hash) string {
	return KeptRefPrefix + strings.TrimPrefix(s.ref, "refs/heads/") + "/" + commit.String()
}

// replay decides commits (the local tip's commits onto lacks, parents
// first, each the first parent of the next) again on onto, and moves the
// branch from local, the tip they were listed from, to the last commit it
// wrote. Kept commits get their ref before the branch moves, so a replay
// killed anywhere loses nothing: the branch is at local or at the replayed
// commits, and every kept commit is named by a ref. errBranchMoved when
// the branch left local meanwhile.
func (s *Store) replay(onto, local plumbing.Hash, commits []plumbing.Hash) (*ReplayOutcome, error) {
	out := &ReplayOutcome{Onto: onto, Commit: onto}
	g := &groupObjects{s: s, EncodedObjectStorer: s.objects, mem: map[plumbing.Hash]plumbing.EncodedObject{}}
	// Each commit reads the one before it before its objects are synced.
	saved := s.objects
	s.objects = g
	defer func() { s.objects = saved }()
	v, err := s.viewAt(onto)
	if err != nil {
		return nil, err
	}
	var builds []*built
	var reqs []*writeRequest
	for i, h := range commits {
		c, err := s.commit(h)
		if err != nil {
			return nil, err
		}
		msg, msgErr := DecodeMessage(c.Message)
		op := kernel.Op(msg.Get(kernel.TrailerOp))
		rc := ReplayedCommit{Original: h, Op: op}
		r := &writeRequest{call: Call{Front: s.call.Front, Op: string(op), Agent: msg.Get(kernel.TrailerAgent)},
			decide: s.replayPlan(c, msg, msgErr, &rc), approval: kernel.Approval{Approve: msg.Get(kernel.TrailerApprovedBy) != ""}, start: time.Now()}
		b, err := s.decideGuarded(r, v, g)
		switch {
		case err != nil:
			s.finish(r, nil, nil, err)
			out.Kept = append(out.Kept, KeptCommit{Commit: h, Ref: s.KeptRef(h), Op: op, Records: msg.All(kernel.TrailerID), Code: kernel.CodeOf(err), Reason: kernel.MessageOf(err)})
			continue
		case b == nil:
			s.finish(r, &Written{Attempts: 1}, r.pw, nil) // the remote holds its changes already
		default:
			rc.Commit = b.commit
			builds, reqs = append(builds, b), append(reqs, r)
			out.Commit = b.commit
			if i < len(commits)-1 {
				if v, err = s.chainView(b); err != nil {
					return nil, err
				}
			}
		}
		out.Replayed = append(out.Replayed, rc)
	}
	id := identNow(s)
	for _, k := range out.Kept {
		if err := s.keep(k, id); err != nil {
			return nil, err
		}
	}
	var lock *gitdir.RefLock
	var lockErr error
	err = g.SyncAlongside(func() error {
		lock, lockErr = s.lockRef(out.Commit, local)
		return nil
	})
	if err == nil {
		err = lockErr
	}
	if err == nil {
		err = lock.Move(id, fmt.Sprintf("records: replay %d commits onto %s", len(builds), short(onto.String())))
	} else {
		lock.Abort()
	}
	if err != nil {
		if conflict := (*gitdir.RefConflict)(nil); errors.As(err, &conflict) {
			if conflict.Locked {
				return nil, conflictError(s.ref, 1, conflict)
			}
			return nil, errBranchMoved
		}
		return nil, err
	}
	err = lock.Sync()
	s.objects = saved
	s.indexMerged(out.Commit)
	_ = s.writeGraphFile()
	for i, b := range builds {
		s.finish(reqs[i], &Written{Commit: b.commit, Mutation: b.pw.m, Attempts: 1}, b.pw, err)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// keep names a commit that could not be replayed by its kept ref.
func (s *Store) keep(k KeptCommit, id gitdir.Ident) error {
	if have, err := s.repo.ReadRef(k.Ref); err == nil && have == k.Commit {
		return nil // kept by a replay killed before the branch moved
	}
	if err := s.repo.UpdateRef(k.Ref, k.Commit, plumbing.ZeroHash, id, "records: kept, not replayed"); err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "keep commit %s at %s", short(k.Commit.String()), k.Ref)
	}
	return nil
}

// replayPlan is the write loop's decision that replays c on the tip it is
// given; rc learns what it resolved.
func (s *Store) replayPlan(c *Commit, msg CommitMessage, msgErr error, rc *ReplayedCommit) plan {
	return func(v *View, env kernel.Env) (*plannedWrite, error) {
		if msgErr != nil {
			return nil, kernel.Wrap(kernel.CodeMissingEvidence, msgErr, "commit %s has no message git-records can read", short(c.Hash.String()))
		}
		if err := s.signedByUs(c); err != nil {
			return nil, err
		}
		m, err := s.replayMutation(c, msg, v, env, rc)
		if err != nil || m == nil {
			return nil, err
		}
		return &plannedWrite{m: m, replayed: c.Hash}, nil
	}
}

// replayMutation is what c did, applied on v: its records by
// kernel.ReplayRecord, payloads as they are, store files when v still has
// c's parent's version (allowed signers changed on both sides by their line
// merge). nil when v holds all of it already.
func (s *Store) replayMutation(c *Commit, msg CommitMessage, v *View, env kernel.Env, rc *ReplayedCommit) (*kernel.Mutation, error) {
	if len(c.ParentHashes) != 1 {
		return nil, kernel.Errorf(kernel.CodeConflict, "commit %s has %d parents: only a commit with one is replayed", short(c.Hash.String()), len(c.ParentHashes))
	}
	changes, err := s.Changes(c.ParentHashes[0], c.Hash)
	if err != nil {
		return nil, err
	}
	op := kernel.Op(msg.Get(kernel.TrailerOp))
	typ, title := subjectParts(msg.Subject, op)
	m := &kernel.Mutation{Op: op, Type: typ, Title: title, Message: msg.Body, Files: map[string][]byte{}}
	info := kernel.MergeInfo{At: env.Now.Truncate(time.Second), Agent: msg.Get(kernel.TrailerAgent), Text: MergeText}
	var conflicts []kernel.Conflict
	for _, ch := range changes {
		ontoBlob, err := v.FileHash(ch.Path)
		if err != nil {
			return nil, err
		}
		if ontoBlob == ch.New {
			continue // the new parent has it already
		}
		if _, _, ok := ParseRecordPath(ch.Path); ok {
			base, err := s.recordIfAny(ch.Old)
			if err != nil {
				return nil, err
			}
			change, err := s.recordIfAny(ch.New)
			if err != nil {
				return nil, err
			}
			onto := base
			if ontoBlob != ch.Old {
				if onto, err = s.recordIfAny(ontoBlob); err != nil {
					return nil, err
				}
			}
			res, err := kernel.ReplayRecord(base, kernel.Side{Record: onto, Commit: v.tip.String()}, kernel.Side{Record: change, Commit: c.Hash.String()}, info)
			if err != nil {
				return nil, err
			}
			if res.Record != nil {
				m.Writes = append(m.Writes, res.Record)
				conflicts = append(conflicts, res.Conflicts...)
			}
			continue
		}
		if ch.New.IsZero() {
			return nil, kernel.Errorf(kernel.CodeConflict, "commit %s deletes %s, which no op does", short(c.Hash.String()), ch.Path)
		}
		data, err := s.blob(ch.New)
		if err != nil {
			return nil, err
		}
		switch {
		case ontoBlob == ch.Old || kernel.IsPayloadPath(ch.Path):
			m.Files[ch.Path] = data
		case ch.Path == AllowedSignersPath:
			var sides [2][]byte
			for i, h := range []plumbing.Hash{ch.Old, ontoBlob} {
				if sides[i], err = s.blobIfAny(h); err != nil {
					return nil, err
				}
			}
			m.Files[ch.Path] = MergeSigners(sides[0], sides[1], data)
		default:
			return nil, kernel.Errorf(kernel.CodeConflict, "commit %s changes %s, which the remote changed too", short(c.Hash.String()), ch.Path).WithExtra("path", ch.Path)
		}
	}
	if len(m.Writes) == 0 && len(m.Files) == 0 {
		return nil, nil
	}
	m.Trailers = append([]kernel.Trailer(nil), msg.Trailers...)
	for _, cf := range conflicts {
		m.Trailers = append(m.Trailers, kernel.ConflictTrailer(cf))
	}
	rc.Conflicts = conflicts
	return m, nil
}

// signedByUs refuses to sign c again unless this clone's key signed it: a
// replay publishes the writer's own commits, never re-signs another's.
func (s *Store) signedByUs(c *Commit) error {
	signer, err := s.Signer()
	if err != nil {
		return err
	}
	raw, err := s.RawCommit(c.Hash)
	if err != nil {
		return err
	}
	payload, sig := signing.SplitSignature(raw)
	ours := signer.Principal()
	if sig == nil || signer.Format() != signing.FormatSSH || ours == "" {
		return kernel.Errorf(kernel.CodePermissionDenied, "commit %s is not signed with this clone's SSH signing key, so it is not signed again: merge it instead (git records merge)", short(c.Hash.String()))
	}
	theirs, err := signing.CheckSSH(payload, sig).Key()
	if err != nil || theirs != ours {
		return kernel.Errorf(kernel.CodePermissionDenied, "commit %s was signed by key %s, not by this clone's key %s, so it is not signed again: merge it instead (git records merge)", short(c.Hash.String()), theirs, ours)
	}
	return nil
}

// subjectParts reads "op(type): title" back into a mutation's type and
// title (the whole subject as title when it has another shape).
func subjectParts(subject string, op kernel.Op) (typ, title string) {
	rest, ok := strings.CutPrefix(subject, string(op)+"(")
	if i := strings.Index(rest, "): "); ok && i >= 0 {
		return rest[:i], rest[i+3:]
	}
	return "", subject
}
