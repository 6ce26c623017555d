package transfer

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// ImportOptions say how to read a source and map foreign notes.
type ImportOptions struct {
	Format   string // vault, kk or jsonl; "" detects it
	Type     string // type of a foreign note whose front matter names none we know (default concept)
	Category string // category of foreign notes at the top of a folder; a subfolder adds segments (default notes)
	Agent    string
	Session  string
	Note     string
	// Strict refuses the whole import when any note cannot be read or
	// breaks a rule; otherwise such notes are skipped and reported.
	Strict bool
}

// Report is what an import did, for people and --json.
type Report struct {
	Source      string              `json:"source"`
	Format      string              `json:"format"`
	Kind        string              `json:"kind,omitempty"` // the tool a folder of notes was written with: obsidian, zk, foam, dendron, hugo, jekyll, notes
	Digest      string              `json:"digest"`
	Read        int                 `json:"read"` // notes or lines read
	Commit      string              `json:"commit,omitempty"`
	Created     []Created           `json:"created"`
	Updated     []Created           `json:"updated"` // records a new version of their note changed
	Skipped     []kernel.ImportSkip `json:"skipped"`
	Unresolved  []Unresolved        `json:"unresolved"`
	Attachments []Attachment        `json:"attachments"`
	Notices     []Notice            `json:"notices"`
}

// LeftOut are the notes the import skipped because they could not be
// read, broke a rule or conflict with a change made here (not those the
// store holds already).
func (rep *Report) LeftOut() []kernel.ImportSkip {
	var out []kernel.ImportSkip
	for _, s := range rep.Skipped {
		if s.LeftOut() {
			out = append(out, s)
		}
	}
	return out
}

// Created is one record the import creates.
type Created struct {
	ID     string `json:"id"`
	Origin string `json:"origin"`
	Title  string `json:"title"`
}

// Unresolved is a link the import could not resolve: it stays in the body
// as written (or in the links as given), and verify reports it as dangling.
type Unresolved struct {
	Origin string `json:"origin"`
	ID     string `json:"id"`
	Link   string `json:"link"`
	Reason string `json:"reason"`
}

// Attachment is a non-Markdown file a note embeds or links to: imported
// as a raw record whose payload is the file's content.
type Attachment struct {
	Origin  string `json:"origin"`  // the note embedding it
	Path    string `json:"path"`    // the file, relative to the source
	ID      string `json:"id"`      // the attachment's record
	Payload string `json:"payload"` // sha256:<hex>, stored at payloads/<hex> on the branch
}

// Notice is something the mapping did not keep, said once per key or note.
type Notice struct {
	Origin  string `json:"origin,omitempty"`
	Message string `json:"message"`
}

// Handles is what an import needs of the store: the handles its records
// already hold, to resolve links to them. A kernel.View is one.
type Handles interface {
	Resolve(handle string) (string, error)
}

// candidate is one unit mapped to a record, with the names links may use
// for it.
type candidate struct {
	origin string
	record *kernel.Record
	names  []string
	// foreign: a note of another tool (not a record of ours, of a
	// Knowledge Kit store or of JSONL): its aliases are derived, its
	// rewritten links kept as written.
	foreign bool
	// handleSources are the names whose slugs become aliases (file name,
	// title); aliasesAsWritten the note's own aliases, each made a handle
	// where one can be (handleOf).
	handleSources, aliasesAsWritten []string
	// created and updated: the note's own dates.
	created, updated *kernel.Timestamp
	// contractJSON: a contract record, whose links repeat its body's
	// wikilinks (contract §2.3); the record format keeps those in the body.
	contractJSON bool
	payload      []byte // an attachment's content, stored by hash with it
	// payloadRef and file: an attachment's, its content read again when
	// it is handed out.
	payloadRef, file string
	// scan is what the body holds (links, title, tags), parsed once.
	scan wikilink.Scanned
	// written are the links the import rewrote, each time, as the
	// source wrote them (writtenAs).
	written []kernel.WrittenLink
}

// scanAll parses every note's body on every core: the Markdown parse is
// most of what mapping a note costs.
func scanAll(units []unit, kind sourceKind) []wikilink.Scanned {
	out := make([]wikilink.Scanned, len(units))
	eachUnit(units, func(i int, u *unit) {
		foreign := u.record == nil && !u.isRecord
		out[i] = wikilink.Scan([]byte(u.body), wikilink.ScanOptions{
			MarkdownLinks: foreign, Title: foreign, HashTags: foreign, ColonTags: foreign && kind.ColonTags})
	})
	return out
}

// eachUnit runs fn on every readable unit, on every core.
func eachUnit(units []unit, fn func(i int, u *unit)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(units); i = int(next.Add(1) - 1) {
				if units[i].unreadable == "" {
					fn(i, &units[i])
				}
			}
		}()
	}
	wg.Wait()
}

// mapAll maps every readable unit to its candidate, on every core; the
// notices of each go to notices[i] (rep is read by no worker).
func (pl *ImportPlan) mapAll(units []unit) (cands []*candidate, notices [][]Notice) {
	scans := scanAll(units, pl.src.kind)
	cands, notices = make([]*candidate, len(units)), make([][]Notice, len(units))
	eachUnit(units, func(i int, u *unit) {
		own := &Report{}
		if u.record != nil || u.isRecord {
			cands[i] = mapRecord(*u, pl.src.kind, own)
		} else {
			cands[i] = mapForeign(*u, scans[i], pl.src.kind, pl.opts, pl.now, own)
		}
		cands[i].scan = scans[i]
		notices[i] = own.Notices
	})
	return cands, notices
}

// An import reads its source twice, a chunk of notes at a time, and holds
// neither pass's notes: resolving a link needs the names of every note,
// so the first reading (Plan) keeps only those, a compact table of each
// note's path, id, aliases and the sum of its bytes; the second (Items)
// maps each note again, resolves its links against the table and hands
// its record on to be decided and written. A note whose bytes changed in
// between is left out, as unreadable.

// ImportPlan is a source read for its names, to be read again note by
// note (Items) inside the store's write loop.
type ImportPlan struct {
	src  *source
	opts ImportOptions
	h    Handles
	now  time.Time
	in   kernel.ImportInput // its evidence; the items come from Items
	// notes are the source's notes (or lines) in order, by what the
	// first reading found.
	notes []noteName
	r     *resolver
	count int // notes (or lines) read
}

// noteName is what an import keeps of a note between its two readings.
type noteName struct {
	origin string
	id     string
	// aliases are the handles the record is given (sorted).
	aliases []string
	// sum is the start of the sha256 of its bytes: enough to tell that
	// they changed between the readings.
	sum uint64
	// unreadable: the first reading left it out. placed: links may name
	// it by its path, origin (a JSONL line has no place in a folder).
	unreadable, placed bool
}

// rel is the note's path where links may name it by path, else "".
func (n *noteName) rel() string {
	if n.placed {
		return n.origin
	}
	return ""
}

// shortSum is what a note's noteName keeps of the sum of its bytes.
func shortSum(sum [sha256.Size]byte) uint64 { return binary.BigEndian.Uint64(sum[:8]) }

// Plan reads the source at p for the names of its notes and returns the
// import to run: kernel.NewImporter takes its Input, and Items hands out
// its records inside the store's write loop. Links are resolved against
// the notes read and then the store's handles (h). A note that cannot be
// read is reported in the report's skipped list (with opts.Strict, it
// fails the import).
func Plan(h Handles, p string, opts ImportOptions) (*ImportPlan, *Report, error) {
	if opts.Type == "" {
		opts.Type = "concept"
	}
	if opts.Category == "" {
		opts.Category = "notes"
	}
	if err := kernel.ValidateType(opts.Type); err != nil {
		return nil, nil, kernel.Errorf(kernel.CodeUsage, "--type: %s", errorText(err))
	}
	if err := kernel.ValidateCategory(opts.Category); err != nil {
		return nil, nil, kernel.Errorf(kernel.CodeUsage, "--category: %s", errorText(err))
	}
	src, err := readSource(p, opts.Format)
	if err != nil {
		return nil, nil, err
	}
	pl := &ImportPlan{src: src, opts: opts, h: h, now: time.Now()}
	abs, _ := filepath.Abs(p)
	rep := &Report{Source: src.format + " " + filepath.Base(abs), Format: src.format,
		Created: []Created{}, Updated: []Created{}, Skipped: []kernel.ImportSkip{}, Unresolved: []Unresolved{}, Attachments: []Attachment{}, Notices: []Notice{}}
	if src.format == FormatVault {
		// The evidence names the tool too: "obsidian vault notes".
		rep.Kind, rep.Source = src.kind.Name, src.kind.Name+" "+rep.Source
	}
	if err := pl.readNames(rep); err != nil {
		return nil, nil, err
	}
	pl.in = kernel.ImportInput{Source: rep.Source, Digest: rep.Digest, Agent: opts.Agent, Session: opts.Session, Note: opts.Note, Strict: opts.Strict}
	return pl, rep, nil
}

// readNames is the first reading of the source: the table of the
// notes' names and the resolver over it (rep hears what the reading finds).
func (pl *ImportPlan) readNames(rep *Report) error {
	claims := aliasClaims{}
	var mapped []Notice // the mapping's notices come before those of the aliases
	digest := sha256.New()
	pl.notes = make([]noteName, 0, len(pl.src.notes)) // a folder's, known; a JSONL file's grow
	err := pl.src.readChunks(digest, func(first int, units []unit) error {
		cands, notices := pl.mapAll(units)
		for i, u := range units {
			if u.unreadable != "" {
				rep.Skipped = append(rep.Skipped, kernel.ImportSkip{Origin: u.origin, Reason: kernel.SkipUnread, Code: kernel.CodeInvalidRecord, Message: u.unreadable})
				pl.notes = append(pl.notes, noteName{origin: u.origin, unreadable: true})
				continue
			}
			mapped = append(mapped, notices[i]...)
			c := cands[i]
			n := noteName{origin: u.origin, sum: shortSum(u.sum), id: c.record.ID, aliases: c.record.Aliases,
				placed: !c.contractJSON && isNote(u.origin)}
			claims.note(len(pl.notes), c)
			pl.notes = append(pl.notes, n)
			claims.names = append(claims.names, append(c.names, c.record.ID, c.record.Title))
		}
		return nil
	})
	if err != nil {
		return err
	}
	pl.count = len(pl.notes)
	rep.Read = len(pl.notes)
	rep.Digest = "sha256:" + hex.EncodeToString(digest.Sum(nil))
	rep.Notices = append(mapped, rep.Notices...)
	if left := rep.LeftOut(); pl.opts.Strict && len(left) > 0 {
		return strictError(left)
	}
	// Aliases first: a link whose label is one of its target's handles is
	// written as that handle ([[Welcome|home]] → [[home]]).
	ids := sortedIDs(pl.notes)
	claims.derive(pl.h, pl.notes, ids, rep)
	pl.r = newResolver(pl.h, pl.notes, ids, claims.names, pl.src.attachments, pl.src.kind)
	return nil
}

// names is the table of the notes' names for a reading of the notes: the
// one the first reading made, or, once a whole reading gave it up, read
// again, from a source that must not have changed since.
func (pl *ImportPlan) names() error {
	if pl.r != nil {
		return nil
	}
	again := &Report{}
	if err := pl.readNames(again); err != nil {
		return err
	}
	if again.Digest != pl.in.Digest {
		return kernel.Errorf(kernel.CodeConflict, "%s changed while it was imported, so nothing was: import it again", pl.src.root)
	}
	return nil
}

// Input is the import's input, without its items.
func (pl *ImportPlan) Input() kernel.ImportInput { return pl.in }

// Notes is the number of notes (or lines) the source holds.
func (pl *ImportPlan) Notes() int { return pl.count }

// Items reads the source again and hands out the import's items in order,
// a batch at a time, each note's links resolved; after a chunk's notes come
// the attachments they link to first. part hears what this reading finds:
// the links left unresolved, the attachments, what they did not keep, and
// the notes that changed since the first reading (refused with Strict).
// Each call reads the source anew (the write loop may decide an import
// again on a new tip).
func (pl *ImportPlan) Items(part *Report) iter.Seq2[[]kernel.ImportItem, error] {
	return func(yield func([]kernel.ImportItem, error) bool) {
		if err := pl.names(); err != nil {
			yield(nil, err)
			return
		}
		r := pl.r.forReading()
		stopped := errors.New("the reader stopped")
		var batch []kernel.ImportItem
		size := 0
		emit := func(it kernel.ImportItem) error {
			batch = append(batch, it)
			if size += len(it.Record.Body) + len(it.Payload); len(batch) == chunkNotes || size >= chunkBytes {
				return flush(&batch, &size, yield, stopped)
			}
			return nil
		}
		err := pl.src.readChunks(nil, func(first int, units []unit) error {
			cands, _ := pl.mapAll(units)
			var made []*candidate
			attach := func(t *target) *candidate {
				a := pl.attachment(r, t, part)
				if a != nil {
					made = append(made, a)
				}
				return a
			}
			for i, u := range units {
				ni := first + i
				n := &pl.notes[ni]
				if n.unreadable {
					continue
				}
				if u.unreadable != "" || shortSum(u.sum) != n.sum {
					skip := kernel.ImportSkip{Origin: u.origin, Reason: kernel.SkipUnread, Code: kernel.CodeInvalidRecord,
						Message: "it changed while it was imported: import again"}
					if pl.opts.Strict {
						return strictError([]kernel.ImportSkip{skip})
					}
					part.Skipped = append(part.Skipped, skip)
					continue
				}
				c := cands[i]
				// The table's strings, not the reading's copies of them:
				// the records written keep them in the report and the
				// kernel's claims.
				if c.record.ID == n.id {
					c.record.ID = n.id
				}
				c.record.Aliases = slices.Clone(n.aliases)
				r.rewrite(ni, c, part, attach)
				if c.foreign {
					c.record.WrittenAs = writtenAs(c.written)
				}
				pl.takePayload(c)
				if err := emit(c.item()); err != nil {
					return err
				}
			}
			// The attachments the chunk's notes link to first, each read
			// again now: none is held while the notes are read.
			for _, a := range made {
				it, err := pl.reread(a, part)
				if err != nil {
					return err
				}
				if it.Record == nil {
					continue
				}
				if err := emit(it); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			// Read whole: the writer judges and writes the commit next,
			// without the table (a new decision reads it again).
			pl.notes, pl.r = nil, nil
			err = flush(&batch, &size, yield, stopped)
		}
		if err != nil && err != stopped {
			yield(nil, err)
		}
	}
}

// flush hands out the batch, if any.
func flush(batch *[]kernel.ImportItem, size *int, yield func([]kernel.ImportItem, error) bool, stopped error) error {
	if len(*batch) == 0 {
		return nil
	}
	out := *batch
	*batch, *size = nil, 0
	if !yield(out, nil) {
		return stopped
	}
	return nil
}

func (c *candidate) item() kernel.ImportItem {
	return kernel.ImportItem{Origin: c.origin, Record: c.record, Payload: c.payload, Created: c.created, Updated: c.updated}
}

// attachment makes the record of a file a note links to, when first
// linked; its content is read again when it is handed out (reread).
func (pl *ImportPlan) attachment(r *resolver, t *target, part *Report) *candidate {
	a, err := attachmentRecord(t.rel, t.file, pl.opts)
	if err != nil {
		part.Notices = append(part.Notices, Notice{Origin: t.rel, Message: "attachment left out: " + errorText(err)})
		return nil
	}
	// Its file name's slug is its handle, when nothing else has it.
	if s := slug(path.Base(t.rel)); s != "" && !r.taken(s) && kernel.ValidateAlias(s) == nil {
		if owner, err := pl.h.Resolve(s); err == nil && (owner == "" || owner == a.record.ID) {
			a.record.Aliases = []string{s}
			r.take(s)
		}
	}
	a.payloadRef, a.payload = kernel.PayloadRef(a.payload), nil
	a.file = t.file
	return a
}

// reread reads an attachment's content again to hand it out; one that
// changed since it was first read is left out (an empty item).
func (pl *ImportPlan) reread(a *candidate, part *Report) (kernel.ImportItem, error) {
	data, err := readBounded(a.file)
	if err == nil && kernel.PayloadRef(data) != a.payloadRef {
		err = kernel.Errorf(kernel.CodeInvalidRecord, "it changed while it was imported: import again")
	}
	if err != nil {
		skip := kernel.ImportSkip{Origin: a.origin, ID: a.record.ID, Reason: kernel.SkipUnread, Code: kernel.CodeInvalidRecord, Message: errorText(err)}
		if pl.opts.Strict {
			return kernel.ImportItem{}, strictError([]kernel.ImportSkip{skip})
		}
		part.Skipped = append(part.Skipped, skip)
		return kernel.ImportItem{}, nil
	}
	a.payload = data
	return a.item(), nil
}

// strictError is --strict's refusal: the notes that would be left out.
func strictError(left []kernel.ImportSkip) error {
	var lines []string
	for i, s := range left {
		if i == 5 {
			lines = append(lines, fmt.Sprintf("and %d more", len(left)-5))
			break
		}
		lines = append(lines, s.Origin+": "+s.Message)
	}
	return kernel.Errorf(kernel.CodeInvalidRecord, "--strict: %s cannot be imported, so nothing is: %s", plural(len(left), "note"), strings.Join(lines, "; ")).
		WithExtra("origin", left[0].Origin).WithExtra("skipped", left)
}

// Decided adds the records an import writes to the report, as they are
// decided: those it creates and those it updates.
func (rep *Report) Decided(writes []kernel.ImportWrite) {
	for _, w := range writes {
		c := Created{ID: w.Record.ID, Origin: w.Origin, Title: w.Record.Title}
		if len(w.Record.MutationLog) > 1 {
			rep.Updated = append(rep.Updated, c)
		} else {
			rep.Created = append(rep.Created, c)
		}
	}
}

// Finish completes the report with what an import's reading found and
// decided (part: the records written and what the reading of the notes
// found, Decided and Items), the records it left out after all (dropped)
// and the items it skipped.
func (rep *Report) Finish(commit string, part *Report, dropped map[string]bool, skips []kernel.ImportSkip) {
	rep.Commit = commit
	if part != nil {
		kept := func(cs []Created) []Created {
			out := cs[:0]
			for _, c := range cs {
				if !dropped[c.ID] {
					out = append(out, c)
				}
			}
			return out
		}
		rep.Created = append(rep.Created, kept(part.Created)...)
		rep.Updated = append(rep.Updated, kept(part.Updated)...)
		rep.Skipped = append(rep.Skipped, part.Skipped...)
		rep.Unresolved = append(rep.Unresolved, part.Unresolved...)
		rep.Attachments = append(rep.Attachments, part.Attachments...)
		rep.Notices = append(rep.Notices, part.Notices...)
	}
	rep.Skipped = append(rep.Skipped, skips...)
}

// mapRecord maps a unit that is a record (a record file of ours, a
// Knowledge Kit store's record, a JSONL line): it keeps its fields as
// they are; front matter keys the record format does not have are kept in
// its properties. A record file of an imported note (as export writes one
// changed since its import) is named by its note's aliases as written
// too, as the note was.
func mapRecord(u unit, kind sourceKind, rep *Report) *candidate {
	stem := strings.TrimSuffix(path.Base(u.origin), path.Ext(u.origin))
	noExt := strings.TrimSuffix(u.origin, path.Ext(u.origin))
	if u.record != nil {
		r := u.record.Clone()
		names := append([]string{r.ID, r.Title, stem, noExt}, r.Aliases...)
		return &candidate{origin: u.origin, record: r, names: append(names, aliasesAsWritten(r.Properties, kind)...)}
	}
	r := decodeLenient(u, rep)
	if isNote(u.origin) {
		return &candidate{origin: u.origin, record: r, names: append([]string{r.ID, r.Title, stem, noExt}, r.Aliases...)}
	}
	return &candidate{origin: u.origin, record: r, names: append([]string{r.ID, r.Title}, r.Aliases...), contractJSON: true}
}

// recordKeys are the front matter keys of the record format (its JSON
// names, which the YAML names equal). Built on first use: only import
// needs them, and a package-level map built by reflection would be built
// at the start of every git-records process.
var recordKeys = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeOf(kernel.Record{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[name] = true
	}
	return out
})

// decodeLenient reads a record from front matter that is not canonical
// (a Knowledge Kit store's file, a JSON line): keys the record format does
// not have go to its properties; the rest decodes as the record JSON. A
// field that does not decode is reported and left to its default (the
// kernel then judges the record).
func decodeLenient(u unit, rep *Report) *kernel.Record {
	var r kernel.Record
	other := map[string]any{}
	for _, k := range sortedKeys(u.front) {
		v := u.front[k]
		if !recordKeys()[k] || k == "body" || k == "properties" {
			other[k] = v
			continue
		}
		data, err := json.Marshal(map[string]any{k: jsonable(v)})
		if err == nil {
			err = json.Unmarshal(data, &r)
		}
		if err != nil {
			rep.Notices = append(rep.Notices, Notice{Origin: u.origin, Message: "field " + quote(k) + " does not read as the record's: " + err.Error()})
		}
	}
	if p, ok := other["properties"].(map[string]any); ok {
		delete(other, "properties")
		for k, v := range p {
			if _, taken := other[k]; !taken {
				other[k] = v
			}
		}
	}
	r.Properties = kernel.NormalizeProperties(other)
	r.Body = u.body
	return &r
}

// jsonable turns what YAML and TOML decoders give into what encoding/json
// writes as the record JSON has it (times as the record format's stamps).
func jsonable(v any) any {
	switch x := v.(type) {
	case time.Time:
		return kernel.At(x).String()
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return out
	case []map[string]any: // TOML arrays of tables
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return out
	}
	return v
}

func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case time.Time:
		return kernel.At(x).String()
	}
	data, _ := json.Marshal(jsonable(v))
	return string(data)
}

// stringsOf reads a list of strings, or one string of comma- or
// space-separated items (tags: "a, b" or "a b").
func stringsOf(v any) []string {
	switch x := v.(type) {
	case []any:
		var out []string
		for _, e := range x {
			if s := strings.TrimSpace(stringOf(e)); s != "" {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return x
	case string:
		return strings.FieldsFunc(x, func(r rune) bool { return r == ',' })
	}
	return nil
}

// derivedID is a foreign note's id: 26 base32 characters of
// sha256(path), as random-looking as a generated id (8 characters still
// tell records apart) and the same every time the same path is imported.
func derivedID(origin string) string {
	sum := sha256.Sum256([]byte("git-records import\x00" + origin))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:])[:26])
}

// folderCategory is root plus the note's folders as category segments.
func folderCategory(root, dir string) string {
	c := root
	if dir == "." {
		return c
	}
	for _, seg := range strings.Split(dir, "/") {
		if s := slug(seg); s != "" {
			c += "." + s
		}
	}
	return c
}

// slug lowers s to the characters handles allow: ASCII letters and digits
// kept, runs of anything else one '-'.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteRune('-')
			}
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// The aliases of foreign notes: each is given handles, the slugs of its
// file name and title, and each of its own aliases made a handle
// (handleOf: kept as written where it is one, else its segments as
// slugs), so `git records show token-refresh` finds it. An alias that
// gives no handle, or whose handle two notes or a record of the store
// would share, is left out with a notice; the aliases as written stay in
// the record's properties, for export and display.

// aliasClaims are the handles the foreign notes claim, gathered note by
// note as an import first reads its source, and the names links may use
// for each note (for the resolver).
type aliasClaims struct {
	claims   map[string][]int32 // handle -> the notes claiming it
	noHandle []Notice           // the aliases that give no handle, in note order
	names    [][]string         // by note
}

// note adds the handles note i (mapped to c) claims.
func (a *aliasClaims) note(i int, c *candidate) {
	if !c.foreign {
		return // a record keeps its own aliases
	}
	if a.claims == nil {
		a.claims = map[string][]int32{}
	}
	seen := map[string]bool{}
	claim := func(s string) {
		if s != "" && !seen[s] && kernel.ValidateAlias(s) == nil {
			seen[s] = true
			a.claims[s] = append(a.claims[s], int32(i))
		}
	}
	for _, n := range c.handleSources {
		claim(slug(n))
	}
	for _, w := range c.aliasesAsWritten {
		hd := handleOf(w)
		if hd == "" {
			a.noHandle = append(a.noHandle, Notice{Origin: c.origin, Message: "alias " + quote(w) + " gives no handle (a handle is lowercase letters, digits, '.', '_' and '-' in segments between '/'): it is kept as written in the note's properties"})
			continue
		}
		claim(hd)
	}
}

// derive gives each note the handles it alone claims (ids: every note's,
// sorted) and sorts every note's aliases.
func (a *aliasClaims) derive(h Handles, notes []noteName, ids []string, rep *Report) {
	rep.Notices = append(rep.Notices, a.noHandle...)
	for _, s := range sortedKeys(a.claims) {
		cs := a.claims[s]
		if len(cs) > 1 {
			var origins []string
			for _, i := range cs {
				origins = append(origins, notes[i].origin)
			}
			rep.Notices = append(rep.Notices, Notice{Message: "alias " + quote(s) + " left out: it names " + strings.Join(origins, ", ")})
			continue
		}
		n := &notes[cs[0]]
		if k, ok := slices.BinarySearch(ids, s); ok && ids[k] != n.id {
			continue
		}
		if owner, err := h.Resolve(s); err != nil || (owner != "" && owner != n.id) {
			rep.Notices = append(rep.Notices, Notice{Origin: n.origin, Message: "alias " + quote(s) + " left out: the store already has a record by that name"})
			continue
		}
		if len(n.aliases) < kernel.MaxAliases {
			n.aliases = append(n.aliases, s)
		} else {
			rep.Notices = append(rep.Notices, Notice{Origin: n.origin, Message: "alias " + quote(s) + " left out: a record holds at most " + strconv.Itoa(kernel.MaxAliases) + " aliases"})
		}
	}
	a.claims = nil
	for i := range notes {
		slices.Sort(notes[i].aliases)
	}
}

// sortedIDs are the ids of the notes read, sorted.
func sortedIDs(notes []noteName) []string {
	var ids []string
	for _, n := range notes {
		if !n.unreadable {
			ids = append(ids, n.id)
		}
	}
	slices.Sort(ids)
	return ids
}

// takePayload gives a record file that names a payload the file beside
// it holding that payload (as export writes it).
func (pl *ImportPlan) takePayload(c *candidate) {
	ref := payloadOf(c.record)
	if ref == "" || c.foreign {
		return
	}
	// Only a regular file the walk found: never a symlink out of the source.
	if file, ok := pl.src.attachments[payloadFile(strings.TrimSuffix(c.origin, path.Ext(c.origin)), c.record.Title)]; ok {
		if data, err := readBounded(file); err == nil && kernel.PayloadRef(data) == ref {
			c.payload = data
		}
	}
}

func payloadOf(r *kernel.Record) string {
	if r.Source == nil {
		return ""
	}
	return r.Source.Payload
}

// rewriteSpans replaces the wikilinks f rewrites (spans are body's),
// leaving the rest of the body byte for byte.
func rewriteSpans(body string, spans []wikilink.Span, f func(s wikilink.Span, raw string) (string, bool)) string {
	if len(spans) == 0 {
		return body
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.Start < last {
			continue // inside a link already rewritten (a wikilink in a Markdown link's text)
		}
		raw := body[s.Start:s.End]
		repl, ok := f(s, raw)
		if !ok {
			continue
		}
		b.WriteString(body[last:s.Start])
		b.WriteString(repl)
		last = s.End
	}
	if last == 0 {
		return body
	}
	b.WriteString(body[last:])
	return b.String()
}

// formatLink writes a wikilink the wikilink parser reads back the same;
// tablePipe writes the label separator as `\|`, as a GFM table needs.
func formatLink(embed bool, target, heading, label string, tablePipe bool) string {
	var b strings.Builder
	if embed {
		b.WriteByte('!')
	}
	b.WriteString("[[")
	b.WriteString(escapeLink(target))
	if heading != "" {
		b.WriteByte('#')
		b.WriteString(escapeLink(heading))
	}
	if label != "" {
		if tablePipe {
			b.WriteString(`\|`)
		} else {
			b.WriteByte('|')
		}
		b.WriteString(escapeLink(label))
	}
	b.WriteString("]]")
	return b.String()
}

// escapeLink escapes what would end or split a wikilink part.
func escapeLink(s string) string {
	if !strings.ContainsAny(s, `\|[]#`+"`") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\|[]#`+"`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func quote(s string) string { data, _ := json.Marshal(s); return string(data) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func errorText(err error) string {
	if e, ok := err.(*kernel.Error); ok {
		return e.Message
	}
	return err.Error()
}

var decodeCanonical = gitstore.DecodeRecord
