package transfer

import (
	"bytes"
	"fmt"
	"path"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// An imported note is written back as its source had it, where its source
// had it: its front matter is its properties, its body SourceBody. That is
// done only where importing the file gives the record back as it is: the
// export reads the file it is about to write as the import would, maps it
// (mapForeign) and compares; and the handles the import would give it,
// which depend on the other notes written so (a handle two notes would
// share goes to neither), must be the ones it has. A record changed here
// in a way the note cannot say (a title, tags or a link made here, a
// retirement) is written as a record file instead, at the same path, and
// reported.

// importDefaults are the options an import of an exported vault runs with.
var importDefaults = ImportOptions{Type: "concept", Category: "notes"}

// sourceNote is the file the imported note r is written back as: its
// properties as front matter, then SourceBody.
func sourceNote(r *kernel.Record) ([]byte, error) {
	body, _ := sourceBody(r)
	return writtenNote(r.Properties, body)
}

// checkNote reports why importing the imported note r written back as its
// source had it (sourceNote) would not give r back, "" when it would, its
// handles aside: those are the handles the import would derive for it
// (settle compares them). byID names the record a link's target names by
// id or id prefix.
func checkNote(r *kernel.Record, kind sourceKind, byID func(string) string, now time.Time) (handles []string, why string) {
	body, back := sourceBody(r)
	if !slices.Equal(writtenAs(back), r.WrittenAs) {
		return nil, "its links changed since its import"
	}
	for _, s := range wikilink.Spans([]byte(body)) {
		if byID(s.Target) != "" {
			return nil, "a link made here names a record by its id"
		}
	}
	data, err := writtenNote(r.Properties, body)
	if err != nil {
		return nil, "its properties do not write as YAML: " + err.Error()
	}
	u := parseNote(r.Source.ExternalID, data, false)
	if u.record != nil || u.unreadable != "" || u.body != body || !reflect.DeepEqual(kernel.NormalizeProperties(u.front), r.Properties) {
		return nil, "its front matter does not read back as it is"
	}
	scan := wikilink.Scan([]byte(u.body), wikilink.ScanOptions{MarkdownLinks: true, Title: true, HashTags: true, ColonTags: kind.ColonTags})
	c := mapForeign(u, scan, kind, importDefaults, now, &Report{})
	if diff := differsFromImport(r, c.record); len(diff) > 0 {
		return nil, "not what an import of the note gives (" + strings.Join(diff, ", ") + ")"
	}
	// As deriveAliases claims them.
	seen := map[string]bool{}
	for _, h := range c.handleSources {
		if h = slug(h); h != "" && !seen[h] && kernel.ValidateAlias(h) == nil {
			seen[h] = true
			handles = append(handles, h)
		}
	}
	for _, a := range c.aliasesAsWritten {
		if h := handleOf(a); h != "" && !seen[h] {
			seen[h] = true
			handles = append(handles, h)
		}
	}
	return handles, ""
}

// attachmentAsImported reports whether r is the record an import makes of
// the attachment at its source path holding data, its handle aside (settle
// compares it).
func attachmentAsImported(r *kernel.Record, data []byte) bool {
	want := attachmentOf(r.Source.ExternalID, data, importDefaults)
	want.Source.Payload = kernel.PayloadRef(data)
	if r.Body != want.Body || len(r.WrittenAs) > 0 || len(differsFromImport(r, want)) > 0 {
		return false
	}
	return len(r.Aliases) == 0 || len(r.Aliases) == 1 && r.Aliases[0] == slug(path.Base(r.Source.ExternalID))
}

// differsFromImport names the fields in which got is not the record want
// as an import makes it: the kernel's defaults filled in, its history and
// who imported it aside. Bodies and aliases are compared by the callers.
func differsFromImport(got, want *kernel.Record) []string {
	a, b := got.Clone(), want.Clone()
	def, _ := kernel.LookupType(b.Type)
	b.Status = kernel.StatusActive
	b.Kind, b.Role, b.Authority = def.Kind, def.Role, def.Authority
	var diff []string
	if timeText(a.ExpiresAt) != timeText(b.ExpiresAt) {
		diff = append(diff, "expires_at")
	}
	for _, x := range []*kernel.Record{a, b} {
		x.CreatedAt, x.UpdatedAt, x.ExpiresAt, x.MutationLog, x.Provenance = kernel.Timestamp{}, kernel.Timestamp{}, nil, nil, kernel.Provenance{}
		x.Body, x.WrittenAs, x.Aliases = "", nil, nil
		if len(x.Tags) == 0 {
			x.Tags = nil
		}
		if len(x.Links) == 0 {
			x.Links = nil
		}
	}
	return append(diff, kernel.ChangedContent(b, a)...)
}

func timeText(t *kernel.Timestamp) string {
	if t == nil {
		return ""
	}
	return t.String()
}

// writtenNote is a note as its source wrote it: its properties as YAML front
// matter (keys sorted, as the store keeps them: the order the source had
// is not kept), then its body as it is. A note without properties has no
// front matter, unless its body would read as some (it then gets an empty
// block, as Jekyll writes one).
func writtenNote(props kernel.Properties, body string) ([]byte, error) {
	var b bytes.Buffer
	switch {
	case len(props) > 0:
		y, err := propertiesYAML(props)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(y)
		b.WriteString("---\n")
	default:
		if u := parseNote("", []byte(body), false); u.front != nil || u.body != body || u.record != nil || u.unreadable != "" {
			b.WriteString("---\n---\n")
		}
	}
	b.WriteString(body)
	return b.Bytes(), nil
}

// propertiesYAML writes properties as YAML the tools read: lists as
// blocks, two spaces deep, and a date or time the source wrote as one
// plain (2024-01-02, 2023-05-01T10:00:00Z), so Obsidian, Hugo and Jekyll
// read it as a date again; any other text that YAML would read as
// something else is quoted.
func propertiesYAML(props kernel.Properties) ([]byte, error) {
	var v any = map[string]any(props)
	if holdsDate(props) {
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			return nil, err
		}
		plainDates(&n)
		v = &n
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// holdsDate reports whether a text of v reads, written plain, as a YAML
// date or time.
func holdsDate(v any) bool {
	switch x := v.(type) {
	case string:
		return len(x) >= 8 && x[0] >= '0' && x[0] <= '9' && (&yaml.Node{Kind: yaml.ScalarNode, Value: x}).ShortTag() == "!!timestamp"
	case []any:
		return slices.ContainsFunc(x, holdsDate)
	case kernel.Properties:
		for _, e := range x {
			if holdsDate(e) {
				return true
			}
		}
	}
	return false
}

// plainDates marks each text that YAML reads, written plain, as the date
// or time it says (and that reads back as the same text) a timestamp, so
// the encoder writes it unquoted.
func plainDates(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && (&yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}).ShortTag() == "!!timestamp" {
		var v any
		if yaml.Unmarshal([]byte(n.Value), &v) == nil && kernel.NormalizeProperty(v) == n.Value {
			n.Tag, n.Style = "!!timestamp", 0
		}
		return
	}
	for _, c := range n.Content {
		plainDates(c)
	}
}

// survey is what a first pass over the branch learns for a vault export:
// where each imported note and attachment goes, the tool most of them
// came from, and its settings as far as the records show them.
type survey struct {
	byID    func(string) string // the record a target names by id or id prefix
	resolve func(string) string // the record a target names by id, alias or id prefix
	sources map[string]string   // id -> source path of an imported note or attachment
	notes   map[string]bool     // id -> its source is a note
	// fits: an attachment whose record is as an import makes it; linked:
	// a record some body links to (an attachment is imported again only
	// when a note links to it).
	fits, linked map[string]bool
	payloads     map[string]string // id -> title, of a record that has a payload
	tools        map[string]int    // tool -> imported notes from it
	// colon counts the zk notes whose tags show zk's colon tags were read,
	// and those whose tags show they were not.
	colon [2]int
	// taxonomy: of Hugo notes, each front matter key whose values are all
	// tags of the note (true) or not all (false).
	taxonomy map[string]bool
	// wiki and markdown count how zk notes wrote the links the import
	// rewrote.
	wiki, markdown int
	// Of each imported note, what checkNote found (why it is not written
	// as its source had it, else the handles an import derives for it),
	// and the handles it has; of each attachment, its handles.
	why              map[string]string
	derived, handles map[string][]string
}

func newSurvey(names *exportNames) *survey {
	return &survey{byID: names.byID, resolve: names.resolve, sources: map[string]string{}, notes: map[string]bool{}, fits: map[string]bool{},
		linked: map[string]bool{}, payloads: map[string]string{}, tools: map[string]int{}, taxonomy: map[string]bool{},
		why: map[string]string{}, derived: map[string][]string{}, handles: map[string][]string{}}
}

// importedWith is the tool the last import of r read it from.
func importedWith(r *kernel.Record) string {
	for i := len(r.MutationLog) - 1; i >= 0; i-- {
		if s, ok := r.MutationLog[i].Evidence["import"].(string); ok {
			return kindOfSource(s)
		}
	}
	return "notes"
}

// add takes in one record; payload reads an attachment's content.
func (sv *survey) add(r *kernel.Record, payload func(ref string) ([]byte, error)) error {
	for _, s := range wikilink.Spans([]byte(r.Body)) {
		if id := sv.resolve(s.Target); id != "" {
			sv.linked[id] = true
		}
	}
	src := r.Source
	if src != nil && src.Payload != "" {
		sv.payloads[r.ID] = r.Title
	}
	if src == nil || src.Extension != "import" || src.ExternalID == "" || src.ExternalURL != "" {
		return nil
	}
	p := src.ExternalID
	switch {
	case isNote(p) && src.Payload == "":
		sv.sources[r.ID], sv.notes[r.ID] = p, true
		tool := importedWith(r)
		sv.tools[tool]++
		switch tool {
		case "zk":
			sv.zkNote(r)
		case "hugo":
			sv.hugoNote(r)
		}
	case !isNote(p) && src.Payload != "":
		data, err := payload(src.Payload)
		if err != nil {
			return err
		}
		sv.sources[r.ID] = p
		sv.fits[r.ID] = attachmentAsImported(r, data)
		sv.handles[r.ID] = r.Aliases
	}
	return nil
}

// checkAll checks each imported note each reads against what an import
// of it, written as its source had it for the tool kind, gives; on every
// core, since reading and mapping the notes is most of what an export
// costs.
func (sv *survey) checkAll(each func(func(*kernel.Record) error) error, kind sourceKind, now time.Time) error {
	notes := make(chan *kernel.Record, 64)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range notes {
				derived, why := checkNote(r, kind, sv.byID, now)
				mu.Lock()
				if why != "" {
					sv.why[r.ID] = why
				} else {
					sv.derived[r.ID], sv.handles[r.ID] = derived, r.Aliases
				}
				mu.Unlock()
			}
		}()
	}
	err := each(func(r *kernel.Record) error {
		if sv.notes[r.ID] {
			notes <- r
		}
		return nil
	})
	close(notes)
	wg.Wait()
	return err
}

// settle decides which imported notes are written as their source had
// them: those checkNote passed whose handles an import of the vault gives
// back. An import gives a note each handle it derives that no other note
// written so derives and that is no record's id; so a note left out
// changes what the others get, and settle repeats until none is left out.
// An attachment's handle, its file name's slug, is given when no note or
// record has it; one whose handle would change is a record file.
func (sv *survey) settle(entries []*gitstore.IndexEntry) {
	for {
		claims := map[string]int{}
		for _, hs := range sv.derived {
			for _, h := range hs {
				claims[h]++
			}
		}
		left := false
		for _, id := range sortedKeys(sv.derived) {
			var want []string
			for _, h := range sv.derived[id] {
				if claims[h] == 1 && (h == id || sv.byID(h) != h) {
					want = append(want, h)
				}
			}
			if !sameSet(want, sv.handles[id]) {
				sv.why[id] = "an import would give it the handles " + quote(strings.Join(want, ", ")) + ", not " + quote(strings.Join(sv.handles[id], ", "))
				delete(sv.derived, id)
				left = true
			}
		}
		if !left {
			break
		}
	}
	taken := map[string]bool{}
	for _, e := range entries {
		if _, ok := sv.derived[e.ID]; !ok && !sv.fits[e.ID] {
			for _, a := range e.Aliases {
				taken[a] = true
			}
		}
	}
	for _, hs := range sv.derived {
		for _, h := range hs {
			taken[h] = true
		}
	}
	for id, fits := range sv.fits {
		if !fits {
			continue
		}
		h := slug(path.Base(sv.sources[id]))
		free := h != "" && kernel.ValidateAlias(h) == nil && !taken[h] && sv.byID(h) != h
		if free != (len(sv.handles[id]) == 1) {
			sv.fits[id] = false
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[string]bool{}
	for _, s := range a {
		in[s] = true
	}
	for _, s := range b {
		if !in[s] {
			return false
		}
	}
	return true
}

// zkNote counts what a zk note says of its notebook: whether its tags
// hold the :colon:tags: of its body, and how it wrote its links.
func (sv *survey) zkNote(r *kernel.Record) {
	body, back := sourceBody(r)
	for _, w := range back {
		if strings.HasPrefix(w.Source, "[[") || strings.HasPrefix(w.Source, "![[") {
			sv.wiki++
		} else {
			sv.markdown++
		}
	}
	plain := map[string]bool{}
	for _, t := range wikilink.Scan([]byte(body), wikilink.ScanOptions{HashTags: true}).Tags {
		plain[strings.ToLower(t)] = true
	}
	tags := lowerSet(r.Tags)
	colonOnly, kept := 0, 0
	for _, t := range wikilink.Scan([]byte(body), wikilink.ScanOptions{HashTags: true, ColonTags: true}).Tags {
		if !plain[strings.ToLower(t)] {
			colonOnly++
			if tags[strings.ToLower(t)] {
				kept++
			}
		}
	}
	switch {
	case colonOnly == 0:
	case kept == colonOnly:
		sv.colon[0]++
	default:
		sv.colon[1]++
	}
}

// hugoNote notes, of each front matter key of a Hugo page, whether its
// values are all among the page's tags: the site's taxonomies are.
func (sv *survey) hugoNote(r *kernel.Record) {
	tags := lowerSet(r.Tags)
	for k, v := range r.Properties {
		key := strings.ToLower(k)
		if key == "tags" || key == "tag" {
			continue
		}
		values := stringsOf(v)
		if len(values) == 0 {
			continue
		}
		all := true
		for _, t := range values {
			if t = strings.TrimPrefix(strings.TrimSpace(t), "#"); t != "" && !tags[strings.ToLower(t)] {
				all = false
			}
		}
		if was, seen := sv.taxonomy[key]; !seen || was {
			sv.taxonomy[key] = all
		}
	}
}

func lowerSet(ss []string) map[string]bool {
	out := make(map[string]bool, len(ss))
	for _, s := range ss {
		out[strings.ToLower(s)] = true
	}
	return out
}

// tool is the tool the vault is written for: the one most imported notes
// came from (notes when none did), with the settings their records show.
func (sv *survey) tool() sourceKind {
	best := "notes"
	for _, name := range sortedKeys(sv.tools) {
		if sv.tools[name] > sv.tools[best] {
			best = name
		}
	}
	k := kindNamed(best)
	switch k.Name {
	case "zk":
		k.ColonTags = sv.colon[0] > sv.colon[1]
	case "hugo":
		// Hugo's own (tags, categories) unless a page shows categories
		// are not tags, and every key whose values are tags wherever it
		// is; written to the site's configuration as plural = plural,
		// which an import reads in this order.
		k.Taxonomies = []string{"tags"}
		if was, seen := sv.taxonomy["categories"]; was || !seen {
			k.Taxonomies = append(k.Taxonomies, "categories")
		}
		for _, key := range sortedKeys(sv.taxonomy) {
			if sv.taxonomy[key] && key != "tags" && key != "categories" {
				k.Taxonomies = append(k.Taxonomies, key)
			}
		}
		sort.Strings(k.Taxonomies)
	}
	return k
}

// marker is a file a tool keeps at a vault's root, by which it (and an
// import) knows the vault as its own.
type marker struct {
	path string
	data []byte
}

// markers are the files written for the vault's tool: the least that tool
// needs to open the folder as its own and that tell an import its
// settings (the source's own configuration is not in the store).
func (sv *survey) markers(k sourceKind) []marker {
	switch k.Name {
	case "obsidian":
		return []marker{{".obsidian/app.json", []byte("{}\n")}}
	case "zk":
		format := "wiki"
		if sv.markdown > sv.wiki {
			format = "markdown"
		}
		return []marker{{".zk/config.toml", fmt.Appendf(nil, "[format.markdown]\nhashtags = true\ncolon-tags = %t\nlink-format = %q\n", k.ColonTags, format)}}
	case "foam":
		return []marker{{".vscode/extensions.json", []byte("{\n  \"recommendations\": [\"foam.foam-vscode\"]\n}\n")}}
	case "dendron":
		return []marker{{"dendron.yml", []byte("version: 5\nworkspace:\n  vaults:\n    - fsPath: .\n")}}
	case "hugo":
		var b strings.Builder
		b.WriteString("[taxonomies]\n")
		for _, t := range k.Taxonomies {
			key := t
			if strings.ContainsFunc(t, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
			}) {
				key = strconv.Quote(t)
			}
			fmt.Fprintf(&b, "  %s = %s\n", key, strconv.Quote(t))
		}
		return []marker{{"hugo.toml", []byte(b.String())}}
	case "jekyll":
		return []marker{{"_config.yml", nil}}
	}
	return nil
}
