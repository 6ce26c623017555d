package gitstore

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/git-records/git-records/kernel"
)

// treeReader reads tree objects once per view: a view is one tip, and its
// trees never change.
type treeReader struct {
	objects storer.EncodedObjectStorer
	cache   map[plumbing.Hash]*treeObj
	// raw holds trees read but not decoded, as the text of their object
	// (every entry checked as decodeTree checks it): a diff and a lookup
	// walk it in place, where a decode allocated an entry per name.
	raw     map[plumbing.Hash]string
	entries int // tree entries held in cache and raw, for readers that bound it
}

func newTreeReader(s storer.EncodedObjectStorer) *treeReader {
	return &treeReader{objects: s, cache: map[plumbing.Hash]*treeObj{}, raw: map[plumbing.Hash]string{}}
}

// reset forgets every tree read.
func (r *treeReader) reset() {
	clear(r.cache)
	clear(r.raw)
	r.entries = 0
}

func (r *treeReader) tree(h plumbing.Hash) (*treeObj, error) {
	if h.IsZero() {
		return &treeObj{}, nil
	}
	if t, ok := r.cache[h]; ok {
		return t, nil
	}
	text, ok := r.raw[h]
	if !ok {
		o, err := r.objects.EncodedObject(plumbing.TreeObject, h)
		if err != nil {
			return nil, kernel.Wrap(kernel.CodeInternal, err, "read tree %s", h)
		}
		if o.Type() != plumbing.TreeObject {
			return nil, kernel.Wrap(kernel.CodeInternal, errUnsupportedObject, "read tree %s", h)
		}
		data, err := objectData(o)
		if err != nil {
			return nil, kernel.Wrap(kernel.CodeInternal, err, "read tree %s", h)
		}
		text = string(data) // names are substrings of one copy
	} else {
		delete(r.raw, h)
		r.entries -= rawEntries(text)
	}
	t, err := decodeTreeText(h, text)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "read tree %s", h)
	}
	r.cache[h] = t
	r.entries += len(t.Entries)
	return t, nil
}

// treeText returns tree h as the decoded tree when one is held, else as
// the text of its object, read once and checked entry by entry with the
// refusals decodeTree makes.
func (r *treeReader) treeText(h plumbing.Hash) (*treeObj, string, error) {
	if h.IsZero() {
		return &treeObj{}, "", nil
	}
	if t, ok := r.cache[h]; ok {
		return t, "", nil
	}
	if text, ok := r.raw[h]; ok {
		return nil, text, nil
	}
	o, err := r.objects.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, "", kernel.Wrap(kernel.CodeInternal, err, "read tree %s", h)
	}
	if o.Type() != plumbing.TreeObject {
		return nil, "", kernel.Wrap(kernel.CodeInternal, errUnsupportedObject, "read tree %s", h)
	}
	data, err := objectData(o)
	if err != nil {
		return nil, "", kernel.Wrap(kernel.CodeInternal, err, "read tree %s", h)
	}
	text := string(data)
	if _, err := checkTreeText(text); err != nil {
		return nil, "", kernel.Wrap(kernel.CodeInternal, err, "read tree %s", h)
	}
	r.raw[h] = text
	r.entries += rawEntries(text)
	return nil, text, nil
}

// rawEntries estimates the entries of a tree's text for the cache bound
// (an entry is at least 28 bytes: mode, space, a name, NUL, 20-byte hash).
func rawEntries(text string) int { return len(text)/40 + 1 }

// treeEntries iterates a tree's entries in stored order, from the decoded
// tree or in place from its text (already checked by treeText).
type treeEntries struct {
	dec  []treeEntry
	text string
	e    treeEntry
}

func (r *treeReader) entriesOf(h plumbing.Hash) (treeEntries, error) {
	t, text, err := r.treeText(h)
	if err != nil {
		return treeEntries{}, err
	}
	if t != nil {
		return treeEntries{dec: t.Entries}, nil
	}
	return treeEntries{text: text}, nil
}

// next moves to the next entry (it.e); false at the end.
func (it *treeEntries) next() bool {
	if it.dec != nil {
		if len(it.dec) == 0 {
			return false
		}
		it.e, it.dec = it.dec[0], it.dec[1:]
		return true
	}
	if len(it.text) == 0 {
		return false
	}
	e, rest, err := nextTreeEntry(it.text)
	if err != nil { // checked when read: cannot happen
		it.text = ""
		return false
	}
	it.e, it.text = e, rest
	return true
}

// objectData is an object's bytes, shared where the store holds them.
func objectData(o plumbing.EncodedObject) ([]byte, error) {
	if so, ok := o.(*storedObject); ok {
		return so.data, nil
	}
	return readAll(o)
}

// decodeTree reads a tree object as go-git's Tree.Decode does (the same
// refusals, the same canonical modes), from the object's bytes in one
// pass, its names sharing one string: go-git's decoder, through a
// buffered reader with a string per read, was a fifth of a verify's CPU.
// The tree has entries and a hash only: nothing here calls the methods
// that need go-git's storer.
func decodeTree(o plumbing.EncodedObject) (*treeObj, error) {
	if o.Type() != plumbing.TreeObject {
		return nil, errUnsupportedObject
	}
	data, err := objectData(o)
	if err != nil {
		return nil, err
	}
	return decodeTreeText(o.Hash(), string(data))
}

// decodeTreeText decodes a tree's text; the entries' names are substrings
// of text.
func decodeTreeText(h plumbing.Hash, text string) (*treeObj, error) {
	t := &treeObj{Hash: h}
	if len(text) == 0 {
		return t, nil
	}
	n, err := checkTreeText(text)
	if err != nil {
		return nil, err
	}
	t.Entries = make([]treeEntry, 0, n)
	for len(text) > 0 {
		e, rest, err := nextTreeEntry(text)
		if err != nil {
			return nil, err
		}
		t.Entries = append(t.Entries, e)
		text = rest
	}
	return t, nil
}

// checkTreeText checks a tree's text whole and counts its entries: each
// entry well formed (nextTreeEntry) and the names strictly in git's order.
// Git reads a tree by that order (a lookup stops at the first name past the
// one it looks for; of two alike it takes the first) and fsck refuses a
// name twice or names out of order: a tree out of order would be judged
// here (diffTrees, entry) as git does not read it.
func checkTreeText(text string) (int, error) {
	n := 0
	var prev treeEntry
	// files are the file names that may still come back as a directory's
	// ("a", then "a-b", "a.md", then the directory "a" sorted as "a/"),
	// each a prefix of the one after it, as git's fsck keeps them.
	var stack [8]string
	files := stack[:0]
	for rest := text; len(rest) > 0; n++ {
		e, next, err := nextTreeEntry(rest)
		if err != nil {
			return 0, err
		}
		if n > 0 && compareGitOrder(&prev, &e) >= 0 {
			return 0, fmt.Errorf("%w: %q is not after %q in git's order", errMalformedTree, e.Name, prev.Name)
		}
		for len(files) > 0 && !strings.HasPrefix(e.Name, files[len(files)-1]) {
			files = files[:len(files)-1]
		}
		if e.Mode == filemode.Dir {
			if len(files) > 0 && files[len(files)-1] == e.Name {
				return 0, fmt.Errorf("%w: %q is a file and a directory", errMalformedTree, e.Name)
			}
		} else {
			files = append(files, e.Name)
		}
		prev, rest = e, next
	}
	return n, nil
}

// nextTreeEntry parses the first entry of a tree's text with go-git's
// refusals and canonical modes; the name is a substring of text.
func nextTreeEntry(text string) (treeEntry, string, error) {
	sp := strings.IndexByte(text, ' ')
	if sp < 0 {
		return treeEntry{}, "", fmt.Errorf("%w: missing mode terminator", errMalformedTree)
	}
	mode, err := parseTreeMode(text[:sp])
	if err != nil {
		return treeEntry{}, "", fmt.Errorf("%w: malformed mode", errMalformedTree)
	}
	text = text[sp+1:]
	nul := strings.IndexByte(text, 0)
	if nul < 0 {
		return treeEntry{}, "", fmt.Errorf("%w: missing filename terminator", errMalformedTree)
	}
	if nul == 0 {
		return treeEntry{}, "", fmt.Errorf("%w: empty filename", errMalformedTree)
	}
	name := text[:nul]
	text = text[nul+1:]
	var hash plumbing.Hash
	if len(text) < len(hash) {
		return treeEntry{}, "", fmt.Errorf("%w: truncated object id", errMalformedTree)
	}
	copy(hash[:], text)
	return treeEntry{Name: name, Mode: treeEntryMode(mode), Hash: hash}, text[len(hash):], nil
}

// parseTreeMode is filemode.New, with the modes git writes answered
// without parsing.
func parseTreeMode(s string) (filemode.FileMode, error) {
	switch s {
	case "40000":
		return filemode.Dir, nil
	case "100644":
		return filemode.Regular, nil
	}
	return filemode.New(s)
}

// treeEntryMode is the mode an entry's mode stands for. Git writes five
// (040000, 100644, 100755, 120000, 160000: git-fast-import(1)); a tree
// made otherwise may hold others (100664, 644), which are read by their
// object type, the four bits above the twelve permission bits
// (gitformat-index(5)): a file is executable when any execute bit is set,
// and a type that is neither file, directory nor symlink is a gitlink.
// go-git reads them so, and verify judges what go-git reads
// (TestDecodeTreeAsGoGit).
func treeEntryMode(mode filemode.FileMode) filemode.FileMode {
	const objectTypeBits = 0o170000
	switch objectType := mode & objectTypeBits; objectType {
	case filemode.Dir, filemode.Symlink:
		return objectType
	case filemode.Regular & objectTypeBits:
		if mode&0o111 == 0 {
			return filemode.Regular
		}
		return filemode.Executable
	}
	return filemode.Submodule
}

// entry finds name in tree h; ok is false when it is absent.
func (r *treeReader) entry(h plumbing.Hash, name string) (treeEntry, bool, error) {
	it, err := r.entriesOf(h)
	if err != nil {
		return treeEntry{}, false, err
	}
	// Entries are sorted in git order; names here never collide with a
	// "name/" sort key, so a linear scan on small trees and a binary search
	// on large ones agree. Shard trees are small; type trees have ≤256.
	for it.next() {
		if it.e.Name == name {
			return it.e, true, nil
		}
	}
	return treeEntry{}, false, nil
}

// lookup walks a slash-separated path from root; zero hash when absent.
func (r *treeReader) lookup(root plumbing.Hash, path string) (plumbing.Hash, filemode.FileMode, error) {
	h := root
	var mode filemode.FileMode = filemode.Dir
	for _, part := range strings.Split(path, "/") {
		if mode != filemode.Dir || h.IsZero() {
			return plumbing.ZeroHash, 0, nil
		}
		e, ok, err := r.entry(h, part)
		if err != nil || !ok {
			return plumbing.ZeroHash, 0, err
		}
		h, mode = e.Hash, e.Mode
	}
	return h, mode, nil
}

// objectSink is where new objects go; the store's is crash-safe.
type objectSink interface {
	WriteObject(o plumbing.EncodedObject) (plumbing.Hash, error)
}

// writeTree returns the hash of tree base with files set to new blobs,
// rewriting only the trees on the changed paths (O(depth) per file).
func writeTree(r *treeReader, sink objectSink, base plumbing.Hash, files map[string]plumbing.Hash) (plumbing.Hash, error) {
	t, err := r.tree(base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	// The base's entries are in git's order: each change is a binary
	// search and an insert or a replacement, where building a map of a
	// shard's hundreds of entries and sorting them again for every op was
	// a tenth of a server's CPU. A base out of order (not written by git
	// nor by us) is sorted first.
	es := make([]treeEntry, len(t.Entries), len(t.Entries)+len(files))
	copy(es, t.Entries)
	if !inGitOrder(es) {
		sortGitOrder(es)
	}
	sub := map[string]map[string]plumbing.Hash{}
	for p, blob := range files {
		dir, rest, nested := strings.Cut(p, "/")
		if !nested {
			if i, ok := findEntry(es, p); ok && es[i].Mode == filemode.Dir {
				return plumbing.ZeroHash, errors.New("gitstore: " + p + " is a directory where a file is to be written")
			}
			es = setEntry(es, treeEntry{Name: p, Mode: filemode.Regular, Hash: blob})
			continue
		}
		if sub[dir] == nil {
			sub[dir] = map[string]plumbing.Hash{}
		}
		sub[dir][rest] = blob
	}
	for dir, files := range sub {
		var childBase plumbing.Hash
		if i, ok := findEntry(es, dir); ok {
			if es[i].Mode != filemode.Dir {
				return plumbing.ZeroHash, errors.New("gitstore: " + dir + " is a file where a directory is expected")
			}
			childBase = es[i].Hash
		}
		h, err := writeTree(r, sink, childBase, files)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		es = setEntry(es, treeEntry{Name: dir, Mode: filemode.Dir, Hash: h})
	}
	nt := &treeObj{Entries: es}
	obj, err := encodeTree(es)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := sink.WriteObject(obj)
	if err == nil {
		// The next op of a commit group starts from this tree
		// (chainView shares the reader): no read and decode of it.
		nt.Hash = h
		if _, ok := r.cache[h]; !ok {
			r.cache[h] = nt
			r.entries += len(nt.Entries)
		}
	}
	return h, err
}

// encodeTree is object.Tree.Encode for entries in git's order, in one
// buffer: go-git formats each entry with fmt into a growing object, which
// was more than half of writing a shard's tree.
func encodeTree(es []treeEntry) (*plumbing.MemoryObject, error) {
	n := 0
	for i := range es {
		n += 7 + len(es[i].Name) + 1 + len(es[i].Hash)
	}
	b := make([]byte, 0, n)
	for i := range es {
		e := &es[i]
		if e.Name == "" || strings.IndexByte(e.Name, 0) >= 0 {
			return nil, fmt.Errorf("gitstore: malformed file name %q", e.Name)
		}
		b = strconv.AppendUint(b, uint64(e.Mode), 8)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.Hash[:]...)
	}
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.TreeObject)
	_, err := o.Write(b)
	return o, err
}

// inGitOrder reports whether es is strictly in git's order.
func inGitOrder(es []treeEntry) bool {
	for i := 1; i < len(es); i++ {
		if compareGitOrder(&es[i-1], &es[i]) >= 0 {
			return false
		}
	}
	return true
}

// searchGitOrder is the index in es (in git's order) of the first entry
// not before e.
func searchGitOrder(es []treeEntry, e *treeEntry) int {
	return sort.Search(len(es), func(i int) bool { return compareGitOrder(&es[i], e) >= 0 })
}

// findEntry finds the entry named name in es, a file's or a directory's
// (which sort apart: a directory as "name/").
func findEntry(es []treeEntry, name string) (int, bool) {
	for _, mode := range []filemode.FileMode{filemode.Regular, filemode.Dir} {
		key := treeEntry{Name: name, Mode: mode}
		if i := searchGitOrder(es, &key); i < len(es) && es[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

// setEntry puts e in es (in git's order) in place of the entry with its
// name, or inserts it where it sorts.
func setEntry(es []treeEntry, e treeEntry) []treeEntry {
	if i, ok := findEntry(es, e.Name); ok {
		es = append(es[:i], es[i+1:]...)
	}
	i := searchGitOrder(es, &e)
	es = append(es, treeEntry{})
	copy(es[i+1:], es[i:])
	es[i] = e
	return es
}

// sortGitOrder sorts entries as git does: by name, a directory compared as
// if its name ended in "/".
func sortGitOrder(es []treeEntry) {
	sort.Slice(es, func(i, j int) bool { return gitOrderName(&es[i]) < gitOrderName(&es[j]) })
}

// gitOrderName is the name git sorts a tree entry by: a directory's as if
// it ended in "/".
func gitOrderName(e *treeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// compareGitOrder compares gitOrderName(a) and gitOrderName(b) without
// building either: a diff compares every entry of two trees, and the
// concatenation was an allocation per directory per comparison.
func compareGitOrder(a, b *treeEntry) int {
	an, bn := a.Name, b.Name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	// One name is a prefix of the other: compare the bytes that follow
	// it in the order names ('/' after a directory's, nothing after a
	// file's), then, those equal, the longer order name is the greater.
	next := func(e *treeEntry, name string) int {
		switch {
		case n < len(name):
			return int(name[n])
		case e.Mode == filemode.Dir:
			return '/'
		}
		return -1
	}
	if ca, cb := next(a, an), next(b, bn); ca != cb {
		return cmp.Compare(ca, cb)
	}
	la, lb := len(an), len(bn)
	if a.Mode == filemode.Dir {
		la++
	}
	if b.Mode == filemode.Dir {
		lb++
	}
	return cmp.Compare(la, lb)
}

// Change is one file that differs between two trees.
type Change struct {
	Path     string
	Old, New plumbing.Hash     // zero when added / deleted
	Mode     filemode.FileMode // of the new side; a record must be a regular file
}

// diffTrees lists the files that differ between trees a and b, descending
// only into subtrees whose hashes differ: cost follows the size of the
// change, not of the store (go-git's DiffTree loads every subtree).
func diffTrees(r *treeReader, a, b plumbing.Hash, prefix string, out *[]Change) error {
	return diffTreesFunc(r, a, b, prefix, func(c Change) error {
		*out = append(*out, c)
		return nil
	})
}

// diffTreesFunc is diffTrees calling emit with each change as it finds
// it; an error from emit stops it.
func diffTreesFunc(r *treeReader, a, b plumbing.Hash, prefix string, emit func(Change) error) error {
	if a == b {
		return nil
	}
	ta, err := r.entriesOf(a)
	if err != nil {
		return err
	}
	tb, err := r.entriesOf(b)
	if err != nil {
		return err
	}
	okA, okB := ta.next(), tb.next()
	for okA || okB {
		var ea, eb *treeEntry
		if okA {
			ea = &ta.e
		}
		if okB {
			eb = &tb.e
		}
		// Walk both entry lists in the order git stores them, or a
		// directory "relation" and a new "relation.x" (stored first) would
		// pair up wrongly and every record under the first be reported
		// deleted and added again.
		switch {
		case eb == nil || (ea != nil && compareGitOrder(ea, eb) < 0):
			if err := diffEntry(r, ea, nil, prefix, emit); err != nil {
				return err
			}
			okA = ta.next()
		case ea == nil || compareGitOrder(eb, ea) < 0:
			if err := diffEntry(r, nil, eb, prefix, emit); err != nil {
				return err
			}
			okB = tb.next()
		default:
			if ea.Hash != eb.Hash || ea.Mode != eb.Mode {
				if err := diffEntry(r, ea, eb, prefix, emit); err != nil {
					return err
				}
			}
			okA, okB = ta.next(), tb.next()
		}
	}
	return nil
}

func diffEntry(r *treeReader, a, b *treeEntry, prefix string, emit func(Change) error) error {
	name := ""
	var aTree, bTree, aBlob, bBlob plumbing.Hash
	var aMode, bMode filemode.FileMode
	if a != nil {
		aMode = a.Mode
		name = a.Name
		if a.Mode == filemode.Dir {
			aTree = a.Hash
		} else {
			aBlob = a.Hash
		}
	}
	if b != nil {
		name = b.Name
		bMode = b.Mode
		if b.Mode == filemode.Dir {
			bTree = b.Hash
		} else {
			bBlob = b.Hash
		}
	}
	path := prefix + name
	if !aTree.IsZero() || !bTree.IsZero() {
		if err := diffTreesFunc(r, aTree, bTree, path+"/", emit); err != nil {
			return err
		}
	}
	// A mode change with the same content (a record turned into a symlink
	// or a gitlink) is a change too: verify must see it.
	if aBlob != bBlob || (!aBlob.IsZero() && aMode != bMode) {
		mode := bMode
		if bBlob.IsZero() {
			mode = 0
		}
		return emit(Change{Path: path, Old: aBlob, New: bBlob, Mode: mode})
	}
	return nil
}
