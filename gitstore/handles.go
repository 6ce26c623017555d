package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// The handles file is the part of the index that resolving a handle needs
// (Addendum H): every id, sorted, and every alias with its record. Next to
// the full cache it is small, and a lookup reads it as bytes without
// decoding anything, so `show <prefix>` or an alias costs about the same at
// 10,000 records as at 1,000. Like the cache it names the tip it reflects;
// a stale one is ignored and the full index catches up instead.
//
//	git-records handles 1 <tip>
//	ids
//	<id>…
//	aliases
//	<alias> <id>…
const handlesHeader = "git-records handles 1 "

func handlesPath(cachePath string) string { return cachePath + ".handles" }

func (ix *Index) saveHandles(path string) error {
	var b bytes.Buffer
	b.WriteString(handlesHeader + ix.Tip.String() + "\nids\n")
	ids := ix.sortedIDs()
	for _, id := range ids {
		b.WriteString(id)
		b.WriteByte('\n')
	}
	b.WriteString("aliases\n")
	aliases := make([]string, 0, len(ix.aliases))
	for a, id := range ix.aliases {
		aliases = append(aliases, a+" "+id)
	}
	sort.Strings(aliases)
	for _, a := range aliases {
		b.WriteString(a)
		b.WriteByte('\n')
	}
	return writeAtomic(path, b.Bytes(), ".handles-*")
}

// writeAtomic replaces path with data through a temporary file and a
// rename, so a reader sees the old file or the new one, never a mix.
func writeAtomic(path string, data []byte, pattern string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// sortedIDs returns the ids in order, reusing the kept list when current.
func (ix *Index) sortedIDs() []string {
	if len(ix.sorted) == len(ix.Entries) {
		return ix.sorted
	}
	ids := make([]string, 0, len(ix.Entries))
	for id := range ix.Entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// handleSet answers kernel.IDSet from a handles file's bytes.
type handleSet struct {
	ids     []byte // "\n<id>\n<id>\n…", with a leading newline
	aliases []byte // "\n<alias> <id>\n…"
}

// loadHandles reads the handles file if it reflects tip.
func loadHandles(path string, tip plumbing.Hash) (*handleSet, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	header := handlesHeader + tip.String() + "\nids"
	if !bytes.HasPrefix(data, []byte(header)) {
		return nil, false
	}
	rest := data[len(header):] // "\n<id>…\naliases\n…"
	i := bytes.Index(rest, []byte("\naliases\n"))
	if i < 0 {
		return nil, false
	}
	return &handleSet{ids: rest[:i+1], aliases: rest[i+len("\naliases"):]}, true
}

// singleLine reports whether s can be looked up in the file's lines: a
// string holding a newline would match across two of them (no id or alias
// holds one, so it matches nothing, as in the index).
func singleLine(s string) bool { return !strings.Contains(s, "\n") }

func (h *handleSet) HasID(id string) bool {
	return id != "" && singleLine(id) && bytes.Contains(h.ids, []byte("\n"+id+"\n"))
}

func (h *handleSet) AliasTarget(alias string) (string, bool) {
	if !singleLine(alias) {
		return "", false
	}
	i := bytes.Index(h.aliases, []byte("\n"+alias+" "))
	if i < 0 {
		return "", false
	}
	line := h.aliases[i+1:]
	line = line[:bytes.IndexByte(line, '\n')]
	_, id, _ := strings.Cut(string(line), " ")
	return id, true
}

func (h *handleSet) IDsWithPrefix(prefix string, limit int) []string {
	if !singleLine(prefix) {
		return nil
	}
	var out []string
	needle := []byte("\n" + prefix)
	for at := 0; len(out) < limit; {
		i := bytes.Index(h.ids[at:], needle)
		if i < 0 {
			break
		}
		start := at + i + 1
		end := start + bytes.IndexByte(h.ids[start:], '\n')
		out = append(out, string(h.ids[start:end]))
		at = end
	}
	return out
}

// advanceHandles moves a current handles file from the tip a write started
// on to the commit it made, adding the ids and aliases it wrote, so a
// process that wrote without loading the index leaves handles current.
// Lookups scan the sections, so new lines are appended unsorted: a write
// costs a copy of the file, not a parse and sort of 10,000 ids. Best
// effort: a handles file that is not current is left for the index.
func (s *Store) advanceHandles(from, to plumbing.Hash, m *kernel.Mutation) {
	path := handlesPath(s.indexPath())
	hs, ok := loadHandles(path, from)
	if !ok {
		return
	}
	var ids, aliases bytes.Buffer
	for _, r := range m.Writes {
		if !hs.HasID(r.ID) {
			ids.WriteString(r.ID + "\n")
		}
		for _, a := range r.Aliases {
			if _, taken := hs.AliasTarget(a); !taken {
				aliases.WriteString(a + " " + r.ID + "\n")
			}
		}
	}
	var b bytes.Buffer
	b.Grow(len(hs.ids) + len(hs.aliases) + ids.Len() + aliases.Len() + 64)
	b.WriteString(handlesHeader + to.String() + "\nids")
	b.Write(hs.ids) // "\n<id>…\n"
	b.Write(ids.Bytes())
	b.WriteString("aliases")
	b.Write(hs.aliases) // "\n<alias> <id>…\n"
	b.Write(aliases.Bytes())
	_ = writeAtomic(path, b.Bytes(), ".handles-*")
}
