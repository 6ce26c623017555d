package kernel

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Rule names are stable: verify, the hooks, CI and people match on them.
const (
	RuleTrailers    = "trailers"     // well-formed trailers with the op's evidence
	RuleLayout      = "layout"       // path matches id and type
	RuleImmutable   = "immutable"    // id, type, created_at, provenance never change
	RuleMutationLog = "mutation-log" // only appended to
	RuleNoDelete    = "no-delete"    // no record is deleted
	RuleOpMatches   = "op-matches"   // the changes are what the op claims
	RuleHandle      = "handle"       // ids are unique across types; an alias names one record
	RuleProposal    = "proposal"     // apply and reject act only on a pending proposal
)

// RecordChange is one record a commit changes: the type and id its path
// names, and the record before and after (nil when absent).
type RecordChange struct {
	Type, ID string
	Old, New *Record
	// OldBroken: a previous version exists but does not parse. The change
	// is no addition, and the checks that compare with Old are skipped
	// (the commit that broke it was judged when it landed).
	OldBroken bool
}

// Added reports whether the change creates the record.
func (c RecordChange) Added() bool { return c.Old == nil && !c.OldBroken }

// Violation is one broken rule, about one record or ("" Record) the commit,
// and the file it is about when one is (Path).
type Violation struct {
	Rule    string `json:"rule"`
	Record  string `json:"record,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
	// Warning: the rule only warns (a dangling link, unless strict).
	Warning bool `json:"warning,omitempty"`
}

func (v Violation) String() string {
	if v.Record == "" {
		return "[" + v.Rule + "] " + v.Message
	}
	return "[" + v.Rule + "] " + v.Record + ": " + v.Message
}

type violations []Violation

func (vs *violations) add(rule, record, fix, format string, args ...any) {
	*vs = append(*vs, Violation{Rule: rule, Record: record, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// TrailerValues returns the values of every trailer with key, in order.
func TrailerValues(ts []Trailer, key string) []string {
	var out []string
	for _, t := range ts {
		if t.Key == key {
			out = append(out, t.Value)
		}
	}
	return out
}

// TrailerValue returns the first value of key, or "".
func TrailerValue(ts []Trailer, key string) string {
	for _, t := range ts {
		if t.Key == key {
			return t.Value
		}
	}
	return ""
}

// MutationChanges are the record changes m makes on top of before: what
// CheckCommit and RequiredRights judge. A written record whose id before
// holds under another type is an addition (which CheckCommit refuses).
func MutationChanges(before View, m *Mutation) ([]RecordChange, error) {
	out := make([]RecordChange, 0, len(m.Writes))
	for _, r := range m.Writes {
		c := RecordChange{Type: r.Type, ID: r.ID, New: r}
		if before != nil {
			old, err := before.Record(r.ID)
			if err != nil {
				return nil, err
			}
			if old != nil && old.Type == r.Type {
				c.Old = old
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// CheckCommit is the postcondition of every record commit:
// given its op, its trailers, the records it changes and a view of its
// parent (nil for pre-commit and for a root commit), it returns the rules
// the commit breaks. The write path checks what it is about to write with
// it; verify and the hooks judge what others wrote with it. Of a merge it
// checks the Record-Id trailers, the layout and that nothing is deleted;
// CheckMergedRecord judges each record it writes. The changes are judged
// in order: two that claim one handle are reported when the second is
// read (an id claimed as an alias, on the record whose id it is).
func CheckCommit(op Op, trailers []Trailer, changes []RecordChange, before View) []Violation {
	c := newCommitCheck(op, trailers, before)
	for _, ch := range changes {
		c.add(ch, "")
	}
	return c.finish()
}

// commitCheck is CheckCommit one change at a time, for a commit too large
// to hold (an import of a hundred thousand notes): of each change it
// keeps only what the rules across changes read, the handles it claims
// and its id, and whole records only for an op whose rules read them
// together (a compaction). Two changes that claim one handle are reported
// when the second is read.
type commitCheck struct {
	op       Op
	trailers []Trailer
	before   View
	ids      []string // the Record-Id trailers
	// claims holds, of each id, whether a Record-Id names it, whether the
	// commit changes it and whether it adds it (and as what): one map, for
	// a commit of many records.
	claims  handleClaims
	changes int
	// kept are a compaction's changes, for CheckCompaction, and keptPaths
	// their files.
	kept      []RecordChange
	keptPaths map[string]string
	vs        violations
}

func newCommitCheck(op Op, trailers []Trailer, before View) *commitCheck {
	// Sized up front: an import names thousands of records, and growing
	// these maps was about 2% of its CPU.
	ids := TrailerValues(trailers, TrailerID)
	c := &commitCheck{op: op, trailers: trailers, before: before, ids: ids,
		claims: handleClaims{ids: make(map[string]idFacts, len(ids)), aliases: make(map[string]string, len(ids))}}
	for _, id := range ids {
		c.mark(id, claimed)
	}
	return c
}

// naming is what a commit says of an id: named in a Record-Id trailer
// (claimed), changed (touched), added (by the first record adding it).
type naming uint8

const (
	claimed naming = 1 << iota
	touched
	added
)

func (c *commitCheck) mark(id string, n naming) {
	f := c.claims.ids[id]
	f.naming |= n
	c.claims.ids[id] = f
}

// add judges one change; path is its file's, given to the violations
// about it ("" leaves them without one).
func (c *commitCheck) add(ch RecordChange, path string) {
	from := len(c.vs)
	defer func() {
		for i := from; i < len(c.vs); i++ {
			if v := &c.vs[i]; v.Path == "" && (v.Record == ch.ID || ch.New != nil && v.Record == ch.New.ID) {
				v.Path = path
			}
		}
	}()
	op, vs := c.op, &c.vs
	c.changes++
	c.mark(ch.ID, touched)
	if op == OpCompact {
		c.kept = append(c.kept, ch)
		if c.keptPaths == nil {
			c.keptPaths = map[string]string{}
		}
		c.keptPaths[ch.ID] = path
		if ch.New != nil {
			c.keptPaths[ch.New.ID] = path
		}
	}
	if ch.New == nil {
		if op == OpMerge {
			return // CheckMergedRecord reports what a merge deletes
		}
		vs.add(RuleNoDelete, ch.ID, "no op deletes a record: restore it, and retire or supersede it instead", "record %s is deleted", ch.ID)
		return
	}
	r := ch.New
	if r.ID != ch.ID {
		c.mark(r.ID, touched)
	}
	firstID, firstAliases := c.claim(ch, path)
	if r.ID != ch.ID || r.Type != ch.Type {
		vs.add(RuleLayout, ch.ID, "a record's file is named by its id and type", "file holds record %s of type %s", r.ID, r.Type)
	}
	if op == OpPolicy || op == OpInit {
		// Their record changes would skip the op-matches rules below.
		vs.add(RuleOpMatches, r.ID, "change records with their own ops (update, retire, …)", "%s commit changes record %s: policy and init change store files only", op, r.ID)
	}
	if c.claims.ids[r.ID].naming&claimed == 0 && op != "" {
		vs.add(RuleOpMatches, r.ID, "every record a commit changes is named in a Record-Id trailer", "%s commit changes record %s without naming it in Record-Id", op, r.ID)
	}
	switch {
	case op == OpMerge:
		// A merge's records are judged against both sides and
		// their base (CheckMergedRecord), not as an op's output;
		// what it adds or re-aliases still claims handles.
		if ch.Added() {
			vs.checkNewID(c.before, r, firstID, c.claims)
		}
	case ch.Added():
		if op != OpCreate && op != OpImport && op != OpCompact && op != "" {
			vs.add(RuleOpMatches, r.ID, "only create adds records", "%s commit adds record %s", op, r.ID)
		}
		if len(r.MutationLog) == 0 || r.MutationLog[0].Op != string(OpCreate) {
			vs.add(RuleMutationLog, r.ID, "a new record's log starts with its create entry", "new record %s has no create entry in its mutation log", r.ID)
		}
		vs.checkNewID(c.before, r, firstID, c.claims)
	case ch.Old != nil:
		vs.checkRewrite(ch.Old, r, op, c.trailers)
	}
	c.checkAliases(ch.Old, r, firstAliases)
	if op == OpImport {
		vs.checkImported(ch)
	}
}

// claim adds the handles ch newly claims to the commit's claims: whether
// it is the first to add its id, and the aliases it is the first to claim.
func (c *commitCheck) claim(ch RecordChange, path string) (firstID bool, firstAliases map[string]bool) {
	r := ch.New
	// The id the path names, where it is the record's: the claims keep its
	// strings, and the path's are kept anyway.
	id := r.ID
	if id == ch.ID {
		id = ch.ID
	}
	if ch.Added() {
		if f := c.claims.ids[id]; f.naming&added == 0 {
			f.naming |= added
			f.typ, f.path = r.Type, path
			c.claims.ids[id] = f
			firstID = true
		}
	}
	held := map[string]bool{}
	if ch.Old != nil {
		for _, a := range ch.Old.Aliases {
			held[a] = true
		}
	}
	firstAliases = map[string]bool{}
	for _, a := range r.Aliases {
		if _, ok := c.claims.aliases[a]; !ok && !held[a] {
			c.claims.aliases[a] = id
			firstAliases[a] = true
		}
	}
	return firstID, firstAliases
}

// finish runs the rules over the whole commit and returns every
// violation found.
func (c *commitCheck) finish() []Violation {
	op, vs := c.op, &c.vs
	if op == OpImport {
		if n := TrailerValue(c.trailers, TrailerCount); n != strconv.Itoa(c.changes) {
			vs.add(RuleTrailers, "", "Evidence-Count is the number of records the import writes", "import commit says Evidence-Count %q and writes %d records", n, c.changes)
		}
	}
	if op == OpCompact {
		citedBy := func(string) ([]Citation, error) { return nil, nil }
		if cv, ok := c.before.(CompactionView); ok {
			citedBy = cv.CitedBy
		}
		found, err := CheckCompaction(c.trailers, c.kept, citedBy)
		if err != nil {
			vs.add(RuleDecisionBearing, "", "retry: the links to the records could not be read", "%v", err)
		}
		for _, v := range found {
			if v.Path == "" {
				v.Path = c.keptPaths[v.Record]
			}
			*vs = append(*vs, v)
		}
	}
	// The trailers are the audit trail: they may not name a record the
	// commit leaves alone.
	for _, id := range c.ids {
		if c.claims.ids[id].naming&touched == 0 && op != "" {
			vs.add(RuleOpMatches, id, "name in Record-Id exactly the records the commit changes", "Record-Id names record %s, which this %s commit does not change", id, op)
		}
	}
	return c.vs
}

// handleClaims are the handles a commit's changes newly claim: the ids
// of the records it adds and the aliases its records gain, each with the
// first record (in change order) claiming it. Checked against the first
// parent's view (before) and against each other, they keep ids and aliases
// unique on the commit's result tree: the parent's tree was unique
// already, so only what changes relative to it can break it, and the cost
// follows what the commit changes.
type handleClaims struct {
	ids     map[string]idFacts // id -> what the commit does with it (added: by the first record adding it)
	aliases map[string]string  // newly claimed alias -> the first record claiming it
}

// idFacts are what a commit does with an id, and, when it adds it, the
// first record adding it: its type and its file's path, kept for a later
// record's claim of the same handle (the claims keep no records).
type idFacts struct {
	naming    naming
	typ, path string
}

// checkNewID holds a new record's id to be no other record's handle: an
// id another type already uses, or another record's alias, before or in
// this commit, would make show, update and log of that handle act on one
// of them only.
func (vs *violations) checkNewID(before View, r *Record, firstID bool, claims handleClaims) {
	const fix = "create the record with an id no other record uses as id or alias"
	if first := claims.ids[r.ID]; !firstID {
		vs.add(RuleHandle, r.ID, fix, "id %s is given to two records in one commit, a %s and a %s: ids are unique across types", r.ID, first.typ, r.Type)
		return
	}
	if owner := claims.aliases[r.ID]; owner != "" && owner != r.ID {
		vs.add(RuleHandle, r.ID, fix, "id %s is an alias record %s claims in the same commit", r.ID, owner)
		return
	}
	if before == nil {
		return
	}
	if other, err := before.Record(r.ID); err != nil || other != nil {
		if err != nil {
			vs.add(RuleHandle, r.ID, fix, "cannot check id %s: %v", r.ID, err)
		} else {
			vs.add(RuleHandle, r.ID, fix, "id %s already names a %s record: ids are unique across types", r.ID, other.Type)
		}
		return
	}
	if owner, err := before.AliasOwner(r.ID); err != nil {
		vs.add(RuleHandle, r.ID, fix, "cannot check id %s: %v", r.ID, err)
	} else if owner != "" && owner != r.ID {
		vs.add(RuleHandle, r.ID, fix, "id %s is already an alias of record %s", r.ID, owner)
	}
}

// checkAliases holds every alias r newly claims to be held by no other
// record, before or in this commit, and to be no other record's id.
// firstClaims are the aliases r is the first of the commit to claim.
func (c *commitCheck) checkAliases(old, r *Record, firstClaims map[string]bool) {
	const fix = "choose an alias no other record holds as alias or id"
	vs, before, claims := &c.vs, c.before, c.claims
	held := map[string]bool{}
	if old != nil {
		for _, a := range old.Aliases {
			held[a] = true
		}
	}
	for _, a := range r.Aliases {
		if held[a] {
			continue
		}
		if err := ValidateAlias(a); err != nil {
			vs.add(RuleAliasPath, r.ID, "give the record an alias of plain path segments (no '.', '..' or empty ones)", "%s", err.(*Error).Message)
			continue
		}
		if other := claims.aliases[a]; other != r.ID {
			vs.add(RuleHandle, r.ID, fix, "alias %q is claimed by both %s and %s in one commit", a, other, r.ID)
			continue
		}
		if adder, ok := claims.ids[a]; ok && adder.naming&added != 0 && a != r.ID {
			// Reported on the record the id belongs to, read before this
			// one, as checkNewID reports it when that record comes after.
			if firstClaims[a] {
				vs.add(RuleHandle, a, "create the record with an id no other record uses as id or alias", "id %s is an alias record %s claims in the same commit", a, r.ID)
				(*vs)[len(*vs)-1].Path = adder.path
			}
			continue
		}
		if before == nil {
			continue
		}
		if owner, err := before.AliasOwner(a); err != nil {
			vs.add(RuleHandle, r.ID, fix, "cannot check alias %q: %v", a, err)
		} else if owner != "" && owner != r.ID {
			vs.add(RuleHandle, r.ID, fix, "alias %q already belongs to record %s", a, owner)
			continue
		}
		if a == r.ID {
			continue
		}
		if other, err := before.Record(a); err != nil {
			vs.add(RuleHandle, r.ID, fix, "cannot check alias %q: %v", a, err)
		} else if other != nil {
			vs.add(RuleHandle, r.ID, fix, "alias %q is the id of record %s", a, other.ID)
		}
	}
}

// checkRewrite compares a changed record with its previous version.
func (vs *violations) checkRewrite(old, r *Record, op Op, trailers []Trailer) {
	for _, f := range Fields {
		if f.Immutable() && f.Changed(old, r) {
			vs.add(RuleImmutable, r.ID, "create a new record, or supersede this one, instead of rewriting what was recorded", "%s of record %s changed", f.Name, r.ID)
			break
		}
	}
	if len(r.MutationLog) < len(old.MutationLog) || !reflect.DeepEqual(old.MutationLog, r.MutationLog[:len(old.MutationLog)]) {
		vs.add(RuleMutationLog, r.ID, "the mutation log is append-only: restore the old entries and append new ones", "mutation log of %s was rewritten, not appended to", r.ID)
		return
	}
	added := r.MutationLog[len(old.MutationLog):]
	proposerOnly := len(added) == 0 && op == OpPropose && onlyAddsLinks(old, r, LinkProposes)
	if len(added) == 0 && !proposerOnly {
		vs.add(RuleMutationLog, r.ID, "every change to a record appends a mutation log entry (op, at, agent)", "record %s changes without a new mutation log entry", r.ID)
		return
	}
	if op == "" || op == OpPolicy || op == OpInit {
		return
	}
	if op == OpMigrate {
		// A migration may change any field; verify replays it instead.
		for _, e := range added {
			if e.Op != string(op) {
				vs.add(RuleOpMatches, r.ID, "a migration appends one migrate entry", "migrate commit appends a %q entry to %s", e.Op, r.ID)
			}
		}
		return
	}
	for _, e := range added {
		if e.Op != string(op) && !(op == OpSupersede && e.Op == OpSupersededBy) && e.Op != string(OpMerge) {
			vs.add(RuleOpMatches, r.ID, "the log entries a commit appends name the commit's op", "%s commit appends a %q entry to %s", op, e.Op, r.ID)
		}
	}
	// Every field the op changed must be one the op may change (the
	// table), whatever the op's evidence says.
	for _, name := range ChangedFields(old, r) {
		f, _ := LookupField(name)
		if f.Immutable() || name == "mutation_log" {
			continue // reported above
		}
		if !f.ChangedBy(op) {
			vs.add(RuleOpMatches, r.ID, fieldFix(f), "%s commit changes the %s of %s", op, name, r.ID)
		}
	}
	if r.Status != old.Status && !CanTransition(old.EffectiveStatus(), r.EffectiveStatus()) && old.EffectiveStatus() != r.EffectiveStatus() {
		vs.add(RuleOpMatches, r.ID, "status moves active→implemented→retired only", "status of %s moved %s→%s", r.ID, old.EffectiveStatus(), r.EffectiveStatus())
	}
	for _, err := range CheckProposalLifecycle(r, len(old.MutationLog), op) {
		vs.add(RuleProposal, r.ID, "apply or reject only a pending proposal: list them with git records proposals "+r.ID, "%s", err.Message)
	}
	switch op {
	case OpPropose:
		if !proposerOnly && !onlyAddsLinks(old, r, LinkProposes) && !reflect.DeepEqual(old.Links, r.Links) {
			vs.add(RuleOpMatches, r.ID, "propose adds a proposes link to the proposer and nothing else", "propose commit changes links of %s other than by adding proposes links", r.ID)
		}
	case OpSupersede:
		if !reflect.DeepEqual(old.Links, r.Links) && !onlyAddsLinks(old, r, LinkSupersedes) {
			vs.add(RuleOpMatches, r.ID, "supersede adds supersedes links and nothing else", "supersede commit changes links of %s other than by adding supersedes links", r.ID)
		}
	case OpLink:
		if !reflect.DeepEqual(old.Links, r.Links) && !onlyAddsLinks(old, r, "") {
			vs.add(RuleOpMatches, r.ID, "link adds links; update replaces them", "link commit removes or rewrites links of %s", r.ID)
		}
	case OpUpdate:
		vs.checkEvidenceFields(old, r, trailers)
	}
}

func fieldFix(f *Field) string {
	if len(f.Ops) == 0 {
		return fmt.Sprintf("no op changes %s after create: create a new record, or supersede this one", f.Name)
	}
	ops := make([]string, len(f.Ops))
	for i, o := range f.Ops {
		ops[i] = string(o)
	}
	return fmt.Sprintf("%s is changed by %s only", f.Name, strings.Join(ops, ", "))
}

// checkEvidenceFields holds an update to its Evidence-Fields: every field
// it changes is named there, and each name is a field update may change.
func (vs *violations) checkEvidenceFields(old, r *Record, trailers []Trailer) {
	const fix = "name in Evidence-Fields every field the update changes (git records update does)"
	named := map[string]bool{}
	for _, v := range TrailerValues(trailers, TrailerFields) {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			named[name] = true
			if f, ok := LookupField(name); !ok || !f.ChangedBy(OpUpdate) || f.Bookkeeping {
				vs.add(RuleTrailers, r.ID, fix, "Evidence-Fields names %q, which is not a field update changes (%s)", name, strings.Join(FieldsChangedBy(OpUpdate), ", "))
			}
		}
	}
	for _, name := range ChangedContent(old, r) {
		if f, _ := LookupField(name); !f.Immutable() && !named[name] {
			vs.add(RuleOpMatches, r.ID, fix, "update commit changes the %s of %s, which its Evidence-Fields does not name", name, r.ID)
		}
	}
}

// onlyAddsLinks reports whether r's links are old's plus links of kind
// ("" for any kind), compared as sets (a link is its target and kind).
func onlyAddsLinks(old, r *Record, kind string) bool {
	if !ContainsAllLinks(r.Links, old.Links) {
		return false
	}
	had := make(map[linkKey]bool, len(old.Links))
	for _, l := range old.Links {
		had[keyOf(l)] = true
	}
	added := 0
	for _, l := range r.Links {
		if had[keyOf(l)] {
			continue
		}
		if kind != "" && l.Kind != kind {
			return false
		}
		added++
	}
	return added > 0
}
