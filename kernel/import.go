package kernel

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
)

// ImportItem is one record an import brings in. The record carries its
// content (id, type, title, body, category, tags, aliases, links, axes,
// status, source, expiry, provenance, properties); the import sets its
// history (created_at, updated_at, mutation_log). Origin names where it
// came from (a file, a JSONL line) for errors and the report.
type ImportItem struct {
	Origin string
	Record *Record
	// Payload is raw data the record stands for (an attachment): stored
	// once by content hash with the record, its source.payload set to it.
	Payload []byte
	// Created and Updated are the note's own dates (its front matter's
	// date, created, lastmod, ...): the record's created_at and
	// updated_at, when they are not after the import. The mutation log
	// still says when the import made the record.
	Created, Updated *Timestamp
}

// ImportInput is the import op's input: the items, and the evidence the
// commit carries (what was read, how many records, the input's digest).
type ImportInput struct {
	Items   []ImportItem
	Source  string // Evidence-Source: what was imported ("vault notes/", "jsonl records.jsonl")
	Digest  string // Evidence-Digest: "sha256:<hex>" of the input as read
	Agent   string
	Session string
	Note    string
	// Strict refuses the whole import when any item breaks a rule;
	// otherwise such an item is skipped (reason "refused") and the
	// others are imported.
	Strict bool
}

// Reasons an import leaves an item out.
const (
	SkipUnchanged = "unchanged"  // the store holds the record as given: importing the same source again changes nothing
	SkipDiffers   = "differs"    // a record with this id exists and the import does not rewrite it
	SkipRefused   = "refused"    // the record breaks a rule a create is held to (Code, Message)
	SkipUnread    = "unreadable" // the note could not be read as a note (its front matter, its size, its bytes)
	// SkipConflict: the note changed in its source and its record changed
	// here since the last import; the record is not overwritten (Message
	// says what changed it).
	SkipConflict = "conflict"
)

// ImportSkip is an item the import leaves out, and why.
type ImportSkip struct {
	Origin string   `json:"origin"`
	ID     string   `json:"id,omitempty"`
	Reason string   `json:"reason"`
	Fields []string `json:"fields,omitempty"` // of "differs": what differs
	// Code and Message: of "refused" and "unreadable", the rule broken or
	// what could not be read, as an error would say it.
	Code    Code   `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// LeftOut reports whether the skip leaves a note of the source out of the
// store (refused or unreadable), as opposed to finding it there already.
func (s ImportSkip) LeftOut() bool {
	return s.Reason == SkipRefused || s.Reason == SkipUnread || s.Reason == SkipConflict
}

// Import validates an import and returns it as one mutation that creates
// every new record and updates every record a new version of its note
// changes, plus the items it skips. An item whose record already exists
// is skipped when its content is the same (unchanged). A record made by an
// import of the same note (source import, the same externalId) whose note
// changed is updated, with an import entry in its log naming the source
// and the fields, unless it was changed here since its last import: then
// it is a conflict, never overwritten. Any other record with the item's
// id is never rewritten (differs). Every record is held to the rules a create is
// held to (Validate, unique ids and aliases), in order, one item after the
// other: one that breaks a rule is skipped as refused, naming the rule,
// and the others are imported; with in.Strict it fails the whole import
// with an error naming its origin, so nothing is written. A body may be
// empty (a section page, a note that is only a title). The mutation is
// nil when nothing is new. It is an Importer given every item at once.
func Import(v View, in ImportInput, env Env) (*Mutation, []ImportSkip, error) {
	im, err := NewImporter(v, in, env)
	if err != nil {
		return nil, nil, err
	}
	written, err := im.Decide(in.Items)
	if err != nil {
		return nil, nil, err
	}
	m, dropped, err := im.Finish()
	if err != nil || m == nil {
		return nil, im.Skips(), err
	}
	if err := gather(m, written, dropped); err != nil {
		return nil, nil, err
	}
	return m, im.Skips(), nil
}

// An Importer decides an import a batch of items at a time, for an import
// too large to hold (a vault of a hundred thousand notes): each record it
// writes is handed back as it is decided, to be written at once, and it
// keeps of each item only what the items after it are judged against
// (its id and origin, the aliases it claims). A new id may not be what
// another new record claims as an alias: the record whose id it is is left
// out, when it comes or, written already, when the alias is claimed
// (Finish names those it dropped). An Importer decides on one view, once.
type Importer struct {
	v   View
	in  ImportInput
	now Timestamp
	// ids are the ids of every item taken so far, each with its origin and
	// whether its record is written; aliases the aliases the records
	// written so far claim, each with its record.
	ids     map[string]takenID
	aliases map[string]string
	dropped map[string]bool
	skips   []ImportSkip
}

// takenID is an item's id as an import took it.
type takenID struct {
	origin  string
	written bool // its record is written (and not dropped since)
}

// ImportWrite is a record an import writes, and the payload it stands
// for (nil when none), stored by hash with it.
type ImportWrite struct {
	Origin  string
	Record  *Record
	Payload []byte
}

// NewImporter starts deciding the import in (its Items are not read) on v.
func NewImporter(v View, in ImportInput, env Env) (*Importer, error) {
	if err := requireAgent(Evidence{Agent: in.Agent}); err != nil {
		return nil, err
	}
	if err := requireText("source", in.Source, "what is imported"); err != nil {
		return nil, err
	}
	in.Items = nil
	return &Importer{v: v, in: in, now: At(env.Now), ids: map[string]takenID{}, aliases: map[string]string{}}, nil
}

// Skips are the items left out so far, in the order decided.
func (im *Importer) Skips() []ImportSkip { return im.skips }

// refuse skips an item that breaks a rule; with Strict it is the error
// that fails the import.
func (im *Importer) refuse(origin, id string, err error) error {
	if im.in.Strict {
		return atOrigin(origin, err)
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: CodeInvalidRecord, Message: err.Error()}
	}
	im.skips = append(im.skips, ImportSkip{Origin: origin, ID: id, Reason: SkipRefused, Code: e.Code, Message: e.Message})
	return nil
}

// Decide decides items, after every item given before them, and returns
// the records to write, in order.
func (im *Importer) Decide(items []ImportItem) ([]ImportWrite, error) {
	v, in, now := im.v, im.in, im.now
	var writes []ImportWrite
	preps := prepareImport(items, in, now)
	for i, it := range items {
		p := &preparedItem{}
		*p, preps[i] = preps[i], preparedItem{} // the batch holds no more of a decided item
		r := p.record
		if first := cmp.Or(p.typeErr, p.idErr); first != nil {
			if err := im.refuse(it.Origin, r.ID, first); err != nil {
				return nil, err
			}
			continue
		}
		if other, dup := im.ids[r.ID]; dup {
			if err := im.refuse(it.Origin, r.ID, Errorf(CodeIDConflict, "id %s is also the id of %s: each record needs its own id", r.ID, other.origin)); err != nil {
				return nil, err
			}
			continue
		}
		existing, err := v.Record(r.ID)
		if err != nil {
			return nil, err
		}
		if existing != nil {
			im.ids[r.ID] = takenID{origin: it.Origin}
			skip := ImportSkip{Origin: it.Origin, ID: r.ID, Reason: SkipUnchanged}
			if existing.Type != r.Type {
				skip.Reason, skip.Fields = SkipDiffers, []string{"type"}
			} else if changed := ChangedContent(existing, withHistoryOf(r, existing)); len(changed) > 0 {
				skip.Reason, skip.Fields = SkipDiffers, changed
			}
			if skip.Reason == SkipDiffers && sameNote(existing, r) {
				if by := changedSinceImport(existing); by != "" {
					skip.Reason = SkipConflict
					skip.Message = "its note changed in the source, and its record was changed here since its last import (" + by + "): not overwritten; bring the change in with update, or import the note under another path"
				} else {
					u, claimed, err := reimported(v, existing, p, in, it, now, im.aliases)
					if err != nil {
						if _, coded := err.(*Error); !coded {
							return nil, err
						}
						if err := im.refuse(it.Origin, r.ID, err); err != nil {
							return nil, err
						}
						continue
					}
					if u == nil {
						skip.Reason, skip.Fields = SkipUnchanged, nil
						im.skips = append(im.skips, skip)
						continue
					}
					if ok, err := im.take(u.ID, it.Origin, claimed); err != nil {
						return nil, err
					} else if ok {
						writes = append(writes, ImportWrite{Origin: it.Origin, Record: u, Payload: it.Payload})
					}
					continue
				}
			}
			im.skips = append(im.skips, skip)
			continue
		}
		claimed, err := checkImportedRecord(v, p, im.aliases)
		if err != nil {
			if _, coded := err.(*Error); !coded {
				return nil, err // the view failed: not the record's fault
			}
			if err := im.refuse(it.Origin, r.ID, err); err != nil {
				return nil, err
			}
			continue
		}
		if ok, err := im.take(r.ID, it.Origin, claimed); err != nil {
			return nil, err
		} else if ok {
			writes = append(writes, ImportWrite{Origin: it.Origin, Record: r, Payload: it.Payload})
		}
	}
	return writes, nil
}

// take notes a record written and the aliases it claims; ok false when it
// is left out, its id an alias a record written before claims. A record
// written before whose id it claims as alias is dropped.
func (im *Importer) take(id, origin string, claimed []string) (ok bool, err error) {
	if owner, claimedBefore := im.aliases[id]; claimedBefore && owner != id {
		im.ids[id] = takenID{origin: origin}
		return false, im.refuse(origin, id, Errorf(CodeIDConflict, "id %q is also an alias of record %s in this import", id, owner))
	}
	im.ids[id] = takenID{origin: origin, written: true}
	for _, a := range claimed {
		im.aliases[a] = id
		if t := im.ids[a]; t.written && a != id {
			if err := im.refuse(t.origin, a, Errorf(CodeIDConflict, "id %q is also an alias of record %s in this import", a, id)); err != nil {
				return false, err
			}
			im.ids[a] = takenID{origin: t.origin}
			if im.dropped == nil {
				im.dropped = map[string]bool{}
			}
			im.dropped[a] = true
		}
	}
	return true, nil
}

// Finish makes the import's mutation: its op, title and trailers (no
// Writes or Files: the records were handed out by Decide), and names the
// records handed out that a later one dropped. The mutation is nil when
// nothing is written.
func (im *Importer) Finish() (m *Mutation, dropped map[string]bool, err error) {
	in := im.in
	var kept []string
	for id, t := range im.ids {
		if t.written {
			kept = append(kept, id)
		}
	}
	if len(kept) == 0 {
		return nil, im.dropped, nil
	}
	sort.Strings(kept)
	m = &Mutation{Op: OpImport, Type: "records", Title: fmt.Sprintf("%d records from %s", len(kept), in.Source), Message: in.Note}
	m.Trailers = append(baseTrailers(OpImport, in.Agent, in.Session, kept...),
		Trailer{TrailerSource, truncateUTF8(in.Source, maxTrailerValueLength)},
		Trailer{TrailerCount, strconv.Itoa(len(kept))},
		Trailer{TrailerDigest, in.Digest})
	m.Trailers = appendNote(m.Trailers, in.Note)
	return m, im.dropped, nil
}

// sameNote reports whether the import item r is a new version of the note
// existing was imported from: both made by an import, of the same path.
func sameNote(existing, r *Record) bool {
	return existing.Source != nil && r.Source != nil && existing.Source.Extension == importExtension &&
		r.Source.Extension == importExtension && existing.Source.ExternalID == r.Source.ExternalID
}

// importExtension is the source extension of a record an import made of a
// foreign note or attachment.
const importExtension = "import"

// isImportEntry reports whether a log entry is an import's: the create
// entry of an imported record, or the entry of a later import.
func isImportEntry(e MutationEntry) bool {
	if e.Op == string(OpImport) {
		return true
	}
	_, imported := e.Evidence["import"]
	return e.Op == string(OpCreate) && imported
}

// changedSinceImport says what changed a record after its last import
// ("update by alice at …"), "" when nothing did.
func changedSinceImport(r *Record) string {
	if n := len(r.MutationLog); n > 0 && !isImportEntry(r.MutationLog[n-1]) {
		e := r.MutationLog[n-1]
		return e.Op + " by " + e.Agent + " at " + e.At.String()
	}
	return ""
}

// reimported is existing with the content of a new version of its note
// (the fields an import changes; aliases are only added, a handle once
// given keeps naming the record), an import entry appended; nil when that
// changes nothing. It returns the aliases the record newly claims.
func reimported(v View, existing *Record, p *preparedItem, in ImportInput, it ImportItem, now Timestamp, claimedBefore map[string]string) (*Record, []string, error) {
	u := existing.Clone()
	for i := range Fields {
		f := &Fields[i]
		if f.ChangedBy(OpImport) && !f.Bookkeeping && f.Name != "aliases" {
			f.Set(u, p.record)
		}
	}
	var added []string
	for _, a := range p.record.Aliases {
		if !slices.Contains(u.Aliases, a) {
			added = append(added, a)
		}
	}
	u.Aliases = append(u.Aliases, added...)
	changed := ChangedContent(existing, u)
	if len(changed) == 0 {
		return nil, nil, nil
	}
	for _, a := range added {
		if err := ValidateAlias(a); err != nil {
			return nil, nil, err
		}
		if other, dup := claimedBefore[a]; dup && other != u.ID {
			return nil, nil, Errorf(CodeSlugConflict, "alias %q is also claimed by record %s in this import", a, other).WithExtra("alias", a)
		}
		owner, err := v.AliasOwner(a)
		if err != nil {
			return nil, nil, err
		}
		if owner == "" {
			if other, err := v.Record(a); err != nil {
				return nil, nil, err
			} else if other != nil {
				owner = other.ID
			}
		}
		if owner != "" && owner != u.ID {
			return nil, nil, Errorf(CodeSlugConflict, "alias %q already belongs to record %s", a, owner).WithExtra("alias", a).WithExtra("owner", owner)
		}
	}
	u.UpdatedAt = now
	if it.Updated != nil && !it.Updated.After(now.Time) && it.Updated.After(existing.UpdatedAt.Time) {
		u.UpdatedAt = *it.Updated
	}
	evidence := map[string]any{"import": in.Source, "fields": changed}
	if it.Origin != "" {
		evidence["origin"] = it.Origin
	}
	u.MutationLog = append(u.MutationLog, MutationEntry{Op: string(OpImport), At: now, Agent: in.Agent, Note: in.Note, Evidence: evidence})
	if err := Validate(u); err != nil {
		return nil, nil, err
	}
	return u, added, nil
}

// checkImportedRecord holds a new record to what a create of it is held
// to, in a create's order, given the aliases the import's earlier records
// claim; it returns the aliases the record claims.
func checkImportedRecord(v View, p *preparedItem, claimedBefore map[string]string) ([]string, error) {
	r := p.record
	if p.categoryErr != nil {
		return nil, p.categoryErr
	}
	if p.textErr != nil {
		return nil, p.textErr
	}
	if owner, err := v.AliasOwner(r.ID); err != nil {
		return nil, err
	} else if owner != "" {
		return nil, Errorf(CodeIDConflict, "id %q is already an alias of record %s: choose another id", r.ID, owner).WithExtra("owner", owner)
	}
	for j, a := range r.Aliases {
		if err := p.aliasErrs[j]; err != nil {
			return nil, err
		}
		if other, dup := claimedBefore[a]; dup && other != r.ID {
			return nil, Errorf(CodeSlugConflict, "alias %q is also claimed by record %s in this import", a, other).WithExtra("alias", a)
		}
		owner, err := v.AliasOwner(a)
		if err != nil {
			return nil, err
		}
		if owner == "" {
			if other, err := v.Record(a); err != nil {
				return nil, err
			} else if other != nil {
				owner = other.ID
			}
		}
		if owner != "" && owner != r.ID {
			return nil, Errorf(CodeSlugConflict, "alias %q already belongs to record %s", a, owner).WithExtra("alias", a).WithExtra("owner", owner)
		}
	}
	if p.validErr != nil {
		return nil, p.validErr
	}
	return r.Aliases, nil
}

// preparedItem is an import item made into the record a create would
// write, with the verdicts of the checks that depend on that record alone
// (Import judges them in the same order as a create, with what the store
// and the other items hold, one item after the other).
type preparedItem struct {
	record                                         *Record
	typeErr, idErr, categoryErr, textErr, validErr error
	aliasErrs                                      []error
}

// prepareImport prepares every item, on every core for a large import:
// the checks of each record are most of an import's decision.
func prepareImport(items []ImportItem, in ImportInput, now Timestamp) []preparedItem {
	preps := make([]preparedItem, len(items))
	workers := 1
	if len(items) >= 64 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Value
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic is raised again in the caller, whose write loop
			// turns it into an error of this op alone.
			defer func() {
				if p := recover(); p != nil {
					panicked.CompareAndSwap(nil, fmt.Sprint(p))
				}
			}()
			for i := int(next.Add(1) - 1); i < len(items); i = int(next.Add(1) - 1) {
				preps[i] = prepareItem(items[i], in, now)
			}
		}()
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		panic(p)
	}
	return preps
}

func prepareItem(it ImportItem, in ImportInput, now Timestamp) preparedItem {
	r := it.Record.Clone()
	p := preparedItem{record: r, typeErr: ValidateType(r.Type), idErr: ValidateID(r.ID)}
	if r.Provenance.Agent == "" {
		r.Provenance = Provenance{Agent: in.Agent, SessionID: in.Session}
	}
	def, _ := LookupType(r.Type)
	if r.Kind == "" {
		r.Kind = def.Kind
	}
	if r.Role == "" {
		r.Role = def.Role
	}
	if r.Authority == "" {
		r.Authority = def.Authority
	}
	if r.Status == "" {
		r.Status = StatusActive
	}
	if it.Payload != nil {
		if r.Source == nil {
			r.Source = &Source{}
		}
		r.Source.Payload = PayloadRef(it.Payload)
	}
	r.Tags, r.Aliases = dedupe(r.Tags), dedupe(r.Aliases)
	r.CreatedAt, r.UpdatedAt = now, now
	if it.Created != nil && !it.Created.After(now.Time) {
		r.CreatedAt, r.UpdatedAt = *it.Created, *it.Created
	}
	if it.Updated != nil && !it.Updated.After(now.Time) && !it.Updated.Before(r.CreatedAt.Time) {
		r.UpdatedAt = *it.Updated
	}
	evidence := map[string]any{"import": in.Source}
	if it.Origin != "" {
		evidence["origin"] = it.Origin
	}
	r.MutationLog = []MutationEntry{{Op: string(OpCreate), At: now, Agent: in.Agent, Note: in.Note, Evidence: evidence}}
	p.categoryErr = ValidateCategory(r.Category)
	p.textErr = requireText("title", r.Title, "a record needs a non-empty title")
	p.aliasErrs = make([]error, len(r.Aliases))
	for j, a := range r.Aliases {
		p.aliasErrs[j] = ValidateAlias(a)
	}
	p.validErr = Validate(r)
	return p
}

// withHistoryOf is r with existing's history (when and by whom it was
// created and changed), so that comparing the two compares content: an
// import run later, or by someone else, brings the same records.
func withHistoryOf(r, existing *Record) *Record {
	c := r.Clone()
	c.CreatedAt, c.UpdatedAt, c.Provenance, c.MutationLog = existing.CreatedAt, existing.UpdatedAt, existing.Provenance, existing.MutationLog
	return c
}

// atOrigin prefixes a coded error's message with the origin of the item
// it is about, records it as "origin", and says what to do. The field it
// names is the record's, set in that file, not an input of the op: it
// moves to "record_field" so no front-end names a flag for it.
func atOrigin(origin string, err error) error {
	e, ok := err.(*Error)
	if !ok || origin == "" {
		return err
	}
	c := &Error{Code: e.Code, Message: origin + ": " + e.Message + " (fix it there, or leave it out of the source; nothing was imported)", Err: e.Err}
	for k, v := range e.Extra {
		if k == "field" {
			k = "record_field"
		}
		c = c.WithExtra(k, v)
	}
	return c.WithExtra("origin", origin)
}

// checkImported holds a record an import commit changes (rather than
// creates) to be one an import made of the same note, which nothing
// changed since its last import, changed by one import entry; its source
// stays that note (only its payload may change, an attachment's new
// content). commitCheck.finish holds the commit to its Evidence-Count.
func (vs *violations) checkImported(c RecordChange) {
	const fix = "change a record with its own ops (update, link, …); an import changes only what an import of the same note made, and nothing changed since"
	if c.Added() || c.New == nil {
		return
	}
	old, r := c.Old, c.New
	if old == nil || old.Source == nil || r.Source == nil || old.Source.Extension != importExtension ||
		r.Source.Extension != old.Source.Extension || r.Source.ExternalID != old.Source.ExternalID || r.Source.ExternalURL != old.Source.ExternalURL {
		vs.add(RuleOpMatches, c.ID, fix, "import commit changes record %s, which no import of the same note made", c.ID)
		return
	}
	if by := changedSinceImport(old); by != "" {
		vs.add(RuleOpMatches, c.ID, fix, "import commit changes record %s, changed since its last import (%s)", c.ID, by)
		return
	}
	if len(r.MutationLog) != len(old.MutationLog)+1 || r.MutationLog[len(old.MutationLog)].Op != string(OpImport) {
		vs.add(RuleMutationLog, c.ID, "an import appends one import entry to each record it changes", "import commit changes record %s without one import entry", c.ID)
	}
}
