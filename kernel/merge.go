package kernel

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// MergeCase names how a record stands between the merge base and the two
// sides. Every case has a rule and a test.
type MergeCase string

const (
	CaseUnchanged     MergeCase = "unchanged"      // same on both sides
	CaseAddedOurs     MergeCase = "added-ours"     // only ours has it: keep
	CaseAddedTheirs   MergeCase = "added-theirs"   // only theirs has it: take it
	CaseAddedBoth     MergeCase = "added-both"     // both created the same id: merge fields with no base
	CaseChangedOurs   MergeCase = "changed-ours"   // only ours changed it: keep ours
	CaseChangedTheirs MergeCase = "changed-theirs" // only theirs changed it: take theirs
	CaseChangedBoth   MergeCase = "changed-both"   // both changed it: merge field by field
	CaseDeletedOne    MergeCase = "deleted-one"    // one side deleted it (a violation): keep the record
)

// Side is one side of a merge: its record (nil when absent) and what
// breaks ties between the sides.
type Side struct {
	Record *Record
	Commit string // the side's tip; ties between equal mutation times go to the larger id
}

// Conflict is a field both sides changed to different values, resolved by
// the deterministic winner rule; the losing value is kept in the record's
// mutation log, so nothing is lost.
type Conflict struct {
	ID       string `json:"id"`
	Field    string `json:"field"`
	Kept     string `json:"kept"` // commit of the side whose value won
	Lost     string `json:"lost"`
	KeptText string `json:"-"`
	LostText string `json:"-"`
}

// MergeResult is the outcome for one record.
type MergeResult struct {
	Case      MergeCase
	Record    *Record
	Conflicts []Conflict
}

// TextMerger merges text line-wise from a base; ok is false when both
// sides changed overlapping lines.
type TextMerger func(base, ours, theirs string) (merged string, ok bool)

// MergeInfo is what every merged record needs to know about the merge.
type MergeInfo struct {
	At    time.Time // the merge's time: the merge log entries carry it
	Agent string
	Text  TextMerger
}

// MergeRecord decides one record of a three-way merge. base is nil when the
// merge base lacks the record.
func MergeRecord(base *Record, ours, theirs Side, info MergeInfo) MergeResult {
	o, t := ours.Record, theirs.Record
	switch {
	case o == nil && t == nil:
		return MergeResult{Case: CaseDeletedOne, Record: base}
	case o == nil || t == nil:
		present := o
		if o == nil {
			present = t
		}
		switch {
		case base == nil && o != nil:
			return MergeResult{Case: CaseAddedOurs, Record: o}
		case base == nil:
			return MergeResult{Case: CaseAddedTheirs, Record: t}
		}
		return MergeResult{Case: CaseDeletedOne, Record: present}
	case reflect.DeepEqual(o, t):
		return MergeResult{Case: CaseUnchanged, Record: o}
	case base == nil:
		// No base: every field the sides disagree on, created_at and
		// provenance included, goes to the winner and the other value is
		// logged, so neither creation is lost.
		r, cs := mergeFields(&Record{ID: o.ID, Type: o.Type}, ours, theirs, info, unionLog)
		return MergeResult{Case: CaseAddedBoth, Record: r, Conflicts: cs}
	case reflect.DeepEqual(base, t):
		return MergeResult{Case: CaseChangedOurs, Record: o}
	case reflect.DeepEqual(base, o):
		return MergeResult{Case: CaseChangedTheirs, Record: t}
	}
	r, cs := mergeFields(base, ours, theirs, info, unionLog)
	return MergeResult{Case: CaseChangedBoth, Record: r, Conflicts: cs}
}

// lastMutation is a side's latest mutation time: the winner rule compares it.
func lastMutation(r *Record) time.Time {
	t := r.UpdatedAt.Time
	for _, e := range r.MutationLog {
		if e.At.After(t) {
			t = e.At.Time
		}
	}
	return t
}

// oursWins applies the winner rule: the later mutation time, ties by the
// larger commit id.
func oursWins(ours, theirs Side) bool {
	to, tt := lastMutation(ours.Record), lastMutation(theirs.Record)
	if !to.Equal(tt) {
		return to.After(tt)
	}
	return ours.Commit > theirs.Commit
}

// mergeFields merges a record both sides changed; mergeLog decides its
// mutation log from both sides' (before any entry of the conflicts).
func mergeFields(base *Record, ours, theirs Side, info MergeInfo, mergeLog func(ours, theirs []MutationEntry) []MutationEntry) (*Record, []Conflict) {
	o, t := ours.Record, theirs.Record
	r := o.Clone()
	var conflicts []Conflict
	winner, loser := ours, theirs
	if !oursWins(ours, theirs) {
		winner, loser = theirs, ours
	}
	// scalar merges one value: a one-sided change wins; a two-sided change
	// goes to the winner and the loser's value is logged.
	scalar := func(field string, get func(*Record) any, set func(dst, src *Record)) {
		b, vo, vt := get(base), get(o), get(t)
		switch {
		case reflect.DeepEqual(vo, vt):
			return
		case reflect.DeepEqual(b, vo):
			set(r, t)
			return
		case reflect.DeepEqual(b, vt):
			set(r, o)
			return
		}
		set(r, winner.Record)
		conflicts = append(conflicts, Conflict{ID: o.ID, Field: field, Kept: winner.Commit, Lost: loser.Commit,
			KeptText: show(get(winner.Record)), LostText: show(get(loser.Record))})
	}
	for _, g := range fieldGroups() {
		f := g[0]
		switch f.Merge {
		case MergeImmutable, MergeScalar:
			// Immutable fields are equal on both sides unless both
			// created the record; then they merge like any scalar.
			if len(g) == 1 {
				scalar(f.Name, f.Get, f.Set)
			} else {
				scalar(f.Group, groupGet(g), groupSet(g))
			}
		case MergeLines:
			// Line-wise when the edits do not overlap, else the winner rule.
			bv, ov, tv := f.Text(base), f.Text(o), f.Text(t)
			switch {
			case ov == tv:
			case bv == ov:
				f.Set(r, t)
			case bv == tv:
				f.Set(r, o)
			default:
				if merged, ok := mergeText(info.Text, bv, ov, tv); ok {
					r.Body = merged
				} else {
					f.Set(r, winner.Record)
					conflicts = append(conflicts, Conflict{ID: o.ID, Field: f.Name, Kept: winner.Commit, Lost: loser.Commit,
						KeptText: f.Text(winner.Record), LostText: f.Text(loser.Record)})
				}
			}
		case MergeFurthest:
			// Lifecycle: retired over implemented over active.
			if statusRank(t.EffectiveStatus()) > statusRank(r.EffectiveStatus()) {
				f.Set(r, t)
			}
		case MergeSet:
			// Three-way, so a tag or link one side removed stays removed.
			f.merge3(r, base, o, t)
		case MergeLog:
			r.MutationLog = mergeLog(o.MutationLog, t.MutationLog)
		case MergeLatest:
			if t.UpdatedAt.After(r.UpdatedAt.Time) {
				f.Set(r, t)
			}
		}
	}
	at := At(info.At)
	for _, c := range conflicts {
		r.MutationLog = append(r.MutationLog, MutationEntry{Op: string(OpMerge), At: at, Agent: info.Agent,
			Note:     fmt.Sprintf("both sides changed %s; kept the value from %s", c.Field, short(c.Kept)),
			Evidence: map[string]any{"field": c.Field, "kept": c.KeptText, "lost": c.LostText, "kept_from": c.Kept, "lost_from": c.Lost}})
	}
	if len(conflicts) > 0 && at.After(r.UpdatedAt.Time) {
		r.UpdatedAt = at
	}
	return r, conflicts
}

func mergeText(m TextMerger, base, ours, theirs string) (string, bool) {
	if m == nil {
		return "", false
	}
	return m(base, ours, theirs)
}

func statusRank(s Status) int {
	switch s {
	case StatusRetired:
		return 2
	case StatusImplemented:
		return 1
	}
	return 0
}

func show(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return ""
		}
		v = rv.Elem().Interface()
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprint(v)
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func stringKey(s string) string { return s }

// threeWay merges two lists as sets from their base: an element in the
// base that either side removed is gone, any element either side added is
// kept. Ours first, in order, then what only theirs has. Linear, like the
// set operations of sets.go.
func threeWay[T any, K comparable](base, ours, theirs []T, key func(T) K) []T {
	set := func(list []T) map[K]bool {
		m := make(map[K]bool, len(list))
		for _, x := range list {
			m[key(x)] = true
		}
		return m
	}
	inBase, inOurs, inTheirs := set(base), set(ours), set(theirs)
	seen := make(map[K]bool, len(ours)+len(theirs))
	var out []T
	for _, x := range ours {
		k := key(x)
		if seen[k] || (inBase[k] && !inTheirs[k]) {
			continue
		}
		seen[k] = true
		out = append(out, x)
	}
	for _, x := range theirs {
		k := key(x)
		if seen[k] || inOurs[k] || inBase[k] {
			continue
		}
		seen[k] = true
		out = append(out, x)
	}
	return out
}

// DroppedFromMerge names each set element (a tag, alias or link) that a
// side of a merge has and the merged record lacks although neither side
// removed it: what a merge may not do. base is nil when the merge base
// lacks the record; a nil side lacks it too.
func DroppedFromMerge(base, ours, theirs, merged *Record) []string {
	var out []string
	for _, f := range Fields {
		if f.Merge != MergeSet {
			continue
		}
		set := func(r *Record) map[string]bool {
			m := map[string]bool{}
			if r != nil {
				for _, x := range f.List(r) {
					m[x] = true
				}
			}
			return m
		}
		b, o, t, m := set(base), set(ours), set(theirs), set(merged)
		reported := map[string]bool{}
		for _, side := range [][2]*Record{{ours, theirs}, {theirs, ours}} {
			if side[0] == nil {
				continue
			}
			other := t
			if side[0] == theirs {
				other = o
			}
			for _, x := range f.List(side[0]) {
				removedByOther := b[x] && !other[x]
				if !m[x] && !removedByOther && !reported[x] {
					reported[x] = true
					out = append(out, f.Name+" "+x)
				}
			}
		}
	}
	return out
}

// unionLog keeps the common prefix and then every entry either side
// appended, each once, ordered by time (ties: ours first). No entry is lost.
func unionLog(ours, theirs []MutationEntry) []MutationEntry {
	n := commonPrefix(ours, theirs)
	out := append([]MutationEntry(nil), ours[:n]...)
	type tagged struct {
		e    MutationEntry
		side int
		i    int
	}
	var rest []tagged
	for i, e := range ours[n:] {
		rest = append(rest, tagged{e, 0, i})
	}
	oursAfter := NewEntrySet(ours[n:])
	for i, e := range theirs[n:] {
		if !oursAfter.Has(e) {
			rest = append(rest, tagged{e, 1, i})
		}
	}
	sort.SliceStable(rest, func(i, j int) bool {
		if !rest[i].e.At.Equal(rest[j].e.At.Time) {
			return rest[i].e.At.Before(rest[j].e.At.Time)
		}
		if rest[i].side != rest[j].side {
			return rest[i].side < rest[j].side
		}
		return rest[i].i < rest[j].i
	})
	for _, t := range rest {
		out = append(out, t.e)
	}
	return out
}

func commonPrefix(a, b []MutationEntry) int {
	n := 0
	for n < len(a) && n < len(b) && reflect.DeepEqual(a[n], b[n]) {
		n++
	}
	return n
}

// LoggedConflict is a conflict as a merge entry of a record's mutation log
// keeps it: the losing value is there, so it can be restored.
type LoggedConflict struct {
	ID       string    `json:"id"`
	Field    string    `json:"field"`
	At       Timestamp `json:"at"`
	Agent    string    `json:"agent"`
	Kept     string    `json:"kept"`
	Lost     string    `json:"lost"`
	KeptFrom string    `json:"kept_from"`
	LostFrom string    `json:"lost_from"`
}

// LoggedConflicts reads the conflicts the merges of r resolved, in log order.
func LoggedConflicts(r *Record) []LoggedConflict {
	var out []LoggedConflict
	for _, e := range r.MutationLog {
		if e.Op != string(OpMerge) {
			continue
		}
		out = append(out, LoggedConflict{ID: r.ID, Field: evidenceString(e, "field"), At: e.At, Agent: e.Agent,
			Kept: evidenceString(e, "kept"), Lost: evidenceString(e, "lost"),
			KeptFrom: evidenceString(e, "kept_from"), LostFrom: evidenceString(e, "lost_from")})
	}
	return out
}

// mergeFix is what to do about any merge violation.
const mergeFix = "merge record branches with git records sync / merge (or git merge with the records merge driver)"

// CheckMergedRecord is the merge's postcondition for one record: result is
// what a merge commit holds for id, given the merge base and both sides
// (nil where absent), for a record the result differs from one side in.
// The result must keep what each side changed since the base (its log
// entries, its links, tags and aliases), keep a parent's immutable fields
// and the furthest status, invent no log entry but merge entries, and give
// every other field one side's value: the body one side's or the line
// merge (text) of both from the base. A merge writes nothing of its own;
// were it free to, anyone allowed to merge could rewrite any record a side
// changed, whatever op and category the policy allows them.
func CheckMergedRecord(id string, base, ours, theirs, result *Record, text TextMerger) []Violation {
	var vs violations
	if result == nil {
		vs.add(RuleNoDelete, id, mergeFix, "merge deletes record %s", id)
		return vs
	}
	var parents, changed []*Record
	for _, p := range []*Record{ours, theirs} {
		if p == nil {
			continue
		}
		parents = append(parents, p)
		if base == nil || !reflect.DeepEqual(p, base) {
			changed = append(changed, p)
		}
	}
	if len(parents) == 0 {
		vs.add(RuleOpMatches, id, mergeFix, "merge adds record %s that neither parent has", id)
		return vs
	}
	if len(changed) == 0 {
		vs.add(RuleOpMatches, id, mergeFix, "merge changes record %s, which neither side changed", id)
		return vs
	}
	// Immutable fields are a parent's: both parents agree on them unless
	// both created the record, when the merge keeps one creation.
	immutable := false
	for _, p := range parents {
		same := true
		for _, f := range Fields {
			if f.Immutable() && f.Changed(p, result) {
				same = false
			}
		}
		immutable = immutable || same
	}
	if !immutable {
		vs.add(RuleImmutable, id, mergeFix, "merge changes an immutable field of %s", id)
	}
	for _, p := range changed {
		switch {
		case !NewEntrySet(result.MutationLog).ContainsAll(p.MutationLog):
			vs.add(RuleMutationLog, id, mergeFix, "merge loses mutation-log entries of %s", id)
		}
	}
	// Tags, aliases and links merge three-way: an element may be missing
	// only when a side removed it.
	if dropped := DroppedFromMerge(base, ours, theirs, result); len(dropped) > 0 {
		vs.add(RuleOpMatches, id, mergeFix, "merge drops %s of %s, which neither side removed", strings.Join(dropped, ", "), id)
	}
	oneSides := func(get func(*Record) any) bool {
		for _, p := range parents {
			if reflect.DeepEqual(get(p), get(result)) {
				return true
			}
		}
		return false
	}
	for _, f := range Fields {
		switch f.Merge {
		case MergeScalar:
			if !oneSides(f.Get) {
				vs.add(RuleOpMatches, id, mergeFix, "merge gives the %s of %s a value neither side has", f.Name, id)
			}
		case MergeLines:
			if !oneSides(f.Get) && !lineMerged(text, base, ours, theirs, result, &f) {
				vs.add(RuleOpMatches, id, mergeFix, "merge gives the %s of %s a value neither side has", f.Name, id)
			}
		}
	}
	for _, p := range parents {
		if statusRank(result.EffectiveStatus()) < statusRank(p.EffectiveStatus()) {
			vs.add(RuleOpMatches, id, mergeFix, "merge moves %s back from %s to %s", id, p.EffectiveStatus(), result.EffectiveStatus())
		}
	}
	inParents := NewEntrySet(nil)
	for _, p := range parents {
		for _, e := range p.MutationLog {
			inParents.Add(e)
		}
	}
	for _, e := range result.MutationLog {
		if e.Op == string(OpMerge) {
			continue
		}
		if !inParents.Has(e) {
			vs.add(RuleMutationLog, id, mergeFix, "merge invents a %s entry in the log of %s", e.Op, id)
		}
	}
	return vs
}

// lineMerged reports whether result's text field is the line merge of both
// sides from the base, either way round.
func lineMerged(text TextMerger, base, ours, theirs, result *Record, f *Field) bool {
	if ours == nil || theirs == nil || text == nil {
		return false
	}
	b := ""
	if base != nil {
		b = f.Text(base)
	}
	for _, s := range [][2]*Record{{ours, theirs}, {theirs, ours}} {
		if merged, ok := text(b, f.Text(s[0]), f.Text(s[1])); ok && merged == f.Text(result) {
			return true
		}
	}
	return false
}
