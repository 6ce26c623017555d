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
	tmp, err := os.CreateTemp(filepath.Dir(path), ".handles-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
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
// Best effort: a handles file that is not current is left for the index.
func (s *Store) advanceHandles(from, to plumbing.Hash, m *kernel.Mutation) {
	path := handlesPath(s.indexPath())
	hs, ok := loadHandles(path, from)
	if !ok {
		return
	}
	ids := strings.Split(strings.Trim(string(hs.ids), "\n"), "\n")
	if len(ids) == 1 && ids[0] == "" {
		ids = nil
	}
	aliases := map[string]string{}
	for _, line := range strings.Split(strings.Trim(string(hs.aliases), "\n"), "\n") {
		if a, id, ok := strings.Cut(line, " "); ok {
			aliases[a] = id
		}
	}
	ix := &Index{Tip: to, Entries: map[string]*IndexEntry{}, aliases: aliases}
	for _, id := range ids {
		ix.Entries[id] = nil
	}
	for _, r := range m.Writes {
		ix.Entries[r.ID] = nil
		for _, a := range r.Aliases {
			if _, taken := ix.aliases[a]; !taken {
				ix.aliases[a] = r.ID
			}
		}
	}
	_ = ix.saveHandles(path)
}
