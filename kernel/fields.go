package kernel

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// FieldMerge says how a three-way merge decides a field.
type FieldMerge string

const (
	MergeImmutable FieldMerge = "immutable" // equal on both sides, unless both created the record: then the winner's
	MergeScalar    FieldMerge = "scalar"    // a one-sided change wins; a two-sided one goes to the winner, the loser is logged
	MergeLines     FieldMerge = "lines"     // line merge from the base, else the winner's
	// MergeSet merges a list as a set, three-way: an element either side
	// added is kept, one either side removed is gone, ours first.
	MergeSet      FieldMerge = "set"
	MergeLog      FieldMerge = "log"      // every entry either side appended
	MergeFurthest FieldMerge = "furthest" // the furthest lifecycle status
	MergeLatest   FieldMerge = "latest"   // the later time
)

// Field is what the rules know about one field of a Record. Fields is the
// one list of them: the ops' postconditions, the merge and its check, diff,
// blame and the hooks derive their field handling from it.
type Field struct {
	Name string // the frontmatter key
	// Ops are the ops that may change the field of an existing record
	// (create sets every field; merge takes what the sides did).
	Ops   []Op
	Merge FieldMerge
	// Group names fields the merge decides as one value: a relation's
	// ends and type only make sense together.
	Group string
	// Bookkeeping fields move with every op (updated_at, mutation_log);
	// an op's evidence does not name them.
	Bookkeeping bool
	Get         func(*Record) any      // the value, compared with reflect.DeepEqual
	Set         func(dst, src *Record) // copies the field from src
	// Text renders the value canonically for diff and blame ("" when
	// absent); List does for list fields, one string per element.
	Text func(*Record) string
	List func(*Record) []string
	// merge3 sets dst's field to the three-way set merge of ours and
	// theirs from base (MergeSet).
	merge3 func(dst, base, ours, theirs *Record)
	// same, when set, is Changed's equality in place of comparing Get's
	// values.
	same func(a, b *Record) bool
}

// Immutable reports whether no op and no merge may change the field.
func (f *Field) Immutable() bool { return f.Merge == MergeImmutable }

// ChangedBy reports whether op may change the field of an existing record.
func (f *Field) ChangedBy(op Op) bool {
	for _, o := range f.Ops {
		if o == op {
			return true
		}
	}
	return false
}

// Changed reports whether the field differs between a and b.
func (f *Field) Changed(a, b *Record) bool {
	if f.same != nil {
		return !f.same(a, b)
	}
	return !reflect.DeepEqual(f.Get(a), f.Get(b))
}

// SameBody reports whether two bodies say the same: the newline an editor
// adds (or drops) at the end of the file it saves is not a change.
func SameBody(a, b string) bool { return strings.TrimSuffix(a, "\n") == strings.TrimSuffix(b, "\n") }

// encodeText renders a value as JSON, "" for an absent or empty one.
func encodeText(v any) string {
	data, _ := json.Marshal(v)
	if s := string(data); s != "null" && s != `""` && s != "[]" {
		return s
	}
	return ""
}

func linkTexts(ls []Link) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Kind + ":" + l.TargetID
	}
	return out
}

// Fields lists every field of Record, in the order diff and blame report
// them. TestFieldsCoverRecord fails when Record gains a field without an
// entry here.
var Fields = []Field{
	{Name: "title", Ops: []Op{OpUpdate, OpImport}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.Title }, Set: func(d, s *Record) { d.Title = s.Title },
		Text: func(r *Record) string { return r.Title }},
	{Name: "body", Ops: []Op{OpUpdate, OpApply, OpImport}, Merge: MergeLines,
		Get: func(r *Record) any { return r.Body }, Set: func(d, s *Record) { d.Body = s.Body },
		Text: func(r *Record) string { return r.Body }, same: func(a, b *Record) bool { return SameBody(a.Body, b.Body) }},
	{Name: "category", Ops: []Op{OpUpdate, OpImport}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.Category }, Set: func(d, s *Record) { d.Category = s.Category },
		Text: func(r *Record) string { return r.Category }},
	{Name: "tags", Ops: []Op{OpUpdate, OpImport}, Merge: MergeSet,
		Get: func(r *Record) any { return r.Tags }, Set: func(d, s *Record) { d.Tags = s.Tags },
		Text: func(r *Record) string { return encodeText(r.Tags) }, List: func(r *Record) []string { return r.Tags },
		merge3: func(d, b, o, t *Record) { d.Tags = threeWay(b.Tags, o.Tags, t.Tags, stringKey) }},
	{Name: "aliases", Ops: []Op{OpUpdate, OpImport}, Merge: MergeSet,
		Get: func(r *Record) any { return r.Aliases }, Set: func(d, s *Record) { d.Aliases = s.Aliases },
		Text: func(r *Record) string { return encodeText(r.Aliases) }, List: func(r *Record) []string { return r.Aliases },
		merge3: func(d, b, o, t *Record) { d.Aliases = threeWay(b.Aliases, o.Aliases, t.Aliases, stringKey) }},
	// Status is compared as the lifecycle reads it: absent is active.
	{Name: "status", Ops: []Op{OpRetire, OpCompact, OpForceClose}, Merge: MergeFurthest,
		Get: func(r *Record) any { return r.EffectiveStatus() }, Set: func(d, s *Record) { d.Status = s.Status },
		Text: func(r *Record) string { return string(r.EffectiveStatus()) }},
	// Propose adds proposes links and supersede supersedes links only
	// (CheckCommit holds them to that).
	{Name: "links", Ops: []Op{OpUpdate, OpLink, OpPropose, OpSupersede, OpImport}, Merge: MergeSet,
		Get: func(r *Record) any { return r.Links }, Set: func(d, s *Record) { d.Links = s.Links },
		Text: func(r *Record) string { return encodeText(r.Links) }, List: func(r *Record) []string { return linkTexts(r.Links) },
		merge3: func(d, b, o, t *Record) { d.Links = threeWay(b.Links, o.Links, t.Links, keyOf) }},
	{Name: "expires_at", Ops: []Op{OpUpdate, OpImport}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.ExpiresAt }, Set: func(d, s *Record) { d.ExpiresAt = s.ExpiresAt },
		Text: func(r *Record) string { return timestampText(r.ExpiresAt) }},
	{Name: "ttl_seconds", Ops: []Op{OpUpdate}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.TTLSeconds }, Set: func(d, s *Record) { d.TTLSeconds = s.TTLSeconds },
		Text: func(r *Record) string { return encodeText(r.TTLSeconds) }},
	{Name: "scope", Ops: []Op{OpUpdate}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.Scope }, Set: func(d, s *Record) { d.Scope = s.Scope },
		Text: func(r *Record) string { return encodeText(r.Scope) }},
	{Name: "freshness", Ops: []Op{OpVerify}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.Freshness }, Set: func(d, s *Record) { d.Freshness = s.Freshness },
		Text: func(r *Record) string { return encodeText(r.Freshness) }},
	// The axes, source and observation time say what the record is and
	// where its truth comes from: set at create, changed by no op.
	{Name: "kind", Merge: MergeScalar,
		Get: func(r *Record) any { return r.Kind }, Set: func(d, s *Record) { d.Kind = s.Kind },
		Text: func(r *Record) string { return string(r.Kind) }},
	{Name: "role", Merge: MergeScalar,
		Get: func(r *Record) any { return r.Role }, Set: func(d, s *Record) { d.Role = s.Role },
		Text: func(r *Record) string { return string(r.Role) }},
	{Name: "authority", Merge: MergeScalar,
		Get: func(r *Record) any { return r.Authority }, Set: func(d, s *Record) { d.Authority = s.Authority },
		Text: func(r *Record) string { return string(r.Authority) }},
	// An import of a newer version of an attachment changes its source's
	// payload, and nothing else of it (checkImport).
	{Name: "source", Ops: []Op{OpImport}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.Source }, Set: func(d, s *Record) { d.Source = s.Source },
		Text: func(r *Record) string { return encodeText(r.Source) }},
	// What an import kept of a foreign note: changed by update and by the
	// import of a newer version of the note.
	{Name: "properties", Ops: []Op{OpUpdate, OpImport}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.Properties }, Set: func(d, s *Record) { d.Properties = s.Properties },
		Text: func(r *Record) string { return encodeText(r.Properties) },
		same: func(a, b *Record) bool {
			return len(a.Properties) == 0 && len(b.Properties) == 0 || reflect.DeepEqual(a.Properties, b.Properties)
		}},
	{Name: "written_as", Ops: []Op{OpUpdate, OpImport}, Merge: MergeScalar,
		Get: func(r *Record) any { return r.WrittenAs }, Set: func(d, s *Record) { d.WrittenAs = s.WrittenAs },
		Text: func(r *Record) string { return encodeText(r.WrittenAs) },
		same: func(a, b *Record) bool {
			return slices.Equal(a.WrittenAs, b.WrittenAs)
		}},
	{Name: "observed_at", Merge: MergeScalar,
		Get: func(r *Record) any { return r.ObservedAt }, Set: func(d, s *Record) { d.ObservedAt = s.ObservedAt },
		Text: func(r *Record) string { return timestampText(r.ObservedAt) }},
	{Name: "from", Merge: MergeScalar, Group: "relation",
		Get: func(r *Record) any { return r.From }, Set: func(d, s *Record) { d.From = s.From },
		Text: func(r *Record) string { return r.From }},
	{Name: "to", Merge: MergeScalar, Group: "relation",
		Get: func(r *Record) any { return r.To }, Set: func(d, s *Record) { d.To = s.To },
		Text: func(r *Record) string { return r.To }},
	{Name: "relation", Merge: MergeScalar, Group: "relation",
		Get: func(r *Record) any { return r.Relation }, Set: func(d, s *Record) { d.Relation = s.Relation },
		Text: func(r *Record) string { return r.Relation }},
	{Name: "maps_to", Merge: MergeScalar, Group: "relation",
		Get: func(r *Record) any { return r.MapsTo }, Set: func(d, s *Record) { d.MapsTo = s.MapsTo },
		Text: func(r *Record) string { return r.MapsTo }},
	// An execution record's state moves by the manage ops only; its owner
	// and creator never change (receipts keep the creator lineage).
	{Name: "execution", Ops: ManageOps, Merge: MergeScalar,
		Get: func(r *Record) any { return r.Execution }, Set: func(d, s *Record) { d.Execution = s.Execution },
		Text: func(r *Record) string { return encodeText(r.Execution) }},
	{Name: "owner", Merge: MergeImmutable,
		Get: func(r *Record) any { return r.Owner }, Set: func(d, s *Record) { d.Owner = s.Owner },
		Text: func(r *Record) string { return encodeText(r.Owner) }},
	{Name: "creator", Merge: MergeImmutable,
		Get: func(r *Record) any { return r.Creator }, Set: func(d, s *Record) { d.Creator = s.Creator },
		Text: func(r *Record) string { return encodeText(r.Creator) }},
	// An implementation's contract is what bindings were judged against:
	// a new contract is a new record.
	{Name: "extension_contract", Merge: MergeImmutable,
		Get: func(r *Record) any { return r.Contract }, Set: func(d, s *Record) { d.Contract = s.Contract },
		Text: func(r *Record) string { return encodeText(r.Contract) }},
	// Immutable: what the record is and how it came to be.
	{Name: "id", Merge: MergeImmutable,
		Get: func(r *Record) any { return r.ID }, Set: func(d, s *Record) { d.ID = s.ID },
		Text: func(r *Record) string { return r.ID }},
	{Name: "type", Merge: MergeImmutable,
		Get: func(r *Record) any { return r.Type }, Set: func(d, s *Record) { d.Type = s.Type },
		Text: func(r *Record) string { return r.Type }},
	{Name: "created_at", Merge: MergeImmutable,
		Get: func(r *Record) any { return r.CreatedAt }, Set: func(d, s *Record) { d.CreatedAt = s.CreatedAt },
		Text: func(r *Record) string { return r.CreatedAt.String() }},
	{Name: "provenance", Merge: MergeImmutable,
		Get: func(r *Record) any { return r.Provenance }, Set: func(d, s *Record) { d.Provenance = s.Provenance },
		Text: func(r *Record) string { return encodeText(r.Provenance) }},
	{Name: "updated_at", Ops: []Op{OpUpdate, OpLink, OpPropose, OpApply, OpSupersede, OpRetire, OpCompact, OpCancel, OpClose, OpCleanup, OpForceClose, OpImport}, Merge: MergeLatest, Bookkeeping: true,
		Get: func(r *Record) any { return r.UpdatedAt }, Set: func(d, s *Record) { d.UpdatedAt = s.UpdatedAt },
		Text: func(r *Record) string { return r.UpdatedAt.String() }},
	// Every op appends to the log; CheckCommit holds it append-only.
	{Name: "mutation_log", Ops: []Op{OpUpdate, OpLink, OpPropose, OpApply, OpReject, OpSupersede, OpRetire, OpVerify, OpCompact, OpCancel, OpClose, OpCleanup, OpForceClose, OpImport},
		Merge: MergeLog, Bookkeeping: true,
		Get: func(r *Record) any { return r.MutationLog }, Set: func(d, s *Record) { d.MutationLog = s.MutationLog },
		Text: func(r *Record) string { return encodeText(r.MutationLog) }},
}

func timestampText(t *Timestamp) string {
	if t == nil {
		return ""
	}
	return t.String()
}

// LookupField returns the field named name.
func LookupField(name string) (*Field, bool) {
	for i := range Fields {
		if Fields[i].Name == name {
			return &Fields[i], true
		}
	}
	return nil, false
}

// ChangedFields names the fields that differ between two versions of a
// record, in the order of Fields, bookkeeping fields included.
func ChangedFields(old, cur *Record) []string {
	var out []string
	for i := range Fields {
		if Fields[i].Changed(old, cur) {
			out = append(out, Fields[i].Name)
		}
	}
	return out
}

// ContentFields names the fields an op's evidence speaks about: every
// field but the bookkeeping ones and the immutable ones.
func ContentFields() []string {
	var out []string
	for _, f := range Fields {
		if !f.Bookkeeping && !f.Immutable() {
			out = append(out, f.Name)
		}
	}
	return out
}

// FieldsChangedBy names the fields op may change on an existing record.
func FieldsChangedBy(op Op) []string {
	var out []string
	for _, f := range Fields {
		if f.ChangedBy(op) && !f.Bookkeeping {
			out = append(out, f.Name)
		}
	}
	return out
}

// fieldGroups is Fields with the fields of one Group together (in the
// position of the group's first field), each other field on its own.
func fieldGroups() [][]*Field {
	var out [][]*Field
	at := map[string]int{}
	for i := range Fields {
		f := &Fields[i]
		if f.Group == "" {
			out = append(out, []*Field{f})
			continue
		}
		if j, ok := at[f.Group]; ok {
			out[j] = append(out[j], f)
			continue
		}
		at[f.Group] = len(out)
		out = append(out, []*Field{f})
	}
	return out
}

func groupGet(g []*Field) func(*Record) any {
	return func(r *Record) any {
		vs := make([]any, len(g))
		for i, f := range g {
			vs[i] = f.Get(r)
		}
		return vs
	}
}

func groupSet(g []*Field) func(dst, src *Record) {
	return func(d, s *Record) {
		for _, f := range g {
			f.Set(d, s)
		}
	}
}

// ChangedContent is ChangedFields without the bookkeeping fields: what an
// update's Evidence-Fields must name.
func ChangedContent(old, cur *Record) []string {
	var out []string
	for i := range Fields {
		if !Fields[i].Bookkeeping && Fields[i].Changed(old, cur) {
			out = append(out, Fields[i].Name)
		}
	}
	return out
}
