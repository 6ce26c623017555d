package kernel

import "reflect"

// Replay. A commit no remote has yet is published by deciding it again on
// the remote's tip (the new parent) rather than by merging: each record it
// changed is re-derived from what the commit did to it (its parent's
// version, base, against its own, change) applied on the new parent's
// version (onto), by the merge's field rules. The replayed commit carries
// the same op, message and evidence, and is judged on the new parent like
// any commit; the history stays linear.

// ReplayRecord decides one record of a replayed commit. base is the record
// as the commit's parent had it, onto as the new parent has it, change as
// the commit wrote it (nil where absent). The result's Record is nil when
// the new parent holds the commit's change already (nothing to write).
//
// Fields follow MergeRecord's rules with onto as ours and change as theirs:
// a field only one of them changed since base takes that change; a field
// both changed goes to the later mutation (ties: the larger commit id) and
// the losing value is kept in a merge entry of the log, which `conflicts`
// lists. The log is onto's with the entries the commit appended after it,
// then the merge entries, so it stays append-only on the new parent.
//
// A change that cannot be replayed is a CONFLICT: a record the commit
// deletes (no op does), one that is gone from the new parent, or an id the
// commit creates that the new parent already holds (another writer took
// it: the create, decided again, would be refused).
func ReplayRecord(base *Record, onto, change Side, info MergeInfo) (MergeResult, error) {
	o, c := onto.Record, change.Record
	switch {
	case c == nil && base == nil:
		return MergeResult{Case: CaseUnchanged}, nil
	case c == nil:
		return MergeResult{}, Errorf(CodeConflict, "the commit deletes record %s, which no op does", base.ID)
	case base == nil && o != nil:
		return MergeResult{}, Errorf(CodeConflict, "the commit creates %s, an id the remote already gives to a %s record created by another writer", c.ID, o.Type).
			WithExtra("id", c.ID)
	case base == nil:
		return MergeResult{Case: CaseAddedTheirs, Record: c}, nil
	case o == nil:
		return MergeResult{}, Errorf(CodeConflict, "the commit changes record %s, which the remote does not hold (it was created by a commit that was not published)", c.ID).
			WithExtra("id", c.ID)
	case reflect.DeepEqual(o, c):
		return MergeResult{Case: CaseUnchanged}, nil
	case reflect.DeepEqual(base, o):
		return MergeResult{Case: CaseChangedTheirs, Record: c}, nil
	case reflect.DeepEqual(base, c):
		return MergeResult{Case: CaseChangedOurs}, nil
	}
	appended := func(onto, changed []MutationEntry) []MutationEntry {
		out := append([]MutationEntry(nil), onto...)
		have := NewEntrySet(onto)
		from := len(base.MutationLog)
		if from > len(changed) {
			from = len(changed)
		}
		for _, e := range changed[from:] {
			if !have.Has(e) {
				out = append(out, e)
			}
		}
		return out
	}
	r, cs := mergeFields(base, onto, change, info, appended)
	if reflect.DeepEqual(r, o) {
		return MergeResult{Case: CaseChangedOurs}, nil
	}
	return MergeResult{Case: CaseChangedBoth, Record: r, Conflicts: cs}, nil
}

// ConflictTrailer is the Evidence-Conflict trailer that names a conflict a
// merge or a replay resolved: "<id> <field> kept <commit>".
func ConflictTrailer(c Conflict) Trailer {
	return Trailer{Key: TrailerConflict, Value: c.ID + " " + c.Field + " kept " + c.Kept}
}
