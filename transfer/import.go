package transfer

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
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
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(units); i = int(next.Add(1) - 1) {
				u := &units[i]
				if u.unreadable != "" {
					continue
				}
				foreign := u.record == nil && !u.isRecord
				out[i] = wikilink.Scan([]byte(u.body), wikilink.ScanOptions{
					MarkdownLinks: foreign, Title: foreign, HashTags: foreign, ColonTags: foreign && kind.ColonTags})
			}
		}()
	}
	wg.Wait()
	return out
}

// Plan reads the source at p and maps it to the import op's input; the
// caller runs kernel.Import on it inside the store's write loop. Links are
// resolved against the notes read and then the store's handles (h). A
// note that cannot be read is reported in the report's skipped list (with
// opts.Strict, it fails the import).
func Plan(h Handles, p string, opts ImportOptions) (kernel.ImportInput, *Report, error) {
	if opts.Type == "" {
		opts.Type = "concept"
	}
	if opts.Category == "" {
		opts.Category = "notes"
	}
	if err := kernel.ValidateType(opts.Type); err != nil {
		return kernel.ImportInput{}, nil, kernel.Errorf(kernel.CodeUsage, "--type: %s", errorText(err))
	}
	if err := kernel.ValidateCategory(opts.Category); err != nil {
		return kernel.ImportInput{}, nil, kernel.Errorf(kernel.CodeUsage, "--category: %s", errorText(err))
	}
	src, err := readSource(p, opts.Format)
	if err != nil {
		return kernel.ImportInput{}, nil, err
	}
	abs, _ := filepath.Abs(p)
	rep := &Report{Source: src.format + " " + filepath.Base(abs), Format: src.format, Digest: src.digest, Read: len(src.units),
		Created: []Created{}, Updated: []Created{}, Skipped: []kernel.ImportSkip{}, Unresolved: []Unresolved{}, Attachments: []Attachment{}, Notices: []Notice{}}
	if src.format == FormatVault {
		// The evidence names the tool too: "obsidian vault notes".
		rep.Kind, rep.Source = src.kind.Name, src.kind.Name+" "+rep.Source
	}
	for _, u := range src.units {
		if u.unreadable != "" {
			rep.Skipped = append(rep.Skipped, kernel.ImportSkip{Origin: u.origin, Reason: kernel.SkipUnread, Code: kernel.CodeInvalidRecord, Message: u.unreadable})
		}
	}
	if left := rep.LeftOut(); opts.Strict && len(left) > 0 {
		return kernel.ImportInput{}, nil, strictError(left)
	}
	scans := scanAll(src.units, src.kind)
	now := time.Now()
	var cands []*candidate
	for i, u := range src.units {
		if u.unreadable != "" {
			continue
		}
		var c *candidate
		if u.record != nil || u.isRecord {
			c = mapRecord(u, src.kind, rep)
		} else {
			c = mapForeign(u, scans[i], src.kind, opts, now, rep)
		}
		c.scan = scans[i]
		cands = append(cands, c)
	}
	// Aliases first: a link whose label is one of its target's handles is
	// written as that handle ([[Welcome|home]] → [[home]]).
	deriveAliases(h, cands, rep)
	r := newResolver(h, cands, src.attachments, src.kind)
	taken := map[string]bool{}
	for _, c := range cands {
		taken[c.record.ID] = true
		for _, a := range c.record.Aliases {
			taken[a] = true
		}
	}
	var made []*candidate
	attach := func(t *target) *candidate {
		a, err := attachmentRecord(t.rel, t.file, opts)
		if err != nil {
			rep.Notices = append(rep.Notices, Notice{Origin: t.rel, Message: "attachment left out: " + errorText(err)})
			return nil
		}
		// Its file name's slug is its handle, when nothing else has it.
		if s := slug(path.Base(t.rel)); s != "" && !taken[s] && kernel.ValidateAlias(s) == nil {
			if owner, err := h.Resolve(s); err == nil && (owner == "" || owner == a.record.ID) {
				a.record.Aliases, taken[s] = []string{s}, true
			}
		}
		made = append(made, a)
		return a
	}
	for i, c := range cands {
		r.rewrite(i, rep, attach)
		if c.foreign {
			c.record.WrittenAs = writtenAs(c.written)
		}
	}
	takePayloads(cands, src)
	cands = append(cands, made...)
	in := kernel.ImportInput{Source: rep.Source, Digest: rep.Digest, Agent: opts.Agent, Session: opts.Session, Note: opts.Note, Strict: opts.Strict}
	for _, c := range cands {
		in.Items = append(in.Items, kernel.ImportItem{Origin: c.origin, Record: c.record, Payload: c.payload, Created: c.created, Updated: c.updated})
	}
	return in, rep, nil
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

// Finish completes the report with what the import decided: the records it
// created, those it updated and the ones it skipped.
func (rep *Report) Finish(commit string, m *kernel.Mutation, skips []kernel.ImportSkip, in kernel.ImportInput) {
	rep.Commit = commit
	origins := map[string]string{}
	for _, it := range in.Items {
		origins[it.Record.ID] = it.Origin
	}
	if m != nil {
		for _, r := range m.Writes {
			c := Created{ID: r.ID, Origin: origins[r.ID], Title: r.Title}
			if len(r.MutationLog) > 1 {
				rep.Updated = append(rep.Updated, c)
			} else {
				rep.Created = append(rep.Created, c)
			}
		}
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

// deriveAliases gives each foreign note handles: the slugs of its file
// name and title, and each of its own aliases made a handle (handleOf:
// kept as written where it is one, else its segments as slugs), so `git
// records show token-refresh` finds it. An alias that gives no handle,
// or whose handle two notes or a record of the store would share, is
// left out with a notice; the aliases as written stay in the record's
// properties, for export and display.
func deriveAliases(h Handles, cands []*candidate, rep *Report) {
	claims := map[string][]*candidate{}
	for _, c := range cands {
		if !c.foreign {
			continue // a record keeps its own aliases
		}
		seen := map[string]bool{}
		claim := func(s string) {
			if s != "" && !seen[s] && kernel.ValidateAlias(s) == nil {
				seen[s] = true
				claims[s] = append(claims[s], c)
			}
		}
		for _, n := range c.handleSources {
			claim(slug(n))
		}
		for _, a := range c.aliasesAsWritten {
			hd := handleOf(a)
			if hd == "" {
				rep.Notices = append(rep.Notices, Notice{Origin: c.origin, Message: "alias " + quote(a) + " gives no handle (a handle is lowercase letters, digits, '.', '_' and '-' in segments between '/'): it is kept as written in the note's properties"})
				continue
			}
			claim(hd)
		}
	}
	ids := map[string]bool{}
	for _, c := range cands {
		ids[c.record.ID] = true
	}
	for _, s := range sortedKeys(claims) {
		cs := claims[s]
		if len(cs) > 1 {
			var origins []string
			for _, c := range cs {
				origins = append(origins, c.origin)
			}
			rep.Notices = append(rep.Notices, Notice{Message: "alias " + quote(s) + " left out: it names " + strings.Join(origins, ", ")})
			continue
		}
		c := cs[0]
		if ids[s] && s != c.record.ID {
			continue
		}
		if owner, err := h.Resolve(s); err != nil || (owner != "" && owner != c.record.ID) {
			rep.Notices = append(rep.Notices, Notice{Origin: c.origin, Message: "alias " + quote(s) + " left out: the store already has a record by that name"})
			continue
		}
		if len(c.record.Aliases) < kernel.MaxAliases {
			c.record.Aliases = append(c.record.Aliases, s)
		} else {
			rep.Notices = append(rep.Notices, Notice{Origin: c.origin, Message: "alias " + quote(s) + " left out: a record holds at most " + strconv.Itoa(kernel.MaxAliases) + " aliases"})
		}
	}
	for _, c := range cands {
		sort.Strings(c.record.Aliases)
	}
}

// takePayloads gives a record file that names a payload the file beside
// it holding that payload (as export writes it).
func takePayloads(cands []*candidate, src *source) {
	for _, c := range cands {
		ref := payloadOf(c.record)
		if ref == "" || c.foreign {
			continue
		}
		// Only a regular file the walk found: never a symlink out of the source.
		if file, ok := src.attachments[payloadFile(strings.TrimSuffix(c.origin, path.Ext(c.origin)), c.record.Title)]; ok {
			if data, err := readBounded(file); err == nil && kernel.PayloadRef(data) == ref {
				c.payload = data
			}
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
