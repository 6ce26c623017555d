package kernel_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// The merge tests build the three versions of one record by hand: a base,
// and each side as the base plus edits at known times, so that the winner
// rule (later mutation, ties by commit id) is decided by the row, not by a
// clock.

var mgT0 = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)

// mgAt is mgT0 plus sec seconds, as a record timestamp.
func mgAt(sec int) kernel.Timestamp { return kernel.At(mgT0.Add(time.Duration(sec) * time.Second)) }

const (
	mgID          = "rec00001"
	mgOursCommit  = "1111111111111111111111111111111111111111"
	mgTheirCommit = "2222222222222222222222222222222222222222" // larger: wins ties
	mgMergeAgent  = "merger"
)

var mgMergeAt = mgT0.Add(time.Hour)

func mgInfo() kernel.MergeInfo {
	return kernel.MergeInfo{At: mgMergeAt, Agent: mgMergeAgent, Text: mgLineMerge}
}

// mgBase is the record both sides start from.
func mgBase() *kernel.Record {
	return &kernel.Record{
		ID: mgID, Type: "concept", Title: "Base title", Category: "eng",
		Status: kernel.StatusActive, Kind: kernel.KindEntity, Role: kernel.RoleClaim, Authority: kernel.AuthorityLocal,
		Tags: []string{"base"}, CreatedAt: mgAt(0), UpdatedAt: mgAt(0),
		Provenance:  kernel.Provenance{Agent: "creator"},
		Links:       []kernel.Link{{TargetID: "tgt00001", Kind: kernel.LinkRelated}},
		MutationLog: []kernel.MutationEntry{{Op: string(kernel.OpCreate), At: mgAt(0), Agent: "creator"}},
		Body:        "one\ntwo\nthree\nfour\nfive\n",
	}
}

// mgEdit is r changed by f at second sec, with the update entry an op
// would append.
func mgEdit(r *kernel.Record, sec int, agent string, f func(*kernel.Record)) *kernel.Record {
	c := r.Clone()
	f(c)
	c.UpdatedAt = mgAt(sec)
	c.MutationLog = append(c.MutationLog, kernel.MutationEntry{Op: string(kernel.OpUpdate), At: mgAt(sec), Agent: agent})
	return c
}

// mgLineMerge is a stand-in for gitstore.MergeText (the kernel stays free
// of git): texts of equal line count merge line by line, and a line both
// sides changed differently is an overlap.
func mgLineMerge(base, ours, theirs string) (string, bool) {
	b, o, t := strings.SplitAfter(base, "\n"), strings.SplitAfter(ours, "\n"), strings.SplitAfter(theirs, "\n")
	if len(b) != len(o) || len(b) != len(t) {
		return "", false
	}
	out := make([]string, len(b))
	for i := range b {
		switch {
		case o[i] == t[i], t[i] == b[i]:
			out[i] = o[i]
		case o[i] == b[i]:
			out[i] = t[i]
		default:
			return "", false
		}
	}
	return strings.Join(out, ""), true
}

// mgMergeEntries are the merge entries a merge appended to a log.
func mgMergeEntries(r *kernel.Record) []kernel.MutationEntry {
	var out []kernel.MutationEntry
	for _, e := range r.MutationLog {
		if e.Op == string(kernel.OpMerge) {
			out = append(out, e)
		}
	}
	return out
}

// mgRequireConflict checks the one conflict on field and the merge entry
// that keeps the losing value.
func mgRequireConflict(t *testing.T, res kernel.MergeResult, field, kept, lost, keptFrom, lostFrom string) {
	t.Helper()
	var c *kernel.Conflict
	for i := range res.Conflicts {
		if res.Conflicts[i].Field == field {
			c = &res.Conflicts[i]
		}
	}
	require.NotNil(t, c, "a conflict on %s in %+v", field, res.Conflicts)
	assert.Equal(t, mgID, c.ID)
	assert.Equal(t, keptFrom, c.Kept)
	assert.Equal(t, lostFrom, c.Lost)
	assert.Equal(t, kept, c.KeptText)
	assert.Equal(t, lost, c.LostText)
	var entry *kernel.MutationEntry
	for _, e := range mgMergeEntries(res.Record) {
		if e.Evidence["field"] == field {
			e := e
			entry = &e
		}
	}
	require.NotNil(t, entry, "a merge entry for %s in the log", field)
	assert.Equal(t, kernel.At(mgMergeAt), entry.At)
	assert.Equal(t, mgMergeAgent, entry.Agent)
	assert.Contains(t, entry.Note, field)
	assert.Equal(t, map[string]any{"field": field, "kept": kept, "lost": lost, "kept_from": keptFrom, "lost_from": lostFrom}, entry.Evidence,
		"both values and both commits are in the log")
}

type mgRow struct {
	name               string
	base, ours, theirs *kernel.Record
	oursC, theirsC     string // default mgOursCommit, mgTheirCommit
	noText             bool   // merge without a TextMerger
	want               kernel.MergeCase
	check              func(t *testing.T, res kernel.MergeResult)
}

func mgRows() []mgRow {
	base := mgBase()
	retitle := func(title string) func(*kernel.Record) { return func(r *kernel.Record) { r.Title = title } }
	recategorize := func(c string) func(*kernel.Record) { return func(r *kernel.Record) { r.Category = c } }
	noConflicts := func(t *testing.T, res kernel.MergeResult) {
		t.Helper()
		assert.Empty(t, res.Conflicts)
		assert.Empty(t, mgMergeEntries(res.Record))
	}
	rows := []mgRow{
		// Every MergeCase.
		{name: "unchanged", base: base, ours: mgBase(), theirs: mgBase(), want: kernel.CaseUnchanged,
			check: func(t *testing.T, res kernel.MergeResult) { assert.Equal(t, mgBase(), res.Record); noConflicts(t, res) }},
		{name: "unchanged: both made the same edit", base: base,
			ours: mgEdit(base, 5, "a", retitle("Same")), theirs: mgEdit(base, 5, "a", retitle("Same")), want: kernel.CaseUnchanged,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "Same", res.Record.Title)
				assert.Len(t, res.Record.MutationLog, 2, "the shared entry once")
				noConflicts(t, res)
			}},
		{name: "added-ours", ours: mgBase(), want: kernel.CaseAddedOurs,
			check: func(t *testing.T, res kernel.MergeResult) { assert.Equal(t, mgBase(), res.Record) }},
		{name: "added-theirs", theirs: mgBase(), want: kernel.CaseAddedTheirs,
			check: func(t *testing.T, res kernel.MergeResult) { assert.Equal(t, mgBase(), res.Record) }},
		{name: "added-both: same id merges field by field", want: kernel.CaseAddedBoth,
			ours: func() *kernel.Record {
				r := mgBase()
				r.Title, r.Tags, r.Body = "Ours", []string{"o"}, "ours body\n"
				return r
			}(),
			theirs: func() *kernel.Record {
				r := mgBase()
				r.Title, r.Tags, r.Body, r.Category = "Theirs", []string{"t"}, "theirs body\n", "eng.other"
				r.CreatedAt, r.UpdatedAt = mgAt(3), mgAt(3)
				r.Provenance = kernel.Provenance{Agent: "other", Note: "imported"}
				r.MutationLog = []kernel.MutationEntry{{Op: string(kernel.OpCreate), At: mgAt(3), Agent: "other"}}
				return r
			}(),
			check: func(t *testing.T, res kernel.MergeResult) {
				r := res.Record
				assert.Equal(t, "Theirs", r.Title, "theirs was created later: it wins")
				assert.Equal(t, "theirs body\n", r.Body)
				assert.Equal(t, "eng.other", r.Category)
				assert.Equal(t, []string{"o", "t"}, r.Tags)
				mgRequireConflict(t, res, "title", "Theirs", "Ours", mgTheirCommit, mgOursCommit)
				mgRequireConflict(t, res, "body", "theirs body\n", "ours body\n", mgTheirCommit, mgOursCommit)
				// The immutable fields follow the winner too, and the other
				// creation's are logged: neither creation is lost.
				assert.Equal(t, mgAt(3), r.CreatedAt)
				assert.Equal(t, kernel.Provenance{Agent: "other", Note: "imported"}, r.Provenance)
				mgRequireConflict(t, res, "created_at", mgAt(3).String(), mgAt(0).String(), mgTheirCommit, mgOursCommit)
				mgRequireConflict(t, res, "provenance", fmt.Sprint(kernel.Provenance{Agent: "other", Note: "imported"}),
					fmt.Sprint(kernel.Provenance{Agent: "creator"}), mgTheirCommit, mgOursCommit)
				creates := 0
				for _, e := range r.MutationLog {
					if e.Op == string(kernel.OpCreate) {
						creates++
					}
				}
				assert.Equal(t, 2, creates, "both creations stay in the log")
			}},
		{name: "changed-ours", base: base, ours: mgEdit(base, 5, "a", retitle("Ours")), theirs: mgBase(), want: kernel.CaseChangedOurs,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, mgEdit(base, 5, "a", retitle("Ours")), res.Record)
				noConflicts(t, res)
			}},
		{name: "changed-theirs", base: base, ours: mgBase(), theirs: mgEdit(base, 5, "b", retitle("Theirs")), want: kernel.CaseChangedTheirs,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, mgEdit(base, 5, "b", retitle("Theirs")), res.Record)
				noConflicts(t, res)
			}},
		{name: "changed-both: different fields both apply", base: base,
			ours: mgEdit(base, 5, "a", retitle("Ours")), theirs: mgEdit(base, 7, "b", recategorize("eng.theirs")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "Ours", res.Record.Title)
				assert.Equal(t, "eng.theirs", res.Record.Category)
				assert.Equal(t, mgAt(7), res.Record.UpdatedAt, "updated_at is the later side's")
				assert.Equal(t, []string{"create", "update", "update"}, mgOps(res.Record))
				noConflicts(t, res)
			}},
		{name: "deleted-one: ours lacks it, theirs changed it", base: base, theirs: mgEdit(base, 5, "b", retitle("Theirs")), want: kernel.CaseDeletedOne,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "Theirs", res.Record.Title, "the record is kept")
			}},
		{name: "deleted-one: theirs lacks it", base: base, ours: mgBase(), want: kernel.CaseDeletedOne,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, mgBase(), res.Record, "the record is kept")
			}},
		{name: "deleted-one: both lack it", base: base, want: kernel.CaseDeletedOne,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, mgBase(), res.Record, "the base comes back")
			}},

		// The winner rule.
		{name: "same field: the later mutation wins (theirs)", base: base,
			ours: mgEdit(base, 5, "a", retitle("Ours")), theirs: mgEdit(base, 9, "b", retitle("Theirs")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "Theirs", res.Record.Title)
				require.Len(t, res.Conflicts, 1)
				mgRequireConflict(t, res, "title", "Theirs", "Ours", mgTheirCommit, mgOursCommit)
				assert.Equal(t, kernel.At(mgMergeAt), res.Record.UpdatedAt, "a merge that resolved a conflict is the last mutation")
			}},
		{name: "same field: the later mutation wins (ours)", base: base,
			ours: mgEdit(base, 9, "a", retitle("Ours")), theirs: mgEdit(base, 5, "b", retitle("Theirs")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "Ours", res.Record.Title)
				mgRequireConflict(t, res, "title", "Ours", "Theirs", mgOursCommit, mgTheirCommit)
			}},
		{name: "same field: the later of updated_at and the log decides", base: base,
			ours: func() *kernel.Record {
				r := mgEdit(base, 5, "a", retitle("Ours"))
				r.MutationLog = append(r.MutationLog, kernel.MutationEntry{Op: string(kernel.OpLink), At: mgAt(11), Agent: "a"})
				return r
			}(),
			theirs: mgEdit(base, 9, "b", retitle("Theirs")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) { assert.Equal(t, "Ours", res.Record.Title) }},
		{name: "same field, same time: the larger commit id wins (theirs)", base: base,
			ours: mgEdit(base, 5, "a", retitle("Ours")), theirs: mgEdit(base, 5, "b", retitle("Theirs")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "Theirs", res.Record.Title)
				mgRequireConflict(t, res, "title", "Theirs", "Ours", mgTheirCommit, mgOursCommit)
			}},
		{name: "same field, same time: the larger commit id wins (ours)", base: base,
			oursC: mgTheirCommit, theirsC: mgOursCommit,
			ours: mgEdit(base, 5, "a", retitle("Ours")), theirs: mgEdit(base, 5, "b", retitle("Theirs")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "Ours", res.Record.Title)
				mgRequireConflict(t, res, "title", "Ours", "Theirs", mgTheirCommit, mgOursCommit)
			}},
		{name: "same field, same value: no conflict", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Title, r.Category = "Same", "eng.a" }),
			theirs: mgEdit(base, 9, "b", retitle("Same")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "Same", res.Record.Title)
				assert.Equal(t, "eng.a", res.Record.Category)
				noConflicts(t, res)
			}},

		// Unions, without duplicates, ours first then what only theirs has.
		{name: "tags and aliases: union in a stable order", base: base,
			ours: mgEdit(base, 5, "a", func(r *kernel.Record) {
				r.Tags = []string{"base", "o1", "both"}
				r.Aliases = []string{"eng/ours", "eng/shared"}
			}),
			theirs: mgEdit(base, 7, "b", func(r *kernel.Record) {
				r.Tags = []string{"t1", "both", "base"}
				r.Aliases = []string{"eng/shared", "eng/theirs"}
			}), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, []string{"base", "o1", "both", "t1"}, res.Record.Tags)
				assert.Equal(t, []string{"eng/ours", "eng/shared", "eng/theirs"}, res.Record.Aliases)
				noConflicts(t, res)
			}},
		// Three-way: what one side removed and the other left alone stays
		// removed; what one side added is kept.
		{name: "tags: a tag removed on one side stays removed", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Tags = nil }),
			theirs: mgEdit(base, 7, "b", func(r *kernel.Record) { r.Title = "Retitled" }), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Empty(t, res.Record.Tags, "the removed tag does not come back")
				assert.Equal(t, "Retitled", res.Record.Title)
				noConflicts(t, res)
			}},
		{name: "tags: one side removes, the other adds", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Tags = []string{"base", "new"} }),
			theirs: mgEdit(base, 7, "b", func(r *kernel.Record) { r.Tags = []string{"other"} }), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, []string{"new", "other"}, res.Record.Tags)
				noConflicts(t, res)
			}},
		{name: "links: a link removed on one side stays removed", base: base,
			ours: mgEdit(base, 5, "a", func(r *kernel.Record) { r.Title = "Retitled" }),
			theirs: mgEdit(base, 7, "b", func(r *kernel.Record) {
				r.Links = []kernel.Link{{TargetID: "tgt00009", Kind: kernel.LinkSource}}
			}), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, []kernel.Link{{TargetID: "tgt00009", Kind: kernel.LinkSource}}, res.Record.Links)
				noConflicts(t, res)
			}},
		{name: "links: union by target and kind", base: base,
			ours: mgEdit(base, 5, "a", func(r *kernel.Record) {
				r.Links = append(r.Links, kernel.Link{TargetID: "tgt00002", Kind: kernel.LinkSource, Label: "ours"})
			}),
			theirs: mgEdit(base, 7, "b", func(r *kernel.Record) {
				r.Links = append(r.Links,
					kernel.Link{TargetID: "tgt00003", Kind: kernel.LinkRelated},
					kernel.Link{TargetID: "tgt00002", Kind: kernel.LinkSource, Label: "theirs"},
					kernel.Link{TargetID: "tgt00002", Kind: kernel.LinkRelated})
			}), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, []kernel.Link{
					{TargetID: "tgt00001", Kind: kernel.LinkRelated},
					{TargetID: "tgt00002", Kind: kernel.LinkSource, Label: "ours"},
					{TargetID: "tgt00003", Kind: kernel.LinkRelated},
					{TargetID: "tgt00002", Kind: kernel.LinkRelated},
				}, res.Record.Links)
			}},
		{name: "mutation log: common prefix, then both sides by time, each entry once", base: base,
			ours: func() *kernel.Record {
				r := mgEdit(base, 3, "a", retitle("Ours"))
				r = mgEdit(r, 7, "a", recategorize("eng.a"))
				r.MutationLog = append(r.MutationLog, kernel.MutationEntry{Op: string(kernel.OpLink), At: mgAt(9), Agent: "same"})
				return r
			}(),
			theirs: func() *kernel.Record {
				r := mgEdit(base, 5, "b", func(r *kernel.Record) { r.Body = "one\ntwo\nthree\nfour\nFIVE\n" })
				r.MutationLog = append(r.MutationLog,
					kernel.MutationEntry{Op: string(kernel.OpLink), At: mgAt(7), Agent: "b"},
					kernel.MutationEntry{Op: string(kernel.OpLink), At: mgAt(9), Agent: "same"})
				return r
			}(), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				var got []string
				for _, e := range res.Record.MutationLog {
					got = append(got, fmt.Sprintf("%s@%s by %s", e.Op, e.At.Format("05"), e.Agent))
				}
				assert.Equal(t, []string{"create@00 by creator", "update@03 by a", "update@05 by b",
					"update@07 by a", "link@07 by b", "link@09 by same"}, got,
					"by time; at the same time ours first; an entry both sides have once")
				noConflicts(t, res)
			}},

		// Status by lifecycle: the furthest wins.
		{name: "status: theirs retired, ours edited", base: base,
			ours: mgEdit(base, 9, "a", retitle("Ours")), theirs: mgEdit(base, 5, "b", func(r *kernel.Record) { r.Status = kernel.StatusRetired }),
			want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, kernel.StatusRetired, res.Record.Status)
				assert.Equal(t, "Ours", res.Record.Title)
				noConflicts(t, res)
			}},
		{name: "status: retired wins over implemented", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Status = kernel.StatusRetired }),
			theirs: mgEdit(base, 9, "b", func(r *kernel.Record) { r.Status = kernel.StatusImplemented }), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) { assert.Equal(t, kernel.StatusRetired, res.Record.Status) }},
		{name: "status: implemented wins over active", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Status = kernel.StatusImplemented }),
			theirs: mgEdit(base, 9, "b", retitle("Theirs")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, kernel.StatusImplemented, res.Record.Status)
				assert.Equal(t, "Theirs", res.Record.Title)
			}},
		{name: "status: an absent status is active", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Status = "" }),
			theirs: mgEdit(base, 9, "b", func(r *kernel.Record) { r.Status = kernel.StatusImplemented }), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, kernel.StatusImplemented, res.Record.Status)
			}},

		// Body: line-wise when the edits do not overlap, else the winner rule.
		{name: "body: one side changed it", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Body = "ONE\n" }),
			theirs: mgEdit(base, 9, "b", retitle("Theirs")), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "ONE\n", res.Record.Body)
				noConflicts(t, res)
			}},
		{name: "body: edits on different lines merge", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Body = "ONE\ntwo\nthree\nfour\nfive\n" }),
			theirs: mgEdit(base, 9, "b", func(r *kernel.Record) { r.Body = "one\ntwo\nthree\nfour\nFIVE\n" }), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "ONE\ntwo\nthree\nfour\nFIVE\n", res.Record.Body)
				noConflicts(t, res)
			}},
		{name: "body: overlapping edits go to the winner, the other body is logged", base: base,
			ours:   mgEdit(base, 5, "a", func(r *kernel.Record) { r.Body = "one\nTWO (ours)\nthree\nfour\nfive\n" }),
			theirs: mgEdit(base, 9, "b", func(r *kernel.Record) { r.Body = "one\nTWO (theirs)\nthree\nfour\nfive\n" }), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "one\nTWO (theirs)\nthree\nfour\nfive\n", res.Record.Body)
				mgRequireConflict(t, res, "body", "one\nTWO (theirs)\nthree\nfour\nfive\n", "one\nTWO (ours)\nthree\nfour\nfive\n", mgTheirCommit, mgOursCommit)
			}},
		{name: "body: without a text merger both edits are a conflict", base: base, noText: true,
			ours:   mgEdit(base, 9, "a", func(r *kernel.Record) { r.Body = "ONE\ntwo\nthree\nfour\nfive\n" }),
			theirs: mgEdit(base, 5, "b", func(r *kernel.Record) { r.Body = "one\ntwo\nthree\nfour\nFIVE\n" }), want: kernel.CaseChangedBoth,
			check: func(t *testing.T, res kernel.MergeResult) {
				assert.Equal(t, "ONE\ntwo\nthree\nfour\nfive\n", res.Record.Body)
				mgRequireConflict(t, res, "body", "ONE\ntwo\nthree\nfour\nfive\n", "one\ntwo\nthree\nfour\nFIVE\n", mgOursCommit, mgTheirCommit)
			}},
	}
	return append(rows, mgFieldRows()...)
}

func mgOps(r *kernel.Record) []string {
	var out []string
	for _, e := range r.MutationLog {
		out = append(out, e.Op)
	}
	return out
}

// mgField is one scalar field and two values for it other than the base's.
type mgField struct {
	name           string
	ours, theirs   func(*kernel.Record)
	get            func(*kernel.Record) any
	keptT, lostT   string // the conflict texts when theirs wins
	oursV, theirsV any
}

func mgFields() []mgField {
	ts := func(sec int) *kernel.Timestamp { t := mgAt(sec); return &t }
	f64 := func(v float64) *float64 { return &v }
	return []mgField{
		{name: "title", ours: func(r *kernel.Record) { r.Title = "O" }, theirs: func(r *kernel.Record) { r.Title = "T" },
			get: func(r *kernel.Record) any { return r.Title }, oursV: "O", theirsV: "T", keptT: "T", lostT: "O"},
		{name: "category", ours: func(r *kernel.Record) { r.Category = "eng.o" }, theirs: func(r *kernel.Record) { r.Category = "eng.t" },
			get: func(r *kernel.Record) any { return r.Category }, oursV: "eng.o", theirsV: "eng.t", keptT: "eng.t", lostT: "eng.o"},
		{name: "expires_at", ours: func(r *kernel.Record) { r.ExpiresAt = ts(100) }, theirs: func(r *kernel.Record) { r.ExpiresAt = ts(200) },
			get: func(r *kernel.Record) any { return r.ExpiresAt }, oursV: ts(100), theirsV: ts(200),
			keptT: ts(200).String(), lostT: ts(100).String()},
		{name: "ttl_seconds", ours: func(r *kernel.Record) { r.TTLSeconds = f64(60) }, theirs: func(r *kernel.Record) { r.TTLSeconds = f64(90) },
			get: func(r *kernel.Record) any { return r.TTLSeconds }, oursV: f64(60), theirsV: f64(90), keptT: "90", lostT: "60"},
		{name: "scope", ours: func(r *kernel.Record) { r.Scope = &kernel.Scope{Paths: []string{"a.go"}} },
			theirs: func(r *kernel.Record) { r.Scope = &kernel.Scope{Paths: []string{"b.go"}} },
			get:    func(r *kernel.Record) any { return r.Scope }, oursV: &kernel.Scope{Paths: []string{"a.go"}}, theirsV: &kernel.Scope{Paths: []string{"b.go"}},
			keptT: fmt.Sprint(kernel.Scope{Paths: []string{"b.go"}}), lostT: fmt.Sprint(kernel.Scope{Paths: []string{"a.go"}})},
		{name: "freshness", ours: func(r *kernel.Record) {
			r.Freshness = &kernel.FreshnessMark{State: kernel.FreshnessCurrent, CheckedAt: mgAt(4)}
		},
			theirs: func(r *kernel.Record) {
				r.Freshness = &kernel.FreshnessMark{State: kernel.FreshnessStale, CheckedAt: mgAt(6)}
			},
			get:   func(r *kernel.Record) any { return r.Freshness },
			oursV: &kernel.FreshnessMark{State: kernel.FreshnessCurrent, CheckedAt: mgAt(4)}, theirsV: &kernel.FreshnessMark{State: kernel.FreshnessStale, CheckedAt: mgAt(6)},
			keptT: fmt.Sprint(kernel.FreshnessMark{State: kernel.FreshnessStale, CheckedAt: mgAt(6)}),
			lostT: fmt.Sprint(kernel.FreshnessMark{State: kernel.FreshnessCurrent, CheckedAt: mgAt(4)})},
		{name: "source", ours: func(r *kernel.Record) { r.Source = &kernel.Source{ExternalID: "o"} },
			theirs: func(r *kernel.Record) { r.Source = &kernel.Source{ExternalID: "t"} },
			get:    func(r *kernel.Record) any { return r.Source }, oursV: &kernel.Source{ExternalID: "o"}, theirsV: &kernel.Source{ExternalID: "t"},
			keptT: fmt.Sprint(kernel.Source{ExternalID: "t"}), lostT: fmt.Sprint(kernel.Source{ExternalID: "o"})},
		{name: "observed_at", ours: func(r *kernel.Record) { r.ObservedAt = ts(10) }, theirs: func(r *kernel.Record) { r.ObservedAt = ts(20) },
			get: func(r *kernel.Record) any { return r.ObservedAt }, oursV: ts(10), theirsV: ts(20), keptT: ts(20).String(), lostT: ts(10).String()},
		{name: "kind", ours: func(r *kernel.Record) { r.Kind = kernel.KindEvent }, theirs: func(r *kernel.Record) { r.Kind = kernel.KindSnapshot },
			get: func(r *kernel.Record) any { return r.Kind }, oursV: kernel.KindEvent, theirsV: kernel.KindSnapshot, keptT: "snapshot", lostT: "event"},
		{name: "role", ours: func(r *kernel.Record) { r.Role = kernel.RoleFact }, theirs: func(r *kernel.Record) { r.Role = kernel.RoleDecision },
			get: func(r *kernel.Record) any { return r.Role }, oursV: kernel.RoleFact, theirsV: kernel.RoleDecision, keptT: "decision", lostT: "fact"},
		{name: "authority", ours: func(r *kernel.Record) { r.Authority = kernel.AuthorityExternal },
			theirs: func(r *kernel.Record) { r.Authority = kernel.AuthorityComputed },
			get:    func(r *kernel.Record) any { return r.Authority }, oursV: kernel.AuthorityExternal, theirsV: kernel.AuthorityComputed,
			keptT: "computed", lostT: "external"},
		{name: "relation", ours: func(r *kernel.Record) { r.From, r.To, r.Relation = "a0000001", "b0000001", "depends_on" },
			theirs: func(r *kernel.Record) { r.From, r.To, r.Relation = "a0000001", "b0000002", "depends_on" },
			get:    func(r *kernel.Record) any { return [3]string{r.From, r.To, r.Relation} },
			oursV:  [3]string{"a0000001", "b0000001", "depends_on"}, theirsV: [3]string{"a0000001", "b0000002", "depends_on"},
			keptT: "[a0000001 b0000002 depends_on ]", lostT: "[a0000001 b0000001 depends_on ]"},
	}
}

// mgFieldRows are three rows per scalar field: changed on ours only,
// changed on theirs only (the other side changing another field, so the
// record is changed on both), and changed on both to different values.
func mgFieldRows() []mgRow {
	base := mgBase()
	otherLine := func(r *kernel.Record) { r.Body = "one\ntwo\nthree\nfour\nother side\n" }
	var rows []mgRow
	for _, f := range mgFields() {
		f := f
		rows = append(rows,
			mgRow{name: "field " + f.name + ": changed on ours only", base: base,
				ours: mgEdit(base, 5, "a", f.ours), theirs: mgEdit(base, 9, "b", otherLine), want: kernel.CaseChangedBoth,
				check: func(t *testing.T, res kernel.MergeResult) {
					assert.Equal(t, f.oursV, f.get(res.Record), "a one-sided change is taken even from the earlier side")
					assert.Equal(t, "one\ntwo\nthree\nfour\nother side\n", res.Record.Body)
					assert.Empty(t, res.Conflicts)
				}},
			mgRow{name: "field " + f.name + ": changed on theirs only", base: base,
				ours: mgEdit(base, 9, "a", otherLine), theirs: mgEdit(base, 5, "b", f.theirs), want: kernel.CaseChangedBoth,
				check: func(t *testing.T, res kernel.MergeResult) {
					assert.Equal(t, f.theirsV, f.get(res.Record))
					assert.Empty(t, res.Conflicts)
				}},
			mgRow{name: "field " + f.name + ": changed on both, the later wins", base: base,
				ours: mgEdit(base, 5, "a", f.ours), theirs: mgEdit(base, 9, "b", f.theirs), want: kernel.CaseChangedBoth,
				check: func(t *testing.T, res kernel.MergeResult) {
					assert.Equal(t, f.theirsV, f.get(res.Record))
					require.Len(t, res.Conflicts, 1)
					mgRequireConflict(t, res, f.name, f.keptT, f.lostT, mgTheirCommit, mgOursCommit)
				}},
		)
	}
	return rows
}

func TestMergeRecord(t *testing.T) {
	for _, row := range mgRows() {
		t.Run(row.name, func(t *testing.T) {
			oc, tc := row.oursC, row.theirsC
			if oc == "" {
				oc, tc = mgOursCommit, mgTheirCommit
			}
			info := mgInfo()
			if row.noText {
				info.Text = nil
			}
			snapshot := func() []*kernel.Record {
				var out []*kernel.Record
				for _, r := range []*kernel.Record{row.base, row.ours, row.theirs} {
					if r != nil {
						r = r.Clone()
					}
					out = append(out, r)
				}
				return out
			}
			before := snapshot()
			res := kernel.MergeRecord(row.base, kernel.Side{Record: row.ours, Commit: oc}, kernel.Side{Record: row.theirs, Commit: tc}, info)
			assert.Equal(t, row.want, res.Case)
			require.NotNil(t, res.Record)
			row.check(t, res)
			assert.Equal(t, before, snapshot(), "the inputs are not modified")

			again := kernel.MergeRecord(row.base, kernel.Side{Record: row.ours, Commit: oc}, kernel.Side{Record: row.theirs, Commit: tc}, info)
			assert.Equal(t, res, again, "the merge is deterministic")

			// The winner does not depend on which side merges: swapped,
			// every conflicting field keeps the same value.
			swapped := kernel.MergeRecord(row.base, kernel.Side{Record: row.theirs, Commit: tc}, kernel.Side{Record: row.ours, Commit: oc}, info)
			require.Len(t, swapped.Conflicts, len(res.Conflicts))
			for i, c := range res.Conflicts {
				s := swapped.Conflicts[i]
				assert.Equal(t, [4]string{c.Field, c.Kept, c.Lost, c.KeptText}, [4]string{s.Field, s.Kept, s.Lost, s.KeptText})
			}
			if res.Case == kernel.CaseChangedBoth || res.Case == kernel.CaseAddedBoth {
				assert.Equal(t, res.Record.Title, swapped.Record.Title)
				assert.Equal(t, res.Record.Body, swapped.Record.Body)
				assert.Equal(t, res.Record.Status, swapped.Record.Status)
				assert.ElementsMatch(t, res.Record.Tags, swapped.Record.Tags)
				assert.ElementsMatch(t, res.Record.MutationLog, swapped.Record.MutationLog)
			}
			if res.Case != kernel.CaseDeletedOne {
				// Nothing is lost: every entry of both sides is in the log.
				for _, side := range []*kernel.Record{row.ours, row.theirs} {
					if side == nil {
						continue
					}
					for _, e := range side.MutationLog {
						assert.Contains(t, res.Record.MutationLog, e)
					}
				}
			}
		})
	}
}

// TestMergeCasesAllTested keeps the table honest: every case the state
// machine names has a row.
func TestMergeCasesAllTested(t *testing.T) {
	seen := map[kernel.MergeCase]bool{}
	for _, row := range mgRows() {
		seen[row.want] = true
	}
	for _, c := range []kernel.MergeCase{kernel.CaseUnchanged, kernel.CaseAddedOurs, kernel.CaseAddedTheirs, kernel.CaseAddedBoth,
		kernel.CaseChangedOurs, kernel.CaseChangedTheirs, kernel.CaseChangedBoth, kernel.CaseDeletedOne} {
		assert.True(t, seen[c], "no row for %s", c)
	}
	fields := map[string]bool{}
	for _, f := range mgFields() {
		fields[f.name] = true
	}
	for _, name := range []string{"title", "category", "expires_at", "ttl_seconds", "scope", "freshness", "source", "observed_at", "kind", "role", "authority", "relation"} {
		assert.True(t, fields[name], "no rows for field %s", name)
	}
}

// TestMergedRecordValidates: what the merge writes is a valid record.
func TestMergedRecordValidates(t *testing.T) {
	for _, row := range mgRows() {
		if strings.HasPrefix(row.name, "field ") {
			continue // the field rows use placeholder values (relation ends on a concept)
		}
		oc, tc := row.oursC, row.theirsC
		if oc == "" {
			oc, tc = mgOursCommit, mgTheirCommit
		}
		res := kernel.MergeRecord(row.base, kernel.Side{Record: row.ours, Commit: oc}, kernel.Side{Record: row.theirs, Commit: tc}, mgInfo())
		assert.NoError(t, kernel.Validate(res.Record), row.name)
	}
}

// TestDroppedFromMerge: the merge check accepts the three-way result and
// names an element a merge drops although neither side removed it.
func TestDroppedFromMerge(t *testing.T) {
	base := mgBase()
	ours := mgEdit(base, 5, "a", func(r *kernel.Record) { r.Tags = nil })
	theirs := mgEdit(base, 7, "b", func(r *kernel.Record) {
		r.Tags = []string{"base", "t1"}
		r.Links = append(r.Links, kernel.Link{TargetID: "tgt00002", Kind: kernel.LinkSource})
	})
	res := kernel.MergeRecord(base, kernel.Side{Record: ours, Commit: "a"}, kernel.Side{Record: theirs, Commit: "b"}, mgInfo())
	assert.Equal(t, []string{"t1"}, res.Record.Tags)
	assert.Empty(t, kernel.DroppedFromMerge(base, ours, theirs, res.Record), "the three-way result is a legal merge")

	forged := res.Record.Clone()
	forged.Tags = nil
	forged.Links = forged.Links[:1]
	assert.Equal(t, []string{"tags t1", "links source:tgt00002"}, kernel.DroppedFromMerge(base, ours, theirs, forged))

	unioned := res.Record.Clone()
	unioned.Tags = []string{"base", "t1"}
	assert.Empty(t, kernel.DroppedFromMerge(base, ours, theirs, unioned), "keeping an element is never a drop")
}

// TestLoggedConflicts: the losing value of a conflict is read back from the
// merge entry, for git records conflicts.
func TestLoggedConflicts(t *testing.T) {
	base := mgBase()
	ours := mgEdit(base, 5, "a", func(r *kernel.Record) { r.Title = "Ours" })
	theirs := mgEdit(base, 7, "b", func(r *kernel.Record) { r.Title = "Theirs" })
	res := kernel.MergeRecord(base, kernel.Side{Record: ours, Commit: "aaaa"}, kernel.Side{Record: theirs, Commit: "bbbb"}, mgInfo())
	cs := kernel.LoggedConflicts(res.Record)
	require.Len(t, cs, 1)
	assert.Equal(t, kernel.LoggedConflict{ID: mgID, Field: "title", At: kernel.At(mgMergeAt), Agent: mgMergeAgent,
		Kept: "Theirs", Lost: "Ours", KeptFrom: "bbbb", LostFrom: "aaaa"}, cs[0])
	assert.Empty(t, kernel.LoggedConflicts(base))
}
