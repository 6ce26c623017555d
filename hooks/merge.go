package hooks

import (
	"bytes"
	"os"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// checkMerge judges a merge commit by the merge rules rather than against
// its first parent alone. Every file that differs from either parent is
// judged against both parents and their merge base: a record must keep
// what each side changed since the base — its mutation-log entries (only
// merge entries may be new), its links, tags and aliases — the immutable
// fields of a parent, and the furthest status; a side that left a record
// as the base had it contributes nothing, so the other side's edits
// (update replaces tags and links) stand. No record may appear that
// neither side has, or disappear; a store file must be one parent's, and
// the changed one when only one side changed it. The Record-Id trailers
// name exactly the records the merge wrote on top of its first parent.
// The commits it merges are judged on their own.
func (j *judge) checkMerge(op kernel.Op, msg gitstore.CommitMessage, base plumbing.Hash) error {
	const fix = "merge record branches with git records sync / merge (or git merge with the records merge driver)"
	if op != kernel.OpMerge && op != "" {
		j.violation(RuleOpMatches, "", "", fix, "a commit with two parents must be a merge, not %s", op)
	}
	if len(j.commit.ParentHashes) != 2 {
		j.violation(RuleOpMatches, "", "", fix, "an octopus merge of %d parents is not a record merge", len(j.commit.ParentHashes))
		return nil
	}
	ours, theirs := j.commit.ParentHashes[0], j.commit.ParentHashes[1]
	if from := msg.Get(kernel.TrailerMergedFrom); op == kernel.OpMerge && from != theirs.String() {
		j.violation(RuleTrailers, "", "", fix, "Evidence-Merged-From is %q, but the merged parent is %s", from, theirs)
	}
	if base.IsZero() {
		// A root commit is trusted on its own signers only as the
		// branch's root. Merging a second history would let anyone
		// allowed to merge bring in commits judged by signers and a
		// policy they wrote themselves: a contributor's forged root
		// making her maintainer.
		j.violation(RuleOpMatches, "", "", "merge only histories that share this branch's root (records.trustRoot)",
			"merge of unrelated histories: %s shares no commit with %s", theirs.String()[:12], ours.String()[:12])
		return nil
	}
	if err := j.checkIncomingUnderNewestTrust(ours, theirs, base); err != nil {
		return err
	}
	views := map[plumbing.Hash]*gitstore.View{}
	var err error
	for _, h := range []plumbing.Hash{ours, theirs, base, j.commit.Hash} {
		if views[h], err = j.w.ViewAt(h); err != nil {
			return err
		}
	}
	paths, modeSeen := map[string]bool{}, map[string]bool{}
	var written []kernel.RecordChange // what the merge changes on top of its first parent
	recordPaths := map[string]string{}
	for _, parent := range []plumbing.Hash{ours, theirs} {
		changes, err := j.w.Changes(parent, j.commit.Hash)
		if err != nil {
			return err
		}
		for _, c := range changes {
			paths[c.Path] = true
			if !c.New.IsZero() && c.Mode != filemode.Regular && !modeSeen[c.Path] {
				modeSeen[c.Path] = true
				j.violation(RuleLayout, "", c.Path, "store files are plain files (mode 100644): no symlinks, executables or submodules", "%s has mode %s", c.Path, c.Mode)
			}
			if parent != ours {
				continue
			}
			if rc, ok := j.mergedChange(c); ok {
				written = append(written, rc)
				recordPaths[rc.ID] = c.Path
			}
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	for _, path := range sorted {
		blob := func(h plumbing.Hash) plumbing.Hash { b, _ := views[h].FileHash(path); return b }
		m := mergeVersions{merged: blob(j.commit.Hash), ours: blob(ours), theirs: blob(theirs), base: blob(base)}
		if _, id, ok := gitstore.ParseRecordPath(path); ok {
			j.checkMergedRecord(id, path, m, fix)
			continue
		}
		switch {
		case m.merged != m.ours && m.merged != m.theirs && path == gitstore.AllowedSignersPath:
			if !j.signersMerged(m) {
				j.violation(RuleOpMatches, "", path, fix, "merge gives %s lines that are not the line merge of both sides (keys added on either side kept, keys removed on either side removed)", path)
			}
		case m.merged != m.ours && m.merged != m.theirs:
			j.violation(RuleOpMatches, "", path, fix, "merge gives %s a content neither parent has", path)
		case m.merged == m.ours && m.ours == m.base && m.theirs != m.base:
			j.violation(RuleOpMatches, "", path, fix, "merge drops the other side's change to %s", path)
		case m.merged == m.theirs && m.theirs == m.base && m.ours != m.base:
			j.violation(RuleOpMatches, "", path, fix, "merge drops the first parent's change to %s", path)
		}
	}
	// What the merge changes on top of its first parent, judged against
	// it: the records it names, and the handles the records it brings in
	// claim. The first parent's tree held each id and alias once, so this
	// keeps them unique on the merge's tree, whichever side comes first.
	// A merge without a Record-Op has no trailers to hold to (checkTrailers
	// refuses it): only its handles are judged.
	for _, v := range kernel.CheckCommit(kernel.OpMerge, msg.Trailers, written, views[ours]) {
		if op == kernel.OpMerge || v.Rule == RuleHandle {
			j.violation(v.Rule, v.Record, recordPaths[v.Record], v.Fix, "%s", v.Message)
		}
	}
	return nil
}

// mergedChange is a change a merge makes to a record file on top of its
// first parent, for kernel.CheckCommit; ok is false for a file that is no
// record, a deleted record (CheckMergedRecord reports it) and a version that
// does not parse (checkMergedRecord reports it).
func (j *judge) mergedChange(c gitstore.Change) (kernel.RecordChange, bool) {
	typ, id, ok := gitstore.ParseRecordPath(c.Path)
	if !ok || c.New.IsZero() {
		return kernel.RecordChange{}, false
	}
	r, err := j.w.RecordFromBlob(c.New)
	if err != nil {
		return kernel.RecordChange{}, false
	}
	rc := kernel.RecordChange{Type: typ, ID: id, New: r}
	if !c.Old.IsZero() {
		if old, err := j.w.RecordFromBlob(c.Old); err == nil {
			rc.Old = old
		} else {
			rc.OldBroken = true
		}
	}
	return rc, true
}

// mergeVersions are the blobs of one path in a merge, its parents and
// their merge base (zero where the path is absent).
type mergeVersions struct{ merged, ours, theirs, base plumbing.Hash }

// checkMergedRecord reads one record's versions in a merge and asks the
// kernel's merge postcondition about them. A version that does not parse
// counts as absent: it was reported on the commit that wrote it.
func (j *judge) checkMergedRecord(id, path string, m mergeVersions, fix string) {
	read := func(h plumbing.Hash) *kernel.Record {
		if h.IsZero() {
			return nil
		}
		r, err := j.w.RecordFromBlob(h)
		if err != nil {
			return nil
		}
		return r
	}
	var result *kernel.Record
	if !m.merged.IsZero() {
		r, err := j.w.RecordFromBlob(m.merged)
		if err != nil {
			j.violation(RuleRecord, id, path, fix, "%v", err)
			return
		}
		result = r
	}
	for _, v := range kernel.CheckMergedRecord(id, read(m.base), read(m.ours), read(m.theirs), result, gitstore.MergeText) {
		j.violation(v.Rule, id, path, v.Fix, "%s", v.Message)
	}
}

// mergeTrailers are the trailers of a merge commit made with plain git
// (git merge, git pull) on a checked-out records branch, for commit-msg:
// the merged-from commit, the records the merge writes on top of HEAD, and
// each conflict the merge driver resolved (a merge entry it appended).
func mergeTrailers(s *gitstore.Store, changes []gitstore.Change, mergeHead plumbing.Hash) ([]kernel.Trailer, string) {
	agent := os.Getenv("GIT_RECORDS_AGENT")
	if agent == "" {
		_, agent = s.Ident()
	}
	ts := []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpMerge)}}
	var conflicts []kernel.Trailer
	for _, c := range changes {
		_, id, ok := gitstore.ParseRecordPath(c.Path)
		if !ok || c.New.IsZero() {
			continue
		}
		r, err := s.RecordFromBlob(c.New)
		if err != nil {
			return nil, c.Path + " does not parse: " + err.Error()
		}
		ts = append(ts, kernel.Trailer{Key: kernel.TrailerID, Value: id})
		var old []kernel.MutationEntry
		if !c.Old.IsZero() {
			if o, err := s.RecordFromBlob(c.Old); err == nil {
				old = o.MutationLog
			}
		}
		hadEntry := kernel.NewEntrySet(old)
		for _, e := range r.MutationLog {
			if e.Op != string(kernel.OpMerge) || hadEntry.Has(e) {
				continue
			}
			field, _ := e.Evidence["field"].(string)
			kept, _ := e.Evidence["kept_from"].(string)
			conflicts = append(conflicts, kernel.Trailer{Key: kernel.TrailerConflict, Value: id + " " + field + " kept " + kept})
		}
	}
	ts = append(ts, kernel.Trailer{Key: kernel.TrailerAgent, Value: agent}, kernel.Trailer{Key: kernel.TrailerFormat, Value: kernel.FormatVersion},
		kernel.Trailer{Key: kernel.TrailerMergedFrom, Value: mergeHead.String()})
	return append(ts, conflicts...), ""
}

// checkIncomingUnderNewestTrust closes the window a policy or signer change
// leaves open. Each commit is judged by its own parent's trust, so someone
// removed or demoted on one side could branch from before the change, do
// what the old trust allowed, and merge the branch in, with either parent
// first. So every commit one side brings in must also be allowed under the
// trust the other side changed to since the merge base, merged with the
// commit's own (kernel.MergeTrust): a side that lacks a later revocation or
// demotion cannot bring in what it forbids.
func (j *judge) checkIncomingUnderNewestTrust(ours, theirs, base plumbing.Hash) error {
	if j.tc == nil {
		return nil
	}
	then, err := j.tc.at(base)
	if err != nil {
		return err
	}
	for _, side := range [][2]plumbing.Hash{{ours, theirs}, {theirs, ours}} {
		from, other := side[0], side[1]
		otherTrust, err := j.tc.at(other)
		if err != nil {
			return err
		}
		if otherTrust.Equal(then) { // the other side changed no trust: nothing to hold the incoming to
			continue
		}
		if err := j.checkIncoming(from, other, then, otherTrust); err != nil {
			return err
		}
	}
	return nil
}

// checkIncoming judges the commits of from that other lacks under the trust
// other changed to (since then), merged with each commit's own.
func (j *judge) checkIncoming(from, other plumbing.Hash, then, otherTrust *kernel.Trust) error {
	incoming, err := j.s.RevList(from.String(), "--not", other.String())
	if err != nil {
		return err
	}
	const fix = "redo the change on top of the current branch, as someone the current policy allows"
	for _, h := range incoming {
		c, err := j.w.Commit(h)
		if err != nil {
			return err
		}
		own, err := j.tc.at(trustFrom(c))
		if err != nil {
			return err
		}
		msg, _ := gitstore.DecodeMessage(c.Message)
		op := kernel.Op(msg.Get(kernel.TrailerOp))
		now := kernel.MergeTrust(then, own, otherTrust).For(op)
		sig, err := j.tc.signature(now, c, j.receivedAt)
		if err != nil {
			return err
		}
		short := h.String()[:12]
		if sig.Status != SignatureGood {
			j.violation(RulePolicy, "", "", fix, "merged-in commit %s is signed by a key the current allowed_signers does not trust (%s)", short, sig.Detail)
			continue
		}
		if len(c.ParentHashes) != 1 {
			continue // merges bring nothing of their own; their sides are in this list
		}
		changes, err := j.w.Changes(c.ParentHashes[0], h)
		if err != nil {
			return err
		}
		var scopes []touchedRecord
		for _, ch := range changes {
			if _, id, ok := gitstore.ParseRecordPath(ch.Path); ok && !ch.New.IsZero() {
				if r, err := j.w.RecordFromBlob(ch.New); err == nil {
					scopes = append(scopes, touchedRecord{id: id, typ: r.Type, category: r.Category})
				}
			}
		}
		if len(scopes) == 0 {
			scopes = []touchedRecord{{}} // a store-level op (policy, init)
		}
		for _, t := range scopes {
			if d := now.Decide(sig.Principal, op, t.typ, t.category); !d.Allowed {
				j.violation(RulePolicy, t.id, "", fix, "merged-in commit %s: %s may no longer %s %s: %s (rule: %s)", short, sig.Principal, op, describeScope(t), d.Reason, d.Rule)
			}
		}
	}
	return nil
}

// trustFrom is the commit whose trust a commit's own check uses: its first
// parent, or itself for a root commit (the trust root).
func trustFrom(c *gitstore.Commit) plumbing.Hash {
	if len(c.ParentHashes) > 0 {
		return c.ParentHashes[0]
	}
	return c.Hash
}

// signersMerged reports whether a merge's allowed signers are exactly the
// line merge kernel.MergeSigners makes of both sides.
func (j *judge) signersMerged(m mergeVersions) bool {
	var data [4][]byte
	for i, h := range []plumbing.Hash{m.base, m.ours, m.theirs, m.merged} {
		if h.IsZero() {
			continue
		}
		b, err := j.s.Blob(h)
		if err != nil {
			return false
		}
		data[i] = b
	}
	return bytes.Equal(kernel.MergeSigners(data[0], data[1], data[2]), data[3])
}
