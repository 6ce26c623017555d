package kernel

import "bytes"

// checkMerge judges a merge commit by the merge rules rather than against
// its first parent alone. Every file that differs from either parent is
// judged against both parents and their merge base: a record must keep
// what each side changed since the base — its mutation-log entries (only
// merge entries may be new), its links, tags and aliases — the immutable
// fields of a parent, and the furthest status; a side that left a record
// as the base had it contributes nothing, so the other side's edits
// (update replaces tags and links) stand. No record may appear that
// neither side has, or disappear; a store file must be one parent's, and
// the changed one when only one side changed it. What the merge changes on
// top of its first parent is held to the record rules of a merge
// (CheckCommit): the Record-Id trailers name exactly those records, and the
// ids and aliases they claim are no other record's, so both stay unique on
// the merge's tree whichever side comes first. The commits it merges are
// judged on their own, and again under the newest trust.
func (j *judgment) checkMerge(op Op) error {
	const fix = "merge record branches with git records sync / merge (or git merge with the records merge driver)"
	f := &j.f
	if op != OpMerge && op != "" {
		j.add(RuleOpMatches, "", "", fix, "a commit with two parents must be a merge, not %s", op)
	}
	if len(f.Parents) != 2 {
		j.add(RuleOpMatches, "", "", fix, "an octopus merge of %d parents is not a record merge", len(f.Parents))
		return nil
	}
	ours, theirs := f.Parents[0], f.Parents[1]
	if from := TrailerValue(f.Message.Trailers, TrailerMergedFrom); op == OpMerge && from != theirs {
		j.add(RuleTrailers, "", "", fix, "Evidence-Merged-From is %q, but the merged parent is %s", from, theirs)
	}
	m := f.Merge
	if m == nil || m.Base == "" {
		// A root commit is trusted on its own signers only as the
		// branch's root. Merging a second history would let anyone
		// allowed to merge bring in commits judged by signers and a
		// policy they wrote themselves: a contributor's forged root
		// making her maintainer.
		j.add(RuleOpMatches, "", "", "merge only histories that share this branch's root (records.trustRoot)",
			"merge of unrelated histories: %s shares no commit with %s", shortHash(theirs), shortHash(ours))
		return nil
	}
	j.checkIncoming(m.Incoming)
	for _, c := range m.Modes {
		j.add(RuleLayout, "", c.Path, "store files are plain files (mode 100644): no symlinks, executables or submodules", "%s has mode %s", c.Path, c.Mode)
	}
	for _, p := range m.Paths {
		if p.IsRecord {
			j.paths[p.ID] = p.Path
			// One side's change taken as it is stored, as git takes it:
			// the commits that wrote it were judged on their own.
			if (p.Merged == p.Ours && p.Theirs == p.Base) || (p.Merged == p.Theirs && p.Ours == p.Base) {
				continue
			}
			rs, err := p.Records()
			if err != nil {
				return err
			}
			if p.Merged != "" && rs.MergedErr != nil {
				j.add(RuleRecord, p.ID, p.Path, fix, "%v", rs.MergedErr)
				continue
			}
			for _, v := range CheckMergedRecord(p.ID, rs.Base, rs.Ours, rs.Theirs, rs.Merged, m.MergeText) {
				v.Path = p.Path
				j.vs = append(j.vs, v)
			}
			continue
		}
		switch {
		case p.Merged != p.Ours && p.Merged != p.Theirs && p.Path == AllowedSignersPath:
			if !signersMerged(p) {
				j.add(RuleOpMatches, "", p.Path, fix, "merge gives %s lines that are not the line merge of both sides (keys added on either side kept, keys removed on either side removed)", p.Path)
			}
		case p.Merged != p.Ours && p.Merged != p.Theirs:
			j.add(RuleOpMatches, "", p.Path, fix, "merge gives %s a content neither parent has", p.Path)
		case p.Merged == p.Ours && p.Ours == p.Base && p.Theirs != p.Base:
			j.add(RuleOpMatches, "", p.Path, fix, "merge drops the other side's change to %s", p.Path)
		case p.Merged == p.Theirs && p.Theirs == p.Base && p.Ours != p.Base:
			j.add(RuleOpMatches, "", p.Path, fix, "merge drops the first parent's change to %s", p.Path)
		}
	}
	for _, c := range m.Changes {
		if c.New != nil {
			j.paths[c.New.ID] = j.paths[c.ID]
		}
	}
	// A merge without a Record-Op has no trailers to hold to (checkTrailers
	// refuses it): only its handles are judged.
	for _, v := range CheckCommit(OpMerge, f.Message.Trailers, m.Changes, f.Before) {
		if op == OpMerge || v.Rule == RuleHandle {
			j.addAll([]Violation{v})
		}
	}
	return nil
}

// signersMerged reports whether a merge's allowed signers are exactly the
// line merge MergeSigners makes of both sides.
func signersMerged(p MergePath) bool {
	if p.Data == nil {
		return false
	}
	data, err := p.Data()
	if err != nil {
		return false
	}
	return bytes.Equal(MergeSigners(data[0], data[1], data[2]), data[3])
}

// checkIncoming closes the window a policy or signer change leaves open.
// Each commit is judged by its own parent's trust, so someone removed or
// demoted on one side could branch from before the change, do what the old
// trust allowed, and merge the branch in, with either parent first. So
// every commit one side brings in must also be allowed under the trust the
// other side changed to since the merge base, merged with the commit's own
// (MergeTrust): a side that lacks a later revocation or demotion cannot
// bring in what it forbids. The judge lists those commits only when the
// other side changed the trust.
func (j *judgment) checkIncoming(incoming []IncomingCommit) {
	const fix = "redo the change on top of the current branch, as someone the current policy allows"
	for _, c := range incoming {
		short := shortHash(c.Hash)
		if c.Signature.Status != SignatureGood {
			j.add(RulePolicy, "", "", fix, "merged-in commit %s is signed by a key the current allowed_signers does not trust (%s)", short, c.Signature.Detail)
			continue
		}
		if c.Merge {
			continue // merges bring nothing of their own; their sides are in this list
		}
		scopes := c.Scopes
		if len(scopes) == 0 {
			scopes = []Right{{}} // a store-level op (policy, init)
		}
		for _, s := range scopes {
			if d := c.Trust.Decide(c.Signature.Principal, c.Op, s.Type, s.Category); !d.Allowed {
				j.add(RulePolicy, s.Record, "", fix, "merged-in commit %s: %s may no longer %s %s: %s (rule: %s)", short, c.Signature.Principal, c.Op, describeScope(s), d.Reason, d.Rule)
			}
		}
	}
}
