package hooks

import (
	"reflect"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// checkMerge judges a merge commit by the merge rules rather than against
// its first parent alone: every record it writes must hold everything both
// parents hold — the same immutable fields, every mutation-log entry of
// both sides (only merge entries may be new), the union of links, tags and
// aliases, the furthest status — and no record may appear that neither
// side has or disappear. The commits it merges are judged on their own.
func (j *judge) checkMerge(op kernel.Op, msg gitstore.CommitMessage) error {
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
	changes, err := j.s.Changes(ours, j.commit.Hash)
	if err != nil {
		return err
	}
	tv, err := j.s.ViewAt(theirs)
	if err != nil {
		return err
	}
	for _, c := range changes {
		theirsBlob, _ := tv.FileHash(c.Path)
		if _, id, ok := gitstore.ParseRecordPath(c.Path); ok {
			if err := j.checkMergedRecord(id, c, theirsBlob, fix); err != nil {
				return err
			}
			continue
		}
		if c.New != theirsBlob {
			j.violation(RuleOpMatches, "", c.Path, fix, "merge gives %s a content neither parent has", c.Path)
		}
	}
	return nil
}

func (j *judge) checkMergedRecord(id string, c gitstore.Change, theirsBlob plumbing.Hash, fix string) error {
	if c.New.IsZero() {
		j.violation(RuleNoDelete, id, c.Path, fix, "merge deletes record %s", id)
		return nil
	}
	r, err := j.s.RecordFromBlob(c.New)
	if err != nil {
		j.violation(RuleRecord, id, c.Path, fix, "%v", err)
		return nil
	}
	var sides []*kernel.Record
	for _, h := range []plumbing.Hash{c.Old, theirsBlob} {
		if h.IsZero() {
			continue
		}
		p, err := j.s.RecordFromBlob(h)
		if err != nil {
			continue // a broken parent version is reported on the commit that wrote it
		}
		sides = append(sides, p)
	}
	if len(sides) == 0 {
		j.violation(RuleOpMatches, id, c.Path, fix, "merge adds record %s that neither parent has", id)
		return nil
	}
	for _, p := range sides {
		switch {
		case p.ID != r.ID || p.Type != r.Type || !p.CreatedAt.Equal(r.CreatedAt.Time) || !reflect.DeepEqual(p.Provenance, r.Provenance):
			j.violation(RuleImmutable, id, c.Path, fix, "merge changes an immutable field of %s", id)
		case !containsEntries(r.MutationLog, p.MutationLog):
			j.violation(RuleMutationLog, id, c.Path, fix, "merge loses mutation-log entries of %s", id)
		case !containsLinks(r.Links, p.Links) || !containsAll(r.Tags, p.Tags) || !containsAll(r.Aliases, p.Aliases):
			j.violation(RuleOpMatches, id, c.Path, fix, "merge drops links, tags or aliases of %s", id)
		case rank(r.EffectiveStatus()) < rank(p.EffectiveStatus()):
			j.violation(RuleOpMatches, id, c.Path, fix, "merge moves %s back from %s to %s", id, p.EffectiveStatus(), r.EffectiveStatus())
		}
	}
	for _, e := range r.MutationLog {
		if e.Op == string(kernel.OpMerge) {
			continue
		}
		found := false
		for _, p := range sides {
			if containsEntries(p.MutationLog, []kernel.MutationEntry{e}) {
				found = true
				break
			}
		}
		if !found {
			j.violation(RuleMutationLog, id, c.Path, fix, "merge invents a %s entry in the log of %s", e.Op, id)
		}
	}
	return nil
}

func rank(s kernel.Status) int {
	switch s {
	case kernel.StatusRetired:
		return 2
	case kernel.StatusImplemented:
		return 1
	}
	return 0
}

func containsEntries(have, want []kernel.MutationEntry) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if reflect.DeepEqual(h, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func containsLinks(have, want []kernel.Link) bool {
	for _, w := range want {
		if !kernel.HasLink(have, w.TargetID, w.Kind) {
			return false
		}
	}
	return true
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
