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
}

// Report is what an import did, for people and --json.
type Report struct {
	Source      string              `json:"source"`
	Format      string              `json:"format"`
	Digest      string              `json:"digest"`
	Read        int                 `json:"read"` // notes or lines read
	Commit      string              `json:"commit,omitempty"`
	Created     []Created           `json:"created"`
	Skipped     []kernel.ImportSkip `json:"skipped"`
	Unresolved  []Unresolved        `json:"unresolved"`
	Attachments []Attachment        `json:"attachments"`
	Notices     []Notice            `json:"notices"`
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
	// contractJSON: a contract record, whose links repeat its body's
	// wikilinks (contract §2.3); the record format keeps those in the body.
	contractJSON bool
	payload      []byte // an attachment's content, stored by hash with it
	// spans are the wikilinks of the record's body as read (before
	// rewrite), parsed once for attachments and rewrite.
	spans     []wikilink.Span
	spansRead bool
}

// bodySpans are the wikilinks of c's body as read.
func (c *candidate) bodySpans() []wikilink.Span {
	if !c.spansRead {
		c.spans, c.spansRead = wikilink.Spans([]byte(c.record.Body)), true
	}
	return c.spans
}

// readSpans parses the bodies' wikilinks on every core: the Markdown parse
// is most of what mapping a note costs.
func readSpans(cands []*candidate) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(cands); i = int(next.Add(1) - 1) {
				cands[i].bodySpans()
			}
		}()
	}
	wg.Wait()
}

// Plan reads the source at p and maps it to the import op's input; the
// caller runs kernel.Import on it inside the store's write loop. Links are
// resolved against the notes read and then the store's handles (h).
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
		Created: []Created{}, Skipped: []kernel.ImportSkip{}, Unresolved: []Unresolved{}, Attachments: []Attachment{}, Notices: []Notice{}}
	unmapped := map[string]int{}
	var cands []*candidate
	for _, u := range src.units {
		c, err := mapUnit(u, opts, unmapped, rep)
		if err != nil {
			return kernel.ImportInput{}, nil, err
		}
		if c != nil {
			cands = append(cands, c)
		}
	}
	for _, k := range sortedKeys(unmapped) {
		rep.Notices = append(rep.Notices, Notice{Message: "front matter key " + quote(k) + " has no record field and is left out (" + plural(unmapped[k], "note") + ")"})
	}
	readSpans(cands)
	cands = append(cands, attachments(cands, src, opts, rep)...)
	// Aliases first: a link whose label is one of its target's handles is
	// written as that handle ([[Welcome|home]] → [[home]]).
	deriveAliases(h, cands, rep)
	r := newResolver(h, cands)
	for _, c := range cands {
		r.rewrite(c, rep)
	}
	in := kernel.ImportInput{Source: rep.Source, Digest: rep.Digest, Agent: opts.Agent, Session: opts.Session, Note: opts.Note}
	for _, c := range cands {
		in.Items = append(in.Items, kernel.ImportItem{Origin: c.origin, Record: c.record, Payload: c.payload})
	}
	return in, rep, nil
}

// Finish completes the report with what the import decided: the records it
// created and the ones it skipped.
func (rep *Report) Finish(commit string, m *kernel.Mutation, skips []kernel.ImportSkip, in kernel.ImportInput) {
	rep.Commit = commit
	origins := map[string]string{}
	for _, it := range in.Items {
		origins[it.Record.ID] = it.Origin
	}
	if m != nil {
		for _, r := range m.Writes {
			rep.Created = append(rep.Created, Created{ID: r.ID, Origin: origins[r.ID], Title: r.Title})
		}
	}
	if skips != nil {
		rep.Skipped = skips
	}
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

// mapUnit maps one unit to a candidate record; nil for a note left out.
//
// A unit that is a record (a canonical record file, or front matter or a
// JSON line with an id) keeps its fields as they are. A foreign note (no
// id) is mapped: title from title or the file name; type from type when
// it names a record type, else --type; category from category when valid,
// else --category plus the note's folders; tags from tags/tag; aliases
// from aliases/alias; its id derived from its path, so importing the same
// folder again finds the same records.
func mapUnit(u unit, opts ImportOptions, unmapped map[string]int, rep *Report) (*candidate, error) {
	stem := strings.TrimSuffix(path.Base(u.origin), path.Ext(u.origin))
	noExt := strings.TrimSuffix(u.origin, path.Ext(u.origin))
	if u.record != nil {
		r := u.record.Clone()
		return &candidate{origin: u.origin, record: r, names: append([]string{r.ID, r.Title, stem, noExt}, r.Aliases...)}, nil
	}
	if strings.TrimSpace(u.body) == "" {
		rep.Notices = append(rep.Notices, Notice{Origin: u.origin, Message: "empty note left out: a record needs a body"})
		return nil, nil
	}
	if _, ok := u.front["id"]; ok {
		r, err := decodeLenient(u, unmapped)
		if err != nil {
			return nil, err
		}
		if isNote(u.origin) {
			return &candidate{origin: u.origin, record: r, names: append([]string{r.ID, r.Title, stem, noExt}, r.Aliases...)}, nil
		}
		return &candidate{origin: u.origin, record: r, names: append([]string{r.ID, r.Title}, r.Aliases...), contractJSON: true}, nil
	}
	r := &kernel.Record{ID: derivedID(u.origin), Type: opts.Type, Body: u.body,
		Source: &kernel.Source{Extension: "import", ExternalID: u.origin}}
	names := []string{stem, noExt}
	for k, v := range u.front {
		switch strings.ToLower(k) {
		case "title":
			r.Title = strings.TrimSpace(stringOf(v))
		case "type":
			if t := stringOf(v); t != "" {
				if _, ok := kernel.LookupType(t); ok {
					r.Type = t
				} else {
					rep.Notices = append(rep.Notices, Notice{Origin: u.origin, Message: "type " + quote(t) + " is not a record type: imported as " + opts.Type + " (--type)"})
				}
			}
		case "category":
			if c := stringOf(v); kernel.ValidateCategory(c) == nil {
				r.Category = c
			} else {
				rep.Notices = append(rep.Notices, Notice{Origin: u.origin, Message: "category " + quote(c) + " is not a category (dot-separated, lowercase): the folder's is used"})
			}
		case "tags", "tag":
			for _, t := range stringsOf(v) {
				if t = strings.TrimPrefix(strings.TrimSpace(t), "#"); t != "" {
					r.Tags = append(r.Tags, t)
				}
			}
		case "aliases", "alias":
			names = append(names, stringsOf(v)...)
		default:
			unmapped[k]++
		}
	}
	if r.Title == "" {
		r.Title = stem
	}
	names = append(names, r.Title)
	if r.Category == "" {
		r.Category = folderCategory(opts.Category, path.Dir(u.origin))
	}
	return &candidate{origin: u.origin, record: r, names: names}, nil
}

// decodeLenient reads a record from front matter that is not canonical
// (a Knowledge Kit store's file, a JSON line): keys the record format does
// not have are left out and counted; the rest decodes as the record JSON.
func decodeLenient(u unit, unmapped map[string]int) (*kernel.Record, error) {
	known := map[string]any{}
	for k, v := range u.front {
		if recordKeys()[k] && k != "body" {
			known[k] = jsonable(v)
		} else {
			unmapped[k]++
		}
	}
	data, err := json.Marshal(known)
	if err != nil {
		return nil, kernel.Errorf(kernel.CodeInvalidRecord, "%s: its front matter does not read as a record: %v", u.origin, err).WithExtra("origin", u.origin)
	}
	var r kernel.Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, kernel.Errorf(kernel.CodeInvalidRecord, "%s: its front matter does not read as a record: %v", u.origin, err).WithExtra("origin", u.origin)
	}
	r.Body = u.body
	return &r, nil
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

// deriveAliases gives each foreign note the slugs of its file name, title
// and aliases as aliases, so `git records show token-refresh` finds it,
// leaving out (with a notice) a slug two notes would share or a record of
// the store already holds.
func deriveAliases(h Handles, cands []*candidate, rep *Report) {
	claims := map[string][]*candidate{}
	for _, c := range cands {
		if c.record.Source == nil || c.record.Source.Extension != "import" || c.record.Source.ExternalID != c.origin {
			continue // a record keeps its own aliases
		}
		seen := map[string]bool{}
		for _, n := range c.names {
			if strings.Contains(n, "/") {
				continue // a path: its file name is a name too
			}
			s := slug(n)
			if s == "" || seen[s] || kernel.ValidateAlias(s) != nil {
				continue
			}
			seen[s] = true
			claims[s] = append(claims[s], c)
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
		}
	}
	for _, c := range cands {
		sort.Strings(c.record.Aliases)
	}
}

// resolver turns the names links use into ids: the notes' own names
// first (file path, file name, title, aliases; case-insensitive, as
// Obsidian matches them), then the store's handles.
type resolver struct {
	store   Handles
	names   map[string][]string // lower-cased name -> ids
	handles map[string]map[string]bool
	ids     []string // sorted
}

func newResolver(h Handles, cands []*candidate) *resolver {
	r := &resolver{store: h, names: map[string][]string{}, handles: map[string]map[string]bool{}}
	for _, c := range cands {
		id := c.record.ID
		hs := map[string]bool{id: true}
		for _, a := range c.record.Aliases {
			hs[a] = true
		}
		r.handles[id] = hs
		r.ids = append(r.ids, id)
		for _, n := range append(c.names, id) {
			k := strings.ToLower(strings.TrimSpace(n))
			if k == "" || containsString(r.names[k], id) {
				continue
			}
			r.names[k] = append(r.names[k], id)
		}
	}
	sort.Strings(r.ids)
	return r
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isHandle reports whether h names the record id in the store's terms:
// its id, an alias, or an id prefix of 8+ characters no other record of
// the import shares.
func (r *resolver) isHandle(h, id string) bool {
	if h == id || r.handles[id][h] {
		return true
	}
	if len(h) < 8 || !strings.HasPrefix(id, h) {
		return false
	}
	i := sort.SearchStrings(r.ids, h)
	return i+1 >= len(r.ids) || !strings.HasPrefix(r.ids[i+1], h)
}

// resolve finds the record a link target names; reason says why not.
func (r *resolver) resolve(target string) (id, reason string) {
	t := strings.TrimSpace(target)
	for _, k := range []string{t, strings.TrimSuffix(t, path.Ext(t)), path.Base(t)} {
		switch ids := r.names[strings.ToLower(k)]; len(ids) {
		case 0:
			continue
		case 1:
			return ids[0], ""
		default:
			return "", "ambiguous: " + strings.Join(ids, ", ") + " all have that name"
		}
	}
	if r.store != nil {
		id, err := r.store.Resolve(t)
		if err != nil {
			return "", errorText(err)
		}
		if id != "" {
			return id, ""
		}
	}
	return "", "no note or record has that name"
}

// rewrite resolves a candidate's links: body wikilinks and embeds to ids,
// frontmatter links and relation ends to ids; what does not resolve stays
// as written and is reported.
func (r *resolver) rewrite(c *candidate, rep *Report) {
	rec := c.record
	unresolved := func(link, reason string) {
		rep.Unresolved = append(rep.Unresolved, Unresolved{Origin: c.origin, ID: rec.ID, Link: link, Reason: reason})
	}
	rec.Body = rewriteSpans(rec.Body, c.bodySpans(), func(s wikilink.Span, raw string) (string, bool) {
		id, reason := r.resolve(s.Target)
		if id == "" {
			unresolved(raw, reason)
			return "", false
		}
		label := s.Label
		if label == "" {
			label = s.Target
		}
		// The shortest form that shows the same text: [[Name|home]] where
		// home is a handle of the record becomes [[home]]; a target that is
		// already a handle stays.
		if r.isHandle(label, id) {
			if s.Label == "" {
				return "", false
			}
			return formatLink(s.Embed, label, s.Heading, "", strings.Contains(raw, `\|`)), true
		}
		if r.isHandle(s.Target, id) {
			return "", false
		}
		return formatLink(s.Embed, id, s.Heading, label, strings.Contains(raw, `\|`)), true
	})
	inBody := map[string]bool{}
	if c.contractJSON {
		for _, l := range wikilink.Extract([]byte(rec.Body)) {
			if id, _ := r.resolve(l.Target); id != "" {
				inBody[id] = true
			}
		}
	}
	links := rec.Links[:0]
	for _, l := range rec.Links {
		if id, reason := r.resolve(l.TargetID); id != "" {
			l.TargetID = id
		} else {
			unresolved(l.Kind+":"+l.TargetID, reason)
		}
		if l.Kind == kernel.LinkRelated && inBody[l.TargetID] {
			continue // the body has it
		}
		links = append(links, l)
	}
	rec.Links = links
	for _, end := range []*string{&rec.From, &rec.To} {
		if *end == "" {
			continue
		}
		if id, reason := r.resolve(*end); id != "" {
			*end = id
		} else {
			unresolved("relation end "+*end, reason)
		}
	}
}

// attachments makes a record of each non-Markdown file a note embeds or
// links to (an image, a PDF): type raw, titled by the file name, its
// content stored once by hash as the record's payload, so the note's
// ![[diagram.png]] becomes a link to it. A record file that names a
// payload takes it from the file beside it (as export writes it).
func attachments(cands []*candidate, src *source, opts ImportOptions, rep *Report) []*candidate {
	notes := map[string]bool{}
	for _, c := range cands {
		for _, n := range c.names {
			notes[strings.ToLower(n)] = true
		}
	}
	files := map[string][]string{} // lower-cased path and file name -> relative paths
	for rel := range src.attachments {
		for _, k := range []string{strings.ToLower(rel), strings.ToLower(path.Base(rel))} {
			files[k] = append(files[k], rel)
		}
	}
	read := func(rel string) []byte {
		data, err := readBounded(src.attachments[rel])
		if err != nil || len(data) > kernel.MaxPayloadBytes {
			rep.Notices = append(rep.Notices, Notice{Origin: rel, Message: "attachment left out: it cannot be read or is over the payload limit"})
			return nil
		}
		return data
	}
	made := map[string]*candidate{}
	var out []*candidate
	for _, c := range cands {
		if ref := payloadOf(c.record); ref != "" {
			// Only a regular file the walk found: never a symlink out of the source.
			if file, ok := src.attachments[payloadFile(strings.TrimSuffix(c.origin, path.Ext(c.origin)), c.record.Title)]; ok {
				if data, err := readBounded(file); err == nil && kernel.PayloadRef(data) == ref {
					c.payload = data
				}
			}
			continue
		}
		for _, s := range c.bodySpans() {
			t := strings.ToLower(strings.TrimSpace(s.Target))
			if notes[t] || notes[strings.TrimSuffix(t, path.Ext(t))] || notes[path.Base(t)] {
				continue
			}
			rels := files[t]
			if len(rels) == 0 {
				rels = files[path.Base(t)]
			}
			if len(rels) != 1 {
				continue
			}
			rel := rels[0]
			a := made[rel]
			if a == nil {
				data := read(rel)
				if data == nil {
					continue
				}
				ref := kernel.PayloadRef(data)
				base := path.Base(rel)
				a = &candidate{origin: rel, names: []string{rel, base}, payload: data, record: &kernel.Record{
					ID: derivedID(rel), Type: "raw", Title: base, Category: folderCategory(opts.Category, path.Dir(rel)),
					Body:   fmt.Sprintf("Attachment %s (%d bytes), stored as payload %s.\n", base, len(data), ref),
					Source: &kernel.Source{Extension: "import", ExternalID: rel}}}
				made[rel] = a
				out = append(out, a)
				notes[strings.ToLower(rel)], notes[strings.ToLower(base)] = true, true
			}
			rep.Attachments = append(rep.Attachments, Attachment{Origin: c.origin, Path: rel, ID: a.record.ID, Payload: kernel.PayloadRef(a.payload)})
		}
	}
	return out
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
