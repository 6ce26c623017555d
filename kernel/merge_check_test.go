package kernel_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/kernel"
)

// mergeChecked runs the merge postcondition on a merge's result, as verify
// does: only for a result that differs from a side.
func mergeChecked(base, ours, theirs, result *kernel.Record, text kernel.TextMerger) []kernel.Violation {
	if reflect.DeepEqual(result, ours) && reflect.DeepEqual(result, theirs) {
		return nil
	}
	return kernel.CheckMergedRecord(mgID, base, ours, theirs, result, text)
}

// TestEveryMergePassesTheMergeCheck is the property verify relies on:
// whatever kernel.MergeRecord decides passes CheckMergedRecord, for the
// table's rows and for many generated pairs of sides.
func TestEveryMergePassesTheMergeCheck(t *testing.T) {
	for _, row := range mgRows() {
		oc, tc := row.oursC, row.theirsC
		if oc == "" {
			oc, tc = mgOursCommit, mgTheirCommit
		}
		info := mgInfo()
		if row.noText {
			info.Text = nil
		}
		res := kernel.MergeRecord(row.base, kernel.Side{Record: row.ours, Commit: oc}, kernel.Side{Record: row.theirs, Commit: tc}, info)
		if res.Case == kernel.CaseDeletedOne {
			continue // the deletion is the violation, judged on its own commit
		}
		assert.Empty(t, mergeChecked(row.base, row.ours, row.theirs, res.Record, info.Text), row.name)
	}

	_, donor := twoRecords()
	for seed := int64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		base := mgBase()
		side := func(n int) *kernel.Record {
			r := base.Clone()
			for _, f := range kernel.Fields {
				if f.Immutable() || f.Bookkeeping || rng.Intn(3) != 0 {
					continue
				}
				switch f.Merge {
				case kernel.MergeSet:
					f.Set(r, donor) // replaced, as update does
				case kernel.MergeLines:
					r.Body = fmt.Sprintf("one\ntwo %d\nthree\nfour\nfive %d\n", n, rng.Intn(3))
				case kernel.MergeFurthest:
					r.Status = []kernel.Status{kernel.StatusImplemented, kernel.StatusRetired}[rng.Intn(2)]
				default:
					d := donor.Clone()
					d.Title, d.Category = fmt.Sprintf("title %d", n), fmt.Sprintf("eng.c%d", n)
					f.Set(r, d)
				}
			}
			if !reflect.DeepEqual(r, base) {
				at := mgAt(10 + rng.Intn(5))
				r.MutationLog = append(r.MutationLog, kernel.MutationEntry{Op: "update", At: at, Agent: fmt.Sprint("side", n)})
				r.UpdatedAt = at
			}
			return r
		}
		ours, theirs := side(1), side(2)
		res := kernel.MergeRecord(base, kernel.Side{Record: ours, Commit: mgOursCommit}, kernel.Side{Record: theirs, Commit: mgTheirCommit}, mgInfo())
		assert.Empty(t, mergeChecked(base, ours, theirs, res.Record, mgLineMerge), "seed %d (%s)", seed, res.Case)
	}
}

// TestMergeCheckRefuses: a merge result that takes a value neither side
// has, drops a side's change, or invents history.
func TestMergeCheckRefuses(t *testing.T) {
	base := mgBase()
	ours := base.Clone()
	ours.Title = "Ours"
	ours.MutationLog = append(ours.MutationLog, kernel.MutationEntry{Op: "update", At: mgAt(5), Agent: "o"})
	theirs := base.Clone()
	theirs.Tags = []string{"base", "t"}
	theirs.MutationLog = append(theirs.MutationLog, kernel.MutationEntry{Op: "update", At: mgAt(6), Agent: "t"})
	good := kernel.MergeRecord(base, kernel.Side{Record: ours, Commit: mgOursCommit}, kernel.Side{Record: theirs, Commit: mgTheirCommit}, mgInfo()).Record
	for _, c := range []struct {
		name   string
		change func(*kernel.Record)
		want   string
	}{
		{"authority neither side has", func(r *kernel.Record) { r.Authority = kernel.AuthorityExternal },
			"op-matches: merge gives the authority of " + mgID + " a value neither side has"},
		{"a body neither side has", func(r *kernel.Record) { r.Body = "forged" },
			"op-matches: merge gives the body of " + mgID + " a value neither side has"},
		{"a dropped tag", func(r *kernel.Record) { r.Tags = []string{"base"} },
			"op-matches: merge drops tags t of " + mgID + ", which neither side removed"},
		{"an invented entry", func(r *kernel.Record) {
			r.MutationLog = append(r.MutationLog, kernel.MutationEntry{Op: "apply", At: mgAt(7), Agent: "x"})
		}, "mutation-log: merge invents a apply entry in the log of " + mgID},
		{"a status moved back", func(r *kernel.Record) { r.Status = "" }, ""},
		{"a new created_at", func(r *kernel.Record) { r.CreatedAt = mgAt(99) },
			"immutable: merge changes an immutable field of " + mgID},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := good.Clone()
			c.change(r)
			var got []string
			for _, v := range kernel.CheckMergedRecord(mgID, base, ours, theirs, r, mgLineMerge) {
				got = append(got, v.Rule+": "+v.Message)
			}
			if c.want == "" {
				assert.Empty(t, got, "absent status is active")
				return
			}
			assert.Contains(t, got, c.want)
		})
	}
	assert.Empty(t, kernel.CheckMergedRecord(mgID, base, ours, theirs, good, mgLineMerge))
}
