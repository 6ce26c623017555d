package transfer

import (
	"bufio"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// Export formats.
const (
	ExportVault = "vault" // one Markdown file per record, as Obsidian and zk open a folder
	ExportJSONL = "jsonl" // one record JSON per line
)

// ExportReport is what an export wrote.
type ExportReport struct {
	Format  string `json:"format"`
	Path    string `json:"path"`
	Records int    `json:"records"`
	// Kind is the tool a vault is written for: the one most of its
	// imported notes came from (obsidian, zk, foam, dendron, hugo,
	// jekyll), else notes.
	Kind string `json:"kind,omitempty"`
	// Notes are the imported notes written back as their source had them,
	// Attachments the files those notes embed, each where its source had
	// it.
	Notes       int `json:"notes"`
	Attachments int `json:"attachments"`
	// AsRecords are the imported notes and attachments written as record
	// files instead, and why: a note changed here in a way the note's own
	// front matter cannot say.
	AsRecords []AsRecord `json:"as_records,omitempty"`
	// UnsafeAliases are aliases a store holds from before ValidateAlias
	// refused path segments; no file is named by them.
	UnsafeAliases []string `json:"unsafe_aliases,omitempty"`
}

// AsRecord is an imported note or attachment written as a record file.
type AsRecord struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Export writes every record of v (retired ones too) to dest: a vault
// (dest a new or empty directory) or JSONL (dest a file, "-" for out).
//
// A vault is written for the tool most of its imported notes came from
// (obsidian, zk, foam, dendron, hugo, jekyll), with the file that tool
// keeps at its root: each imported note goes back where its source had it,
// as its source wrote it (front matter, body and links), and each
// attachment it embeds as the file it was. Other records are record files
// (their frontmatter as the store keeps it, so Obsidian reads their tags
// and aliases and an import gives them back exactly), in folders by
// category, named by their first alias (<alias>.md), else by title; a
// title two records share (Obsidian and zk match names without case)
// takes the id's first characters, so every name is unique in the vault
// and [[Name]] reaches one file. Their body wikilinks are rewritten from
// ids, aliases and prefixes to those names, keeping what they displayed:
// [[id]] becomes [[Name|id]], [[id|label]] [[Name|label]] ([[alias.md|label]]
// for a file named by an alias the link did not use); import turns them
// back. An imported note changed here in a way its source cannot say is a
// record file too, at its source's path. The branch is read twice: once
// to place every record, then to write each as it is read.
func Export(v *gitstore.View, dest, format string, out io.Writer) (*ExportReport, error) {
	switch format {
	case "", ExportVault:
		return exportVault(v, dest)
	case ExportJSONL:
		return exportJSONL(v, dest, out)
	}
	return nil, kernel.Errorf(kernel.CodeUsage, "format %q is not an export format: vault or jsonl", format).WithField("format")
}

var everything = gitstore.Filter{IncludeRetired: true, AsStored: true}

func exportJSONL(v *gitstore.View, dest string, out io.Writer) (*ExportReport, error) {
	rep := &ExportReport{Format: ExportJSONL, Path: dest}
	w := out
	var f *os.File
	if dest != "-" {
		var err error
		if f, err = os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err != nil {
			return nil, kernel.Errorf(kernel.CodeUsage, "cannot create %s: %v (export writes a new file; choose another name or remove it)", dest, err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	// A line is what json.Encoder (HTML characters kept) writes, encoded
	// by the record itself: reflection was most of an export's CPU.
	err := v.EachRecord(everything, func(r *kernel.Record) error {
		rep.Records++
		line, err := r.AppendJSON(bw.AvailableBuffer(), "", "")
		if err != nil {
			return err
		}
		_, err = bw.Write(append(line, '\n'))
		return err
	})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && f != nil {
		err = f.Sync()
	}
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "export to %s", dest)
	}
	return rep, nil
}

func exportVault(v *gitstore.View, dest string) (*ExportReport, error) {
	out, err := openConfined(dest)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	entries, err := v.ListEntries(everything)
	if err != nil {
		return nil, err
	}
	names := newExportNames(entries)
	sv := newSurvey(names)
	if err := v.EachRecord(everything, func(r *kernel.Record) error { return sv.add(r, v.Payload) }); err != nil {
		return nil, exportError(err, dest)
	}
	kind := sv.tool()
	now := time.Now()
	if err := sv.checkAll(func(fn func(*kernel.Record) error) error { return v.EachRecord(everything, fn) }, kind, now); err != nil {
		return nil, exportError(err, dest)
	}
	sv.settle(entries)
	markers := sv.markers(kind)
	asRecords := names.place(entries, sv, markers)
	rep := &ExportReport{Format: ExportVault, Path: dest, Kind: kind.Name, UnsafeAliases: names.unsafe}
	err = v.EachRecord(everything, func(r *kernel.Record) error {
		rep.Records++
		file := names.file[r.ID]
		switch {
		case names.attachment[r.ID]:
			data, err := v.Payload(r.Source.Payload)
			if err != nil {
				return err
			}
			rep.Attachments++
			return out.create(file, data)
		case names.sourced[r.ID] && asRecords[r.ID] == "":
			data, err := sourceNote(r)
			if err != nil {
				return err
			}
			rep.Notes++
			return out.create(file, data)
		}
		if why := asRecords[r.ID]; why != "" {
			rep.AsRecords = append(rep.AsRecords, AsRecord{ID: r.ID, Path: file, Reason: why})
		}
		return writeRecordFile(v, out, r, names, file)
	})
	for _, m := range markers {
		if err == nil && names.marked[m.path] {
			err = out.create(m.path, m.data)
		}
	}
	if err != nil {
		return nil, exportError(err, dest)
	}
	return rep, nil
}

func exportError(err error, dest string) error {
	if _, ok := err.(*kernel.Error); ok {
		return err
	}
	return kernel.Wrap(kernel.CodeInternal, err, "export to %s", dest)
}

// writeRecordFile writes r as a record file at file, its body wikilinks
// rewritten to the names of the vault's files, and its payload (an
// attachment's content, an observed snapshot's raw data) beside it.
func writeRecordFile(v *gitstore.View, out *confinedDir, r *kernel.Record, names *exportNames, file string) error {
	c := r.Clone()
	c.Body = rewriteSpans(r.Body, wikilink.Spans([]byte(r.Body)), func(s wikilink.Span, raw string) (string, bool) {
		id := names.resolve(s.Target)
		if id == "" {
			return "", false
		}
		// A handle an import gave a note or attachment is no file name of
		// it: kept, so the import of the vault reads the link as it was.
		if names.sourced[id] && names.aliases[strings.TrimSpace(s.Target)] == id {
			return "", false
		}
		// A file named by an alias is reached by it, as the link may
		// have been written; a link that named the record another way
		// reaches the same file as <alias>.md, so import can tell.
		name := names.name[id]
		target := name
		if s.Target != name && names.aliases[name] == id {
			target = name + ".md"
		}
		label := s.Label
		if label == "" {
			label = s.Target
		}
		if label == target {
			label = ""
		}
		return formatLink(s.Embed, target, s.Heading, label, strings.Contains(raw, `\|`)), true
	})
	data, err := gitstore.EncodeRecord(c)
	if err != nil {
		return err
	}
	if err := out.create(file, data); err != nil {
		return err
	}
	return writePayload(v, c, out, strings.TrimSuffix(file, ".md"))
}

// writePayload writes the payload a record stands for (an imported
// attachment, an observed snapshot's raw data) beside its note, named like
// it with the title's extension (diagram.png.md, diagram.png), where
// import finds it again.
func writePayload(v *gitstore.View, r *kernel.Record, out *confinedDir, base string) error {
	if r.Source == nil || r.Source.Payload == "" {
		return nil
	}
	data, err := v.Payload(r.Source.Payload)
	if err != nil {
		return err
	}
	return out.create(payloadFile(base, r.Title), data)
}

// payloadFile is the name of a payload file beside the note base.md.
func payloadFile(base, title string) string {
	if ext := path.Ext(title); ext != "" && !strings.HasSuffix(base, ext) {
		return base + ext
	}
	return base
}

// exportNames are the vault's files and the names links use.
type exportNames struct {
	ids     []string          // sorted, for prefixes
	known   map[string]bool   // every id
	aliases map[string]string // alias -> id
	name    map[string]string // id -> the name a link in a record file uses
	file    map[string]string // id -> its file in the vault
	// sourced: written where its source had it (an imported note, as it
	// was or as a record file, or an attachment); attachment: of those,
	// an attachment written as its file alone.
	sourced, attachment map[string]bool
	marked              map[string]bool // marker files written
	unsafe              []string        // aliases that name no file: not plain relative paths
	// paths and bases are taken without regard to case: files, and the
	// names [[Name]] may reach (a file's name without .md).
	paths, bases map[string]bool
}

func newExportNames(entries []*gitstore.IndexEntry) *exportNames {
	n := &exportNames{known: map[string]bool{}, aliases: map[string]string{}, name: map[string]string{}, file: map[string]string{},
		sourced: map[string]bool{}, attachment: map[string]bool{}, marked: map[string]bool{}, paths: map[string]bool{}, bases: map[string]bool{}}
	for _, e := range entries {
		n.ids = append(n.ids, e.ID)
		n.known[e.ID] = true
	}
	sort.Strings(n.ids)
	for _, e := range sortedEntries(entries) {
		for _, a := range e.Aliases {
			n.aliases[a] = e.ID
		}
	}
	return n
}

func sortedEntries(entries []*gitstore.IndexEntry) []*gitstore.IndexEntry {
	sorted := append([]*gitstore.IndexEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	return sorted
}

// place names every record's file, and returns why each imported note or
// attachment that is not written where its source had it is not. Imported
// notes and the attachments they embed go first, at their source's paths
// (their names as Obsidian links them: the file name where it is unique,
// else the path); then the markers; then the other records, uniquely
// without regard to case, by full path and by file name (Obsidian and zk
// resolve [[name]] by either). A record with an alias is named by it (its
// file at <alias>.md), so a link through the alias is written as it was;
// others by title, in their category's folder.
func (n *exportNames) place(entries []*gitstore.IndexEntry, sv *survey, markers []marker) map[string]string {
	sorted := sortedEntries(entries)
	why := map[string]string{}
	stems := map[string]int{}
	for _, e := range sorted {
		p, ok := sv.sources[e.ID]
		if !ok {
			continue
		}
		if w := sv.why[e.ID]; w != "" {
			why[e.ID] = w // a record file where the note was
		}
		switch {
		case !sv.notes[e.ID] && !sv.fits[e.ID]:
			why[e.ID] = "not what an import of the attachment gives"
			continue
		case !sv.notes[e.ID] && !sv.linked[e.ID]:
			why[e.ID] = "no record links to it, so an import would not read it"
			continue
		case !plainSourcePath(p):
			why[e.ID] = "its source path " + quote(p) + " is not a plain path inside the vault"
			continue
		case n.paths[strings.ToLower(p)]:
			why[e.ID] = "another record has its source path " + quote(p)
			continue
		}
		n.paths[strings.ToLower(p)] = true
		n.file[e.ID], n.sourced[e.ID], n.attachment[e.ID] = p, true, !sv.notes[e.ID]
		stems[strings.ToLower(linkStem(p, sv.notes[e.ID]))]++
	}
	for id, p := range n.file {
		stem := linkStem(p, !n.attachment[id])
		n.bases[strings.ToLower(stem)] = true
		if stems[strings.ToLower(stem)] == 1 {
			n.name[id] = stem
		} else if n.attachment[id] {
			n.name[id] = p
		} else {
			n.name[id] = strings.TrimSuffix(p, path.Ext(p))
		}
	}
	for _, m := range markers {
		if !n.paths[strings.ToLower(m.path)] {
			n.paths[strings.ToLower(m.path)], n.marked[m.path] = true, true
		}
	}
	claim := func(id, name, file string) bool {
		files := []string{file + ".md"}
		if title, ok := sv.payloads[id]; ok {
			files = append(files, payloadFile(file, title))
		}
		base := strings.ToLower(path.Base(file))
		for _, f := range files {
			if n.paths[strings.ToLower(f)] {
				return false
			}
		}
		if n.bases[base] {
			return false
		}
		for _, f := range files {
			n.paths[strings.ToLower(f)] = true
		}
		n.bases[base] = true
		n.name[id], n.file[id] = name, file+".md"
		return true
	}
	for _, e := range sorted {
		if n.file[e.ID] != "" {
			continue
		}
		for _, a := range e.Aliases {
			// A store may hold an alias written before the path rule
			// ('..' segments): links still resolve through it, but the
			// record is named by its title.
			if kernel.ValidateAlias(a) != nil {
				n.unsafe = append(n.unsafe, a)
				continue
			}
			if claim(e.ID, a, a) {
				break
			}
		}
	}
	byTitle := map[string]int{} // among the records named by title
	for _, e := range sorted {
		if n.file[e.ID] == "" {
			byTitle[strings.ToLower(fileName(e.Title, e.ID))]++
		}
	}
	for _, e := range sorted {
		if n.file[e.ID] != "" {
			continue
		}
		dir := strings.ReplaceAll(e.Category, ".", "/") + "/"
		choices := []string{fileName(e.Title, e.ID)}
		if byTitle[strings.ToLower(choices[0])] > 1 {
			choices = []string{fileName(e.Title+" ("+e.ID[:min(8, len(e.ID))]+")", e.ID)}
		}
		choices = append(choices, fileName(e.Title+" ("+e.ID+")", e.ID), e.ID)
		for _, c := range choices {
			if claim(e.ID, c, dir+c) {
				break
			}
		}
	}
	return why
}

// linkStem is the name a link reaches a file at p by: a note's file name
// without its extension, an attachment's with it.
func linkStem(p string, note bool) string {
	base := path.Base(p)
	if note {
		return strings.TrimSuffix(base, path.Ext(base))
	}
	return base
}

// plainSourcePath reports whether p, an imported note's or attachment's
// path in its source, is one export writes to as it is: a relative path of
// plain names, none empty or hidden (an import reads no hidden file, so a
// record that names one, such as .obsidian/plugins/x/main.js, did not come
// from it).
func plainSourcePath(p string) bool {
	if !utf8.ValidString(p) || !filepath.IsLocal(filepath.FromSlash(p)) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg[0] == '.' || strings.ContainsAny(seg, "\\\x00") || strings.ContainsFunc(seg, unicode.IsControl) {
			return false
		}
	}
	return true
}

// resolve finds the record a wikilink target names: an id, an alias, or
// an id prefix of 8 or more characters that names one record.
func (n *exportNames) resolve(target string) string {
	if id := n.byID(target); id != "" {
		return id
	}
	return n.aliases[strings.TrimSpace(target)]
}

// byID finds the record a target names by its id or an id prefix of 8 or
// more characters that names one record.
func (n *exportNames) byID(target string) string {
	t := strings.TrimSpace(target)
	if n.known[t] {
		return t
	}
	if len(t) < 8 {
		return ""
	}
	i := sort.SearchStrings(n.ids, t)
	if i < len(n.ids) && strings.HasPrefix(n.ids[i], t) && (i+1 == len(n.ids) || !strings.HasPrefix(n.ids[i+1], t)) {
		return n.ids[i]
	}
	return ""
}

// fileName makes a title a file name every system and Obsidian take:
// no path separators, no characters links or file systems reserve, no
// leading dot, at most 120 bytes; the id when nothing is left.
func fileName(title, id string) string {
	var b strings.Builder
	space := false
	for _, r := range title {
		switch {
		case strings.ContainsRune(`/\:*?"<>|#^[]`+"`", r) || unicode.IsControl(r) || unicode.IsSpace(r):
			space = b.Len() > 0
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	s := strings.TrimLeft(b.String(), ". ")
	if len(s) > 120 {
		s = truncate(s, 120)
	}
	s = strings.TrimRight(s, ". ")
	if s == "" {
		return id
	}
	return s
}

func truncate(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
