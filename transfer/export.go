package transfer

import (
	"bufio"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"unicode"

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
	// UnsafeAliases are aliases a store holds from before ValidateAlias
	// refused path segments; no file is named by them.
	UnsafeAliases []string `json:"unsafe_aliases,omitempty"`
}

// Export writes every record of v (retired ones too) to dest: a vault
// (dest a new or empty directory) or JSONL (dest a file, "-" for out). It
// reads the branch in one pass and writes each record as it reads it.
//
// A vault keeps each record's frontmatter as the store writes it, so
// Obsidian reads its tags and aliases and an import gives the same record
// back. Files go in folders by category (auth.tokens → auth/tokens/) and
// are named by their first alias (<alias>.md), else by title in their
// category's folder; a title two records share (Obsidian and zk match
// names without case) takes the id's first characters, so every name is
// unique in the vault and [[Name]] reaches one file. Body wikilinks are
// rewritten from ids, aliases and prefixes to those names, keeping what
// they displayed: [[id]] becomes [[Name|id]], [[id|label]] [[Name|label]]
// ([[alias.md|label]] for a file named by an alias the link did not use);
// import turns them back.
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
	names := vaultNames(entries)
	rep := &ExportReport{Format: ExportVault, Path: dest, UnsafeAliases: names.unsafe}
	err = v.EachRecord(everything, func(r *kernel.Record) error {
		c := r.Clone()
		c.Body = rewriteSpans(r.Body, wikilink.Spans([]byte(r.Body)), func(s wikilink.Span, raw string) (string, bool) {
			id := names.resolve(s.Target)
			if id == "" {
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
		file := names.path(c)
		if err := out.create(file, data); err != nil {
			return err
		}
		if err := writePayload(v, c, out, strings.TrimSuffix(file, ".md")); err != nil {
			return err
		}
		rep.Records++
		return nil
	})
	if err != nil {
		if _, ok := err.(*kernel.Error); ok {
			return nil, err
		}
		return nil, kernel.Wrap(kernel.CodeInternal, err, "export to %s", dest)
	}
	return rep, nil
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

// exportNames are the vault's file names and the handles links use.
type exportNames struct {
	name    map[string]string // id -> the name links use
	file    map[string]string // id -> file path in the vault, no extension
	aliases map[string]string // alias -> id
	ids     []string          // sorted, for prefixes
	unsafe  []string          // aliases that name no file: not plain relative paths
}

// vaultNames names every record uniquely, without regard to case, by
// full path and by file name (Obsidian and zk resolve [[name]] by either).
// A record with an alias is named by it (its file at <alias>.md), so a
// link through the alias is written as it was; others by title, in their
// category's folder.
func vaultNames(entries []*gitstore.IndexEntry) *exportNames {
	n := &exportNames{name: map[string]string{}, file: map[string]string{}, aliases: map[string]string{}}
	sorted := append([]*gitstore.IndexEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	for _, e := range sorted {
		n.ids = append(n.ids, e.ID)
		for _, a := range e.Aliases {
			n.aliases[a] = e.ID
		}
	}
	taken := map[string]bool{}
	claim := func(id, name, file string) bool {
		base := strings.ToLower(path.Base(file))
		if taken[strings.ToLower(file)] || taken[base] {
			return false
		}
		taken[strings.ToLower(file)], taken[base] = true, true
		n.name[id], n.file[id] = name, file
		return true
	}
	for _, e := range sorted {
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
		if n.name[e.ID] == "" {
			byTitle[strings.ToLower(fileName(e.Title, e.ID))]++
		}
	}
	for _, e := range sorted {
		if n.name[e.ID] != "" {
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
	return n
}

// path is where a record's file goes.
func (n *exportNames) path(r *kernel.Record) string { return n.file[r.ID] + ".md" }

// resolve finds the record a wikilink target names: an id, an alias, or
// an id prefix of 8 or more characters that names one record.
func (n *exportNames) resolve(target string) string {
	t := strings.TrimSpace(target)
	if _, ok := n.name[t]; ok {
		return t
	}
	if id, ok := n.aliases[t]; ok {
		return id
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
