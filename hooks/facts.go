package hooks

import (
	"errors"
	"sort"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// commitFacts gathers what the kernel's judgment of commit h reads: the
// commit and its parents, the trust in force where it lands and its
// signature under it, and what its tree changes (for a merge, against
// both parents and their base).
func commitFacts(s *gitstore.Store, tc *trustCache, h plumbing.Hash, now, receivedAt time.Time) (kernel.CommitFacts, error) {
	w := tc.w
	c, err := w.Commit(h)
	if err != nil {
		return kernel.CommitFacts{}, err
	}
	f := kernel.CommitFacts{Hash: h.String(), Now: now, Encoding: c.Encoding, Author: c.AuthorLine, Committer: c.CommitterLine,
		Committed: c.Committer.When, BodyLinks: gitstore.BodyLinks, Encode: gitstore.EncodeRecord}
	for _, p := range c.ParentHashes {
		pc, err := w.Commit(p)
		if err != nil {
			return f, err
		}
		f.Parents = append(f.Parents, p.String())
		f.ParentDates = append(f.ParentDates, pc.Committer.When)
	}
	if len(c.ParentHashes) == 0 {
		// The root commit is the trust root: it is judged by its own
		// signers, and records.trustRoot, when set, says which root to accept.
		f.PinnedRoot, _ = s.ConfigValue("records.trustRoot")
	}
	msg, merr := gitstore.DecodeMessage(c.Message)
	op := kernel.Op(msg.Get(kernel.TrailerOp))
	f.Message = kernel.Message{Op: op, Trailers: msg.Trailers, Err: merr}
	var base plumbing.Hash
	if len(c.ParentHashes) == 2 {
		if base, err = s.MergeBase(c.ParentHashes[0], c.ParentHashes[1]); err != nil {
			return f, err
		}
	}
	if f.Trust, err = tc.judging(c, func() (plumbing.Hash, error) { return base, nil }); err != nil {
		return f, err
	}
	tr := f.Trust.For(op)
	sig, err := tc.signature(tr, c, receivedAt)
	if err != nil {
		return f, err
	}
	f.Signature = signatureFacts(sig)
	f.VerifyApproval = func(statement []byte, signature string) (string, error) {
		signers, err := tc.sshSigners(tr)
		if err != nil {
			return "", err
		}
		signedBy, _, err := signing.VerifyApproval(signers, statement, signature, kernel.SigningInstants(c.Committer.When, receivedAt)...)
		return signedBy, err
	}
	after, err := w.ViewAt(h)
	if err != nil {
		return f, err
	}
	f.After = after
	var parent plumbing.Hash
	if len(c.ParentHashes) > 0 {
		parent = c.ParentHashes[0]
		before, err := w.ViewAt(parent)
		if err != nil {
			return f, err
		}
		f.Before = before
	}
	if len(c.ParentHashes) > 1 {
		f.Merge, err = mergeFacts(s, tc, c, base, receivedAt)
		return f, err
	}
	f.Files = w.FileChangesBetween(parent, h)
	f.TrustAfter = func() (*kernel.Trust, error) { return tc.at(h) }
	return f, nil
}

// signatureFacts is a signature check's outcome as the kernel judges it.
func signatureFacts(sig Signature) kernel.SignatureFacts {
	out := kernel.SignatureFacts{Principal: sig.Principal, Key: sig.Key}
	switch sig.Status {
	case SignatureGood:
		out.Status = kernel.SignatureGood
	case SignatureUnsigned:
		out.Status = kernel.SignatureUnsigned
	case SignatureUnknownKey:
		out.Status = kernel.SignatureUnknownKey
		if errors.Is(sig.cause, signing.ErrKeyNotValid) {
			out.Status, out.Detail = kernel.SignatureKeyNotValid, messageOf(sig.cause)
		}
	case SignatureUnverifiable:
		out.Status = kernel.SignatureUnverifiable
		if errors.Is(sig.cause, signing.ErrUnsupportedFormat) {
			out.Status = kernel.SignatureUnsupported
		} else {
			out.Detail = messageOf(sig.cause)
		}
	default:
		out.Status, out.Detail = kernel.SignatureBad, sig.cause.Error()
	}
	return out
}

// mergeFacts gathers what a merge commit merges: every path that differs
// from either parent with its four versions, what it changes on its first
// parent, and the commits each side brings in (when the other side changed
// the trust) with their signatures under the newest trust.
func mergeFacts(s *gitstore.Store, tc *trustCache, c *gitstore.Commit, base plumbing.Hash, receivedAt time.Time) (*kernel.MergeFacts, error) {
	m := &kernel.MergeFacts{MergeText: gitstore.MergeText}
	if len(c.ParentHashes) != 2 || base.IsZero() {
		return m, nil
	}
	m.Base = base.String()
	w := tc.w
	ours, theirs := c.ParentHashes[0], c.ParentHashes[1]
	var err error
	if m.Incoming, err = incomingUnderNewestTrust(s, tc, ours, theirs, base, receivedAt); err != nil {
		return nil, err
	}
	views := map[plumbing.Hash]*gitstore.View{}
	for _, h := range []plumbing.Hash{ours, theirs, base, c.Hash} {
		if views[h], err = w.ViewAt(h); err != nil {
			return nil, err
		}
	}
	paths, modeSeen := map[string]bool{}, map[string]bool{}
	for _, parent := range []plumbing.Hash{ours, theirs} {
		changes, err := w.Changes(parent, c.Hash)
		if err != nil {
			return nil, err
		}
		for _, ch := range changes {
			paths[ch.Path] = true
			if !ch.New.IsZero() && ch.Mode != filemode.Regular && !modeSeen[ch.Path] {
				modeSeen[ch.Path] = true
				m.Modes = append(m.Modes, kernel.FileChange{Path: ch.Path, Mode: ch.Mode.String()})
			}
			if parent != ours {
				continue
			}
			// What the merge changes on its first parent; a deleted or
			// unparsable record is judged by the merge rules below.
			fcs, err := w.FileChanges([]gitstore.Change{ch})
			if err != nil {
				return nil, err
			}
			if fc := fcs[0]; fc.IsRecord && fc.New != nil {
				m.Changes = append(m.Changes, kernel.RecordChange{Type: fc.Type, ID: fc.ID, Old: fc.Old, New: fc.New, OldBroken: fc.OldBroken})
			}
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	record := func(h plumbing.Hash) *kernel.Record {
		if h.IsZero() {
			return nil
		}
		r, err := w.RecordFromBlob(h)
		if err != nil {
			return nil // reported on the commit that wrote it
		}
		return r
	}
	for _, path := range sorted {
		var blobs [4]plumbing.Hash
		for i, h := range []plumbing.Hash{base, ours, theirs, c.Hash} {
			blobs[i], _ = views[h].FileHash(path)
		}
		name := func(h plumbing.Hash) string {
			if h.IsZero() {
				return ""
			}
			return h.String()
		}
		p := kernel.MergePath{Path: path, Base: name(blobs[0]), Ours: name(blobs[1]), Theirs: name(blobs[2]), Merged: name(blobs[3])}
		if _, id, ok := gitstore.ParseRecordPath(path); ok {
			p.IsRecord, p.ID = true, id
			p.Records = func() (kernel.MergeRecords, error) {
				rs := kernel.MergeRecords{Base: record(blobs[0]), Ours: record(blobs[1]), Theirs: record(blobs[2])}
				if !blobs[3].IsZero() {
					rs.Merged, rs.MergedErr = w.RecordFromBlob(blobs[3])
				}
				return rs, nil
			}
		} else {
			p.Data = func() ([4][]byte, error) {
				var data [4][]byte
				for i, h := range blobs {
					if h.IsZero() {
						continue
					}
					b, err := s.Blob(h)
					if err != nil {
						return data, err
					}
					data[i] = b
				}
				return data, nil
			}
		}
		m.Paths = append(m.Paths, p)
	}
	return m, nil
}

// IncomingFacts lists a merge's incoming commits for the write loop's
// judgment of the merge (gitstore.Store.JudgeIncomingWith), as verify
// lists them for the merge commit.
func IncomingFacts(s *gitstore.Store) gitstore.IncomingFacts {
	return func(ours, theirs, base plumbing.Hash) ([]kernel.IncomingCommit, error) {
		return incomingUnderNewestTrust(s, newTrustCache(s), ours, theirs, base, time.Time{})
	}
}

// incomingUnderNewestTrust lists, for each side of a merge whose other
// side changed the trust since the merge base, the commits it brings in
// that the other lacks, each with its signature checked under the trust
// the other side changed to, merged with the commit's own
// (kernel.MergeTrust), for its op.
func incomingUnderNewestTrust(s *gitstore.Store, tc *trustCache, ours, theirs, base plumbing.Hash, receivedAt time.Time) ([]kernel.IncomingCommit, error) {
	then, err := tc.at(base)
	if err != nil {
		return nil, err
	}
	var out []kernel.IncomingCommit
	for _, side := range [][2]plumbing.Hash{{ours, theirs}, {theirs, ours}} {
		from, other := side[0], side[1]
		otherTrust, err := tc.at(other)
		if err != nil {
			return nil, err
		}
		if otherTrust.Equal(then) { // the other side changed no trust: nothing to hold the incoming to
			continue
		}
		incoming, err := s.RevList(from.String(), "--not", other.String())
		if err != nil {
			return nil, err
		}
		for _, h := range incoming {
			c, err := tc.w.Commit(h)
			if err != nil {
				return nil, err
			}
			own, err := tc.at(trustFrom(c))
			if err != nil {
				return nil, err
			}
			msg, _ := gitstore.DecodeMessage(c.Message)
			op := kernel.Op(msg.Get(kernel.TrailerOp))
			now := kernel.MergeTrust(then, own, otherTrust).For(op)
			sig, err := tc.signature(now, c, receivedAt)
			if err != nil {
				return nil, err
			}
			in := kernel.IncomingCommit{Hash: h.String(), Op: op, Merge: len(c.ParentHashes) != 1, Trust: now,
				Signature: kernel.SignatureFacts{Status: kernel.SignatureBad, Principal: sig.Principal, Detail: sig.Detail}}
			if sig.Status == SignatureGood {
				in.Signature.Status = kernel.SignatureGood
			}
			if sig.Status == SignatureGood && !in.Merge {
				changes, err := tc.w.Changes(c.ParentHashes[0], h)
				if err != nil {
					return nil, err
				}
				for _, ch := range changes {
					if _, id, ok := gitstore.ParseRecordPath(ch.Path); ok && !ch.New.IsZero() {
						if r, err := tc.w.RecordFromBlob(ch.New); err == nil {
							in.Scopes = append(in.Scopes, kernel.Right{Op: op, Record: id, Type: r.Type, Category: r.Category})
						}
					}
				}
			}
			out = append(out, in)
		}
	}
	return out, nil
}

// trustFrom is the commit whose trust a commit's own check uses: its first
// parent, or itself for a root commit (the trust root).
func trustFrom(c *gitstore.Commit) plumbing.Hash {
	if len(c.ParentHashes) > 0 {
		return c.ParentHashes[0]
	}
	return c.Hash
}
