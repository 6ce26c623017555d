package gitstore

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/git-records/git-records/kernel"
)

// RecordDiff is the semantic difference between two record branches: what
// a reviewer of a records pull request needs, record by record and field
// by field, instead of YAML hunks.
type RecordDiff struct {
	From       string          `json:"from"`
	To         string          `json:"to"`
	Added      []AddedRecord   `json:"added"`
	Changed    []RecordChange  `json:"changed"`
	Superseded []Supersession  `json:"superseded"`
	Retired    []Retirement    `json:"retired"`
	Links      LinkChanges     `json:"links"`
	Violations []DiffViolation `json:"violations"`
}

// Empty reports whether the two sides hold the same records.
func (d *RecordDiff) Empty() bool {
	return len(d.Added)+len(d.Changed)+len(d.Superseded)+len(d.Retired)+len(d.Violations)+len(d.Links.Added)+len(d.Links.Removed) == 0
}

// RecordRef names a record.
type RecordRef struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	Category string `json:"category"`
}

// AddedRecord is a new record with what a reviewer judges it by: where in
// the code it applies and how its body begins.
type AddedRecord struct {
	RecordRef
	Scope *kernel.Scope `json:"scope,omitempty"`
	// Excerpt is the body's first lines, bounded (BodyExcerpt); MoreLines
	// counts the lines it leaves out.
	Excerpt   string `json:"excerpt"`
	MoreLines int    `json:"more_lines,omitempty"`
}

// Bounds of an added record's excerpt: a pull-request comment shows the
// start of each new record, never a whole (up to 1 MiB) body.
const (
	ExcerptLines     = 8
	ExcerptLineRunes = 160
)

// BodyExcerpt is the first ExcerptLines lines of body, each cut to
// ExcerptLineRunes runes, and how many further lines there are.
func BodyExcerpt(body string) (excerpt string, more int) {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	if len(lines) > ExcerptLines {
		more = len(lines) - ExcerptLines
		lines = lines[:ExcerptLines]
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > ExcerptLineRunes {
			lines[i] = string(r[:ExcerptLineRunes]) + "…"
		}
	}
	return strings.Join(lines, "\n"), more
}

// FieldChange is one scalar or list field that differs.
type FieldChange struct {
	Field   string   `json:"field"`
	From    string   `json:"from,omitempty"`
	To      string   `json:"to,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Diff    string   `json:"diff,omitempty"` // unified diff, for the body
}

// RecordChange is a record present on both sides that differs.
type RecordChange struct {
	RecordRef
	Fields []FieldChange          `json:"fields"`
	Log    []kernel.MutationEntry `json:"log"` // entries appended on the new side, with their evidence
}

// Supersession: a record superseded on the new side.
type Supersession struct {
	RecordRef
	By string `json:"by"`
}

// Retirement: a record whose status became implemented or retired.
type Retirement struct {
	RecordRef
	Status kernel.Status `json:"status"`
}

// LinkChanges are edges of the graph added or removed.
type LinkChanges struct {
	Added   []Edge `json:"added"`
	Removed []Edge `json:"removed"`
}

// DiffViolation is something the new side must not do (a deleted record,
// a file that does not parse).
type DiffViolation struct {
	ID      string `json:"id,omitempty"`
	Path    string `json:"path"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Diff compares the records of two commits. It reads only what the tree
// diff says changed, so its cost follows the change, not the store.
func (s *Store) Diff(from, to plumbing.Hash) (*RecordDiff, error) {
	d := &RecordDiff{From: from.String(), To: to.String(), Added: []AddedRecord{}, Changed: []RecordChange{},
		Superseded: []Supersession{}, Retired: []Retirement{}, Links: LinkChanges{Added: []Edge{}, Removed: []Edge{}}, Violations: []DiffViolation{}}
	a, err := s.rootOf(from)
	if err != nil {
		return nil, err
	}
	b, err := s.rootOf(to)
	if err != nil {
		return nil, err
	}
	changes, err := recordChanges(newTreeReader(s.objects), a, b)
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		_, id, ok := ParseRecordPath(c.Path)
		if !ok {
			d.Violations = append(d.Violations, DiffViolation{Path: c.Path, Rule: "layout", Message: "not a record path"})
			continue
		}
		var old, cur *kernel.Record
		if !c.Old.IsZero() {
			if old, err = s.readRecord(c.Old); err != nil {
				old = nil
			}
		}
		if c.New.IsZero() {
			d.Violations = append(d.Violations, DiffViolation{ID: id, Path: c.Path, Rule: "no-delete", Message: "record " + id + " is deleted"})
			if old != nil {
				d.Links.Removed = append(d.Links.Removed, edgesOf(old)...)
			}
			continue
		}
		if cur, err = s.readRecord(c.New); err != nil {
			if kernel.CodeOf(err) == kernel.CodeInternal {
				return nil, err // an I/O failure, not a fault of the branch: CI must not blame the content
			}
			d.Violations = append(d.Violations, DiffViolation{ID: id, Path: c.Path, Rule: "record", Message: err.Error()})
			continue
		}
		d.addRecord(old, cur)
	}
	sortDiff(d)
	return d, nil
}

func refOf(r *kernel.Record) RecordRef {
	return RecordRef{ID: r.ID, Type: r.Type, Title: r.Title, Category: r.Category}
}

func edgesOf(r *kernel.Record) []Edge {
	es := entryOf(r, plumbing.ZeroHash).Edges
	for i := range es {
		if es[i].Source == "" {
			es[i].Source = r.ID
		}
	}
	return es
}

func (d *RecordDiff) addRecord(old, cur *kernel.Record) {
	newEdges := edgesOf(cur)
	if old == nil {
		excerpt, more := BodyExcerpt(cur.Body)
		d.Added = append(d.Added, AddedRecord{RecordRef: refOf(cur), Scope: cur.Scope, Excerpt: excerpt, MoreLines: more})
		d.Links.Added = append(d.Links.Added, newEdges...)
		return
	}
	added, removed := diffEdges(edgesOf(old), newEdges)
	d.Links.Added = append(d.Links.Added, added...)
	d.Links.Removed = append(d.Links.Removed, removed...)

	ch := RecordChange{RecordRef: refOf(cur), Fields: []FieldChange{}, Log: []kernel.MutationEntry{}}
	// Every field the table knows, so no change goes unseen; the log is
	// shown as its appended entries, and updated_at moves with every op.
	var texts []FieldChange // the body's line diff comes after the short fields
	for _, f := range kernel.Fields {
		if f.Bookkeeping || !f.Changed(old, cur) {
			continue
		}
		switch {
		case f.Merge == kernel.MergeLines:
			texts = append(texts, FieldChange{Field: f.Name, Diff: UnifiedDiff(f.Text(old), f.Text(cur))})
		case f.List != nil:
			add, rem := diffStrings(f.List(old), f.List(cur))
			if len(add)+len(rem) > 0 {
				ch.Fields = append(ch.Fields, FieldChange{Field: f.Name, Added: add, Removed: rem})
				break
			}
			// Same elements, another order (or a label): show both.
			ch.Fields = append(ch.Fields, FieldChange{Field: f.Name, From: f.Text(old), To: f.Text(cur)})
		default:
			ch.Fields = append(ch.Fields, FieldChange{Field: f.Name, From: f.Text(old), To: f.Text(cur)})
		}
	}
	ch.Fields = append(ch.Fields, texts...)
	if len(cur.MutationLog) > len(old.MutationLog) {
		ch.Log = append(ch.Log, cur.MutationLog[len(old.MutationLog):]...)
	}
	for _, e := range ch.Log {
		if e.Op == kernel.OpSupersededBy {
			by, _ := e.Evidence["new_id"].(string)
			d.Superseded = append(d.Superseded, Supersession{RecordRef: refOf(cur), By: by})
		}
	}
	if old.EffectiveStatus() != cur.EffectiveStatus() && cur.EffectiveStatus() != kernel.StatusActive {
		d.Retired = append(d.Retired, Retirement{RecordRef: refOf(cur), Status: cur.EffectiveStatus()})
	}
	if len(ch.Fields) > 0 || len(ch.Log) > 0 {
		d.Changed = append(d.Changed, ch)
	}
}

// diffStrings returns what to has that from lacks, and the reverse, in order.
func diffStrings(from, to []string) (added, removed []string) {
	inFrom, inTo := make(map[string]bool, len(from)), make(map[string]bool, len(to))
	for _, s := range from {
		inFrom[s] = true
	}
	for _, s := range to {
		inTo[s] = true
		if !inFrom[s] {
			added = append(added, s)
		}
	}
	for _, s := range from {
		if !inTo[s] {
			removed = append(removed, s)
		}
	}
	return added, removed
}

func diffEdges(from, to []Edge) (added, removed []Edge) {
	key := func(e Edge) string { return e.Source + "\x00" + e.Target + "\x00" + e.Kind }
	have := map[string]bool{}
	for _, e := range from {
		have[key(e)] = true
	}
	want := map[string]bool{}
	for _, e := range to {
		want[key(e)] = true
		if !have[key(e)] {
			added = append(added, e)
		}
	}
	for _, e := range from {
		if !want[key(e)] {
			removed = append(removed, e)
		}
	}
	return added, removed
}

func sortDiff(d *RecordDiff) {
	sort.Slice(d.Added, func(i, j int) bool { return d.Added[i].ID < d.Added[j].ID })
	sort.Slice(d.Changed, func(i, j int) bool { return d.Changed[i].ID < d.Changed[j].ID })
	sort.Slice(d.Superseded, func(i, j int) bool { return d.Superseded[i].ID < d.Superseded[j].ID })
	sort.Slice(d.Retired, func(i, j int) bool { return d.Retired[i].ID < d.Retired[j].ID })
	for _, es := range [][]Edge{d.Links.Added, d.Links.Removed} {
		sort.Slice(es, func(i, j int) bool {
			if es[i].Source != es[j].Source {
				return es[i].Source < es[j].Source
			}
			return es[i].Target+es[i].Kind < es[j].Target+es[j].Kind
		})
	}
}

// UnifiedDiff renders a line diff of two texts with three lines of context.
func UnifiedDiff(a, b string) string {
	type line struct {
		op   byte
		text string
	}
	var lines []line
	for _, df := range diff.Do(a, b) {
		op := byte(' ')
		switch df.Type {
		case diffmatchpatch.DiffInsert:
			op = '+'
		case diffmatchpatch.DiffDelete:
			op = '-'
		}
		text := strings.TrimSuffix(df.Text, "\n")
		for _, l := range strings.Split(text, "\n") {
			lines = append(lines, line{op, l})
		}
	}
	const context = 3
	keep := make([]bool, len(lines))
	for i, l := range lines {
		if l.op == ' ' {
			continue
		}
		for k := max(0, i-context); k <= min(len(lines)-1, i+context); k++ {
			keep[k] = true
		}
	}
	var out strings.Builder
	gap := false
	for i, l := range lines {
		if !keep[i] {
			gap = true
			continue
		}
		if gap && out.Len() > 0 {
			out.WriteString("@@\n")
		}
		gap = false
		fmt.Fprintf(&out, "%c%s\n", l.op, l.text)
	}
	return out.String()
}
