package transfer

import (
	"cmp"
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// A link names its target the way its author's tool reads it: a
// wikilink by the note's path in the source, its file name, an alias or
// its title (Obsidian, zk, Foam); a Markdown link by a path relative to
// the linking note, with or without .md, percent-escaped (zk, Foam,
// Hugo, Jekyll). The resolver tries, for the target whole (dots and all)
// and only then without a note extension (.md, .markdown):
//
//  1. a path: from the source's root, then from the linking note's
//     folder (a Markdown link: the other way round); a path ending in '/'
//     also names the folder's _index or index note (Hugo, Jekyll);
//  2. the end of a path: a site's URL (/docs/install/) names the note
//     whose path ends so (content/en/docs/install.md);
//  3. a file name, with or without its extension;
//  4. an alias as written, a title, an id or a handle the import gives;
//  5. the store's own handles.
//
// A Markdown link names a file: only 1 to 3.
//
// Names are compared without regard to case. Where several notes share a
// name, the one nearest the linking note wins: the one sharing most of
// its folders, then the one with the shortest path, then the first in
// path order.

// target is a file a link may name that is not a note: an attachment,
// made a record when first linked.
type target struct {
	rel  string // path in the source
	dir  string // its folder, "" at the root
	file string // its absolute path
	cand *candidate
	// unreadable: the attachment could not be read (reported once).
	unreadable bool
}

// A resolver names the target a link names by its index: a note (below
// len(notes), by its place in the source), an attachment (the next
// len(attachments)), or a record of the store a link resolved to (the
// rest, once found). Its names are kept compact, for a source of a hundred
// thousand notes: each kind of name a sorted table of lower-cased names
// and the notes they name, the names mostly slices of one lower-cased path.
type resolver struct {
	store             Handles
	notes             []noteName
	attachments       []*target
	stored            []string        // ids of the store's records links resolved to
	storedAt          map[string]int  // id -> its place in stored
	attachmentHandles map[string]bool // the handles attachments took
	names             nameIndex       // every name of every target, by kind
	ids               []string        // sorted: the ids of the notes read
	kind              sourceKind
}

// newResolver indexes the names of notes (names: by note, what links may
// call it besides its path and aliases) and of the source's attachments.
func newResolver(h Handles, notes []noteName, ids []string, names [][]string, attachments map[string]string, kind sourceKind) *resolver {
	r := &resolver{store: h, notes: notes, ids: ids, kind: kind}
	r.names.owner = r
	for _, rel := range sortedKeys(attachments) {
		r.attachments = append(r.attachments, &target{rel: rel, dir: dirOf(rel), file: attachments[rel]})
	}
	k := 0 // names are those of the readable notes, in order
	for i := range notes {
		n := &notes[i]
		if n.unreadable {
			continue
		}
		r.names.add(byOther, srcID, 0, i)
		for a := range n.aliases {
			r.names.add(byOther, srcAlias, uint32(a), i)
		}
		rel := n.rel()
		ext := len(path.Ext(rel))
		noExt := len(rel) - ext
		base := strings.LastIndexByte(rel, '/') + 1
		for _, name := range names[k] {
			// A name the note has as its id, an alias or a slice of its
			// path (its file name, a title written as it) is kept once.
			switch trimmed := strings.TrimSpace(name); {
			case name == n.id || slices.Contains(n.aliases, name):
			case n.placed && foldCompare(trimmed, rel[base:noExt]) == 0:
				r.names.addPath(byOther, rel, base, noExt, i)
			case n.placed && foldCompare(trimmed, rel[:noExt]) == 0:
				r.names.addPath(byOther, rel, 0, noExt, i)
			default:
				r.names.addName(byOther, name, i)
			}
		}
		k++
		if !n.placed {
			continue
		}
		r.names.addPath(byPath, rel, 0, len(rel), i)
		r.names.addPath(byPath, rel, 0, noExt, i)
		if b := path.Base(rel[:noExt]); strings.EqualFold(b, "_index") || strings.EqualFold(b, "index") {
			// The folder's page.
			if d := path.Dir(rel[:noExt]); d == rel[:max(strings.LastIndexByte(rel[:noExt], '/'), 0)] {
				noExt = len(d)
			} else {
				noExt = -1
				r.names.addName(byEnd, d, i) // not a slice of its path (it was cleaned)
			}
		}
		for at := 0; noExt >= 0; {
			r.names.addPath(byEnd, rel, at, noExt, i)
			slash := strings.IndexByte(rel[at:noExt], '/')
			if slash < 0 {
				break
			}
			at += slash + 1
		}
		r.names.addPath(byFile, rel, base, len(rel), i)
		r.names.addPath(byFile, rel, base, len(rel)-ext, i)
	}
	for a, t := range r.attachments {
		i := len(notes) + a
		r.names.addPath(byPath, t.rel, 0, len(t.rel), i)
		r.names.addPath(byFile, t.rel, strings.LastIndexByte(t.rel, '/')+1, len(t.rel), i)
	}
	r.names.sort()
	return r
}

// forReading is r for one reading of the notes: what a reading makes
// (attachments, the store's records found, the handles attachments take)
// starts anew, the names stay shared.
func (r *resolver) forReading() *resolver {
	c := *r
	c.attachments = make([]*target, len(r.attachments))
	for i, t := range r.attachments {
		c.attachments[i] = &target{rel: t.rel, dir: t.dir, file: t.file}
	}
	c.stored, c.storedAt, c.attachmentHandles = nil, map[string]int{}, map[string]bool{}
	return &c
}

// place is where a target is: its path in the source and its folder.
type place struct{ rel, dir string }

func (r *resolver) place(i int) place {
	switch {
	case i < len(r.notes):
		// A note's path is clean (the walk's): its folder is what comes
		// before its last '/', with nothing to allocate.
		rel := r.notes[i].rel()
		return place{rel, rel[:max(strings.LastIndexByte(rel, '/'), 0)]}
	case i < len(r.notes)+len(r.attachments):
		t := r.attachments[i-len(r.notes)]
		return place{t.rel, t.dir}
	}
	return place{}
}

// idOf is the id of target i, when it has one yet (an attachment has one
// once made).
func (r *resolver) idOf(i int) (string, bool) {
	switch {
	case i < len(r.notes):
		return r.notes[i].id, true
	case i < len(r.notes)+len(r.attachments):
		if t := r.attachments[i-len(r.notes)]; t.cand != nil {
			return t.cand.record.ID, true
		}
		return "", false
	}
	return r.stored[i-len(r.notes)-len(r.attachments)], true
}

// taken reports whether s is a handle of a note (its id or an alias) or
// one an attachment took.
func (r *resolver) taken(s string) bool {
	if r.attachmentHandles[s] {
		return true
	}
	taken := false
	r.names.each(byOther, s, func(i int) {
		if i < len(r.notes) && (r.notes[i].id == s || slices.Contains(r.notes[i].aliases, s)) {
			taken = true
		}
	})
	return taken
}

func (r *resolver) take(s string) { r.attachmentHandles[s] = true }

// The kinds of name a link may use for a target (resolve tries them in
// this order): its path, with or without its extension; an end of its
// path at '/'; its file name, with or without its extension; an alias, a
// title, an id, a handle.
type nameKind uint8

const (
	byPath nameKind = 1 << iota
	byEnd
	byFile
	byOther
)

// nameIndex is a table of names (trimmed), each with a target it names
// and the kinds of name it is for that target, sorted by name without
// regard to case (foldCompare): one row for a name a target has in several
// ways (a note's path without its extension is also the longest end of
// it), whatever the case it has each way. A row holds no name: it says
// where its target keeps it (nameSrc), so a table of a hundred thousand
// notes' names is about ten bytes a name.
type nameIndex struct {
	owner   *resolver
	targets []int32
	kinds   []nameKind
	srcs    []nameSrc
	at      []uint32
	// kept are the names that are no slice of their target's path, nor
	// its id or an alias: titles, aliases as written.
	kept []string
}

// nameSrc says where a row's name is: a slice of its target's path
// (at: offset<<16 | length), its id, its alias at, or kept[at].
type nameSrc uint8

const (
	srcPath nameSrc = iota
	srcID
	srcAlias
	srcKept
)

func (x *nameIndex) add(kind nameKind, src nameSrc, at uint32, i int) {
	x.targets, x.kinds, x.srcs, x.at = append(x.targets, int32(i)), append(x.kinds, kind), append(x.srcs, src), append(x.at, at)
}

// addPath adds rel[from:to], trimmed, a name of target i (whose path is rel).
func (x *nameIndex) addPath(kind nameKind, rel string, from, to, i int) {
	name := rel[from:to]
	trimmed := strings.TrimSpace(name)
	if trimmed == "" {
		return
	}
	from += len(name) - len(strings.TrimLeftFunc(name, unicode.IsSpace))
	if from >= 1<<16 || len(trimmed) >= 1<<16 {
		x.addName(kind, trimmed, i)
		return
	}
	x.add(kind, srcPath, uint32(from)<<16|uint32(len(trimmed)), i)
}

// addName adds a name of target i that is kept as it is.
func (x *nameIndex) addName(kind nameKind, name string, i int) {
	if name = strings.TrimSpace(name); name == "" {
		return
	}
	x.add(kind, srcKept, uint32(len(x.kept)), i)
	x.kept = append(x.kept, name)
}

// name is row k's name.
func (x *nameIndex) name(k int) string {
	r, t, at := x.owner, int(x.targets[k]), x.at[k]
	switch x.srcs[k] {
	case srcPath:
		var rel string
		if t < len(r.notes) {
			rel = r.notes[t].origin
		} else {
			rel = r.attachments[t-len(r.notes)].rel
		}
		return rel[at>>16 : at>>16+at&0xffff]
	case srcID:
		return r.notes[t].id
	case srcAlias:
		return r.notes[t].aliases[at]
	}
	return x.kept[at]
}

// sort orders the table, each name of a target in one row.
func (x *nameIndex) sort() {
	sort.Sort(x)
	n := 0
	for k := range x.targets {
		if n > 0 && x.targets[k] == x.targets[n-1] && foldCompare(x.name(k), x.name(n-1)) == 0 {
			x.kinds[n-1] |= x.kinds[k]
			continue
		}
		x.targets[n], x.kinds[n], x.srcs[n], x.at[n] = x.targets[k], x.kinds[k], x.srcs[k], x.at[k]
		n++
	}
	// Copied to their size (what append left spare is a third of a table
	// on average), with only the kept names a row still names.
	x.targets, x.kinds, x.srcs, x.at = slices.Clone(x.targets[:n]), slices.Clone(x.kinds[:n]), slices.Clone(x.srcs[:n]), slices.Clone(x.at[:n])
	count := 0
	for _, src := range x.srcs {
		if src == srcKept {
			count++
		}
	}
	kept := make([]string, 0, count)
	for k, src := range x.srcs {
		if src == srcKept {
			kept = append(kept, x.kept[x.at[k]])
			x.at[k] = uint32(len(kept) - 1)
		}
	}
	x.kept = kept
}

func (x *nameIndex) Len() int { return len(x.targets) }
func (x *nameIndex) Less(i, j int) bool {
	if c := foldCompare(x.name(i), x.name(j)); c != 0 {
		return c < 0
	}
	return x.targets[i] < x.targets[j]
}
func (x *nameIndex) Swap(i, j int) {
	x.targets[i], x.targets[j] = x.targets[j], x.targets[i]
	x.kinds[i], x.kinds[j] = x.kinds[j], x.kinds[i]
	x.srcs[i], x.srcs[j] = x.srcs[j], x.srcs[i]
	x.at[i], x.at[j] = x.at[j], x.at[i]
}

// each calls fn with every target name names as kind, name compared
// without regard to case.
func (x *nameIndex) each(kind nameKind, name string, fn func(i int)) {
	k := sort.Search(len(x.targets), func(k int) bool { return foldCompare(x.name(k), name) >= 0 })
	for ; k < len(x.targets) && foldCompare(x.name(k), name) == 0; k++ {
		if x.kinds[k]&kind != 0 {
			fn(int(x.targets[k]))
		}
	}
}

// foldCompare compares a and b as strings.ToLower(a) and
// strings.ToLower(b) compare, rune by rune, without making either.
func foldCompare(a, b string) int {
	for a != "" && b != "" {
		if a[0] < utf8.RuneSelf && b[0] < utf8.RuneSelf {
			ca, cb := lowerASCII(a[0]), lowerASCII(b[0])
			if ca != cb {
				return cmp.Compare(ca, cb)
			}
			a, b = a[1:], b[1:]
			continue
		}
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra, rb = unicode.ToLower(ra), unicode.ToLower(rb); ra != rb {
			return cmp.Compare(ra, rb)
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func dirOf(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}

// resolve finds the target a link names from the note at from; i < 0
// and a reason when it names none.
func (r *resolver) resolve(name string, from place, markdown bool) (i int, reason string) {
	name = strings.TrimSpace(name)
	if name == "" {
		return -1, "it names no note"
	}
	folder := strings.HasSuffix(name, "/")
	keys := []string{name}
	if ext := strings.ToLower(path.Ext(name)); ext == ".md" || ext == ".markdown" {
		keys = append(keys, strings.TrimSuffix(name, path.Ext(name)))
	}
	for _, k := range keys {
		rooted := cleanRel(strings.TrimPrefix(k, "/"))
		relative := ""
		if !strings.HasPrefix(k, "/") {
			relative = cleanRel(path.Join(from.dir, k))
		}
		order := []string{rooted, relative}
		if markdown {
			order = []string{relative, rooted}
		}
		for _, p := range order {
			if p == "" {
				continue
			}
			candidates := []string{p}
			if folder {
				candidates = append(candidates, p+"/_index", p+"/index")
			}
			for _, c := range candidates {
				if i := r.nearest(byPath, c, from); i >= 0 {
					return i, ""
				}
			}
		}
	}
	for _, k := range keys {
		if p := cleanRel(strings.TrimPrefix(k, "/")); p != "" && (folder || strings.Contains(p, "/")) {
			if i := r.nearest(byEnd, p, from); i >= 0 {
				return i, ""
			}
		}
	}
	for _, k := range keys {
		if i := r.nearest(byFile, path.Base(k), from); i >= 0 {
			return i, ""
		}
	}
	if markdown {
		// A Markdown link names a file, never a title or an alias.
		return -1, "no file of the source has that path or name"
	}
	for _, k := range keys {
		if i := r.nearest(byOther, k, from); i >= 0 {
			return i, ""
		}
	}
	if r.store != nil && !markdown {
		id, err := r.store.Resolve(name)
		if err != nil {
			return -1, errorText(err)
		}
		if id != "" {
			at, ok := r.storedAt[id]
			if !ok {
				at = len(r.stored)
				r.storedAt[id] = at
				r.stored = append(r.stored, id)
			}
			return len(r.notes) + len(r.attachments) + at, ""
		}
	}
	return -1, "no note or record has that name"
}

// cleanRel is p cleaned, "" when it leaves the source's root.
func cleanRel(p string) string {
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return ""
	}
	return p
}

// nearest picks, of the targets name names as kind, the one nearest
// from: the most folders in common, then the shortest path, then path
// order; -1 when it names none.
func (r *resolver) nearest(kind nameKind, name string, from place) int {
	best, bestShared := -1, -1
	var bestAt place
	r.names.each(kind, name, func(i int) {
		t := r.place(i)
		shared := sharedFolders(from.dir, t.dir)
		if best < 0 || shared > bestShared ||
			shared == bestShared && (depth(t.rel) < depth(bestAt.rel) || depth(t.rel) == depth(bestAt.rel) && t.rel < bestAt.rel) {
			best, bestShared, bestAt = i, shared, t
		}
	})
	return best
}

func depth(rel string) int { return strings.Count(rel, "/") }

func sharedFolders(a, b string) int {
	if a == "" || b == "" {
		return 0
	}
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

// isHandle reports whether h names the record of target i, id, in the
// store's terms: its id, a note's alias, or an id prefix of 8+ characters
// no other record of the import shares.
func (r *resolver) isHandle(h string, i int, id string) bool {
	if h == id || i < len(r.notes) && slices.Contains(r.notes[i].aliases, h) {
		return true
	}
	if len(h) < 8 || !strings.HasPrefix(id, h) {
		return false
	}
	k := sort.SearchStrings(r.ids, h)
	return k+1 >= len(r.ids) || !strings.HasPrefix(r.ids[k+1], h)
}

// localDestination reads a Markdown link's destination as a path in the
// source: backslash escapes and percent escapes decoded; ok false for a
// URL with a scheme (https:, mailto:, obsidian:), a network path (//host)
// or a link within the page (#part).
func localDestination(dest string) (string, bool) {
	dest = unescapePunct(dest)
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "//") || hasScheme(dest) {
		return "", false
	}
	if d, err := url.PathUnescape(dest); err == nil {
		dest = d
	}
	if i := strings.IndexAny(dest, "?"); i >= 0 {
		dest = dest[:i]
	}
	return dest, dest != ""
}

func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':':
			return i > 1 // a drive letter (C:) is a path
		default:
			return false
		}
	}
	return false
}

func unescapePunct(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// rewrite resolves a candidate's links: body links and embeds to ids,
// frontmatter links and relation ends to ids; what does not resolve stays
// as written and is reported. A foreign note's rewritten links are kept
// as the source wrote them in its written_as, so export can give its body
// back byte for byte.
func (r *resolver) rewrite(ti int, c *candidate, rep *Report, attach func(t *target) *candidate) {
	t := r.place(ti)
	rec := c.record
	unresolved := func(link, reason string) {
		rep.Unresolved = append(rep.Unresolved, Unresolved{Origin: c.origin, ID: rec.ID, Link: link, Reason: reason})
	}
	idOf := func(i int) string {
		if a := i - len(r.notes); a >= 0 && a < len(r.attachments) {
			to := r.attachments[a]
			if to.cand == nil && !to.unreadable {
				to.cand = attach(to)
				to.unreadable = to.cand == nil
			}
			if to.cand == nil {
				return ""
			}
			rep.Attachments = append(rep.Attachments, Attachment{Origin: c.origin, Path: to.rel, ID: to.cand.record.ID, Payload: to.cand.payloadRef})
		}
		id, _ := r.idOf(i)
		return id
	}
	rec.Body = rewriteSpans(rec.Body, c.scan.Links, func(s wikilink.Span, raw string) (string, bool) {
		name, heading, label := s.Target, s.Heading, s.Label
		swapped := false
		if s.Markdown {
			local, ok := localDestination(s.Target)
			if !ok {
				return "", false
			}
			name = local
			if h, err := url.PathUnescape(heading); err == nil {
				heading = h
			}
			label = strings.Join(strings.Fields(label), " ")
		} else if r.kind.LabelFirst && c.foreign && label != "" {
			// Dendron: [[label|target#heading]], and a target in another
			// vault written dendron://vault/note.
			name, label, swapped = label, name, true
			if heading != "" {
				label += "#" + heading
			}
			name, heading, _ = strings.Cut(name, "#")
			name = strings.TrimSpace(name)
			if name == "" {
				return "", false // [[label|#heading]]: a place in the same note, as written
			}
		}
		if r.kind.LabelFirst && strings.HasPrefix(name, "dendron://") {
			if _, note, ok := strings.Cut(strings.TrimPrefix(name, "dendron://"), "/"); ok {
				name = note
			}
		}
		i, reason := r.resolve(name, t, s.Markdown)
		if i < 0 {
			unresolved(raw, reason)
			if swapped {
				// Kept as the store reads links, target first, so that its
				// index does not take the label for the target.
				repl := formatLink(s.Embed, name, heading, label, s.InTable)
				c.keepWritten(repl, raw)
				return repl, true
			}
			return "", false
		}
		id := idOf(i)
		if id == "" {
			unresolved(raw, "the file it names cannot be read or is over the payload limit")
			return "", false
		}
		shown := label
		if shown == "" {
			shown = name
		}
		// The shortest form that shows the same text: [[Name|home]] where
		// home is a handle of the record becomes [[home]]; a wikilink whose
		// target is already a handle stays.
		asWritten := !s.Markdown && !swapped
		repl := raw // kept as written: its target is a handle already
		switch {
		case r.isHandle(shown, i, id):
			if !asWritten || s.Label != "" {
				repl = formatLink(s.Embed, shown, heading, "", s.InTable)
			}
		case asWritten && r.isHandle(name, i, id):
		default:
			repl = formatLink(s.Embed, id, heading, shown, s.InTable)
		}
		if c.foreign {
			// Kept too when unchanged: another link the source wrote
			// otherwise may be rewritten to the same text.
			c.keepWritten(repl, raw)
		}
		return repl, repl != raw
	})
	inBody := map[string]bool{}
	if c.contractJSON {
		for _, l := range wikilink.Extract([]byte(rec.Body)) {
			if i, _ := r.resolve(l.Target, t, false); i >= 0 {
				if id, ok := r.idOf(i); ok {
					inBody[id] = true
				}
			}
		}
	}
	links := rec.Links[:0]
	for _, l := range rec.Links {
		if i, reason := r.resolve(l.TargetID, t, false); i < 0 {
			unresolved(l.Kind+":"+l.TargetID, reason)
		} else if id, ok := r.idOf(i); ok {
			l.TargetID = id
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
		if i, reason := r.resolve(*end, t, false); i < 0 {
			unresolved("relation end "+*end, reason)
		} else if id, ok := r.idOf(i); ok {
			*end = id
		}
	}
}

// keepWritten records that the body's link repl was written raw in the
// source (writtenAs makes the record's written_as of them).
func (c *candidate) keepWritten(repl, raw string) {
	c.written = append(c.written, kernel.WrittenLink{Link: repl, Source: raw})
}

// writtenAs is a record's written_as for the links its import rewrote, in
// body order: one entry for a link the source wrote one way wherever it
// appears, one entry per appearance for a link it wrote several ways
// ([[Note]] and [[Note|Note]] both become [[id|Note]]). A link whose
// text is over the bounds is left out, and entries past MaxWrittenAs.
func writtenAs(occurrences []kernel.WrittenLink) []kernel.WrittenLink {
	ways := map[string]map[string]bool{}
	for _, w := range occurrences {
		if ways[w.Link] == nil {
			ways[w.Link] = map[string]bool{}
		}
		ways[w.Link][w.Source] = true
	}
	var out []kernel.WrittenLink
	taken := map[string]bool{}
	for _, w := range occurrences {
		if len(w.Link) > kernel.MaxWrittenLinkBytes || len(w.Source) > kernel.MaxWrittenLinkBytes || strings.ContainsRune(w.Source, 0) {
			ways[w.Link]["\x00too long"] = true
		}
	}
	for _, w := range occurrences {
		switch {
		case ways[w.Link]["\x00too long"]:
			continue
		case len(ways[w.Link]) == 1 && (taken[w.Link] || w.Source == w.Link):
			continue // one way, kept once; as written everywhere, not at all
		case len(out) == kernel.MaxWrittenAs:
			return out
		}
		taken[w.Link] = true
		out = append(out, w)
	}
	return out
}

// attachmentRecord makes the record of a file a note links to (an image,
// a PDF): type raw, titled by its file name, its content stored once by
// hash as the record's payload.
func attachmentRecord(rel, file string, opts ImportOptions) (*candidate, error) {
	data, err := readBounded(file)
	if err != nil {
		return nil, err
	}
	if len(data) > kernel.MaxPayloadBytes {
		return nil, fmt.Errorf("%d bytes, over the payload limit of %d", len(data), kernel.MaxPayloadBytes)
	}
	return &candidate{origin: rel, names: []string{rel, path.Base(rel)}, payload: data, record: attachmentOf(rel, data, opts)}, nil
}

// attachmentOf is the record of the attachment at rel holding data (its
// payload is set when the import stores it).
func attachmentOf(rel string, data []byte, opts ImportOptions) *kernel.Record {
	base := path.Base(rel)
	return &kernel.Record{ID: derivedID(rel), Type: "raw", Title: base, Category: folderCategory(opts.Category, path.Dir(rel)),
		Body:   fmt.Sprintf("Attachment %s (%d bytes), stored as payload %s.\n", base, len(data), kernel.PayloadRef(data)),
		Source: &kernel.Source{Extension: "import", ExternalID: rel}}
}
