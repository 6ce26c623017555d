package transfer

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

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

// target is what a link may name: a note (its candidate) or a file that
// is not a note (an attachment, made a record when first linked).
type target struct {
	rel  string // path in the source
	dir  string // its folder, "" at the root
	cand *candidate
	file string // an attachment's absolute path
	// unreadable: the attachment could not be read (reported once).
	unreadable bool
}

type resolver struct {
	store   Handles
	targets []*target
	paths   map[string][]int // lower-cased path, and a note's without its extension
	ends    map[string][]int // lower-cased ends of a note's path (without its extension; an index note's folder), at '/'
	files   map[string][]int // lower-cased file name, and a note's without its extension
	others  map[string][]int // lower-cased aliases, titles, ids, handles
	handles map[string]map[string]bool
	ids     []string // sorted: the ids of the notes read
	kind    sourceKind
}

func newResolver(h Handles, cands []*candidate, attachments map[string]string, kind sourceKind) *resolver {
	r := &resolver{store: h, paths: map[string][]int{}, ends: map[string][]int{}, files: map[string][]int{}, others: map[string][]int{},
		handles: map[string]map[string]bool{}, kind: kind}
	add := func(m map[string][]int, key string, i int) {
		k := strings.ToLower(strings.TrimSpace(key))
		if k == "" {
			return
		}
		for _, j := range m[k] {
			if j == i {
				return
			}
		}
		m[k] = append(m[k], i)
	}
	for _, c := range cands {
		i := len(r.targets)
		rel := c.origin
		if c.contractJSON || !isNote(rel) {
			rel = "" // a JSONL line has no place in a folder
		}
		r.targets = append(r.targets, &target{rel: rel, dir: dirOf(rel), cand: c})
		id := c.record.ID
		hs := map[string]bool{id: true}
		for _, a := range c.record.Aliases {
			hs[a] = true
			add(r.others, a, i)
		}
		r.handles[id] = hs
		r.ids = append(r.ids, id)
		if rel != "" {
			add(r.paths, rel, i)
			noExt := strings.TrimSuffix(rel, path.Ext(rel))
			add(r.paths, noExt, i)
			if b := path.Base(noExt); b == "_index" || b == "index" {
				noExt = path.Dir(noExt) // the folder's page
			}
			for p := noExt; ; {
				add(r.ends, p, i)
				_, after, ok := strings.Cut(p, "/")
				if !ok {
					break
				}
				p = after
			}
			add(r.files, path.Base(rel), i)
			add(r.files, strings.TrimSuffix(path.Base(rel), path.Ext(rel)), i)
		}
		for _, n := range append(c.names, id, c.record.Title) {
			add(r.others, n, i)
		}
	}
	for _, rel := range sortedKeys(attachments) {
		i := len(r.targets)
		r.targets = append(r.targets, &target{rel: rel, dir: dirOf(rel), file: attachments[rel]})
		add(r.paths, rel, i)
		add(r.files, path.Base(rel), i)
	}
	sort.Strings(r.ids)
	return r
}

func dirOf(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}

// resolve finds the target a link names from the note at from; i < 0
// and a reason when it names none.
func (r *resolver) resolve(name string, from *target, markdown bool) (i int, reason string) {
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
				if i := r.nearest(r.paths[strings.ToLower(c)], from); i >= 0 {
					return i, ""
				}
			}
		}
	}
	for _, k := range keys {
		if p := cleanRel(strings.TrimPrefix(k, "/")); p != "" && (folder || strings.Contains(p, "/")) {
			if i := r.nearest(r.ends[strings.ToLower(p)], from); i >= 0 {
				return i, ""
			}
		}
	}
	for _, k := range keys {
		if i := r.nearest(r.files[strings.ToLower(path.Base(k))], from); i >= 0 {
			return i, ""
		}
	}
	if markdown {
		// A Markdown link names a file, never a title or an alias.
		return -1, "no file of the source has that path or name"
	}
	for _, k := range keys {
		if i := r.nearest(r.others[strings.ToLower(k)], from); i >= 0 {
			return i, ""
		}
	}
	if r.store != nil && !markdown {
		id, err := r.store.Resolve(name)
		if err != nil {
			return -1, errorText(err)
		}
		if id != "" {
			r.targets = append(r.targets, &target{cand: &candidate{record: &kernel.Record{ID: id}}})
			return len(r.targets) - 1, ""
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

// nearest picks, of the targets in, the one nearest from: the most
// folders in common, then the shortest path, then path order.
func (r *resolver) nearest(in []int, from *target) int {
	best, bestShared := -1, -1
	for _, i := range in {
		t := r.targets[i]
		shared := sharedFolders(from.dir, t.dir)
		if best < 0 || shared > bestShared ||
			shared == bestShared && (depth(t.rel) < depth(r.targets[best].rel) || depth(t.rel) == depth(r.targets[best].rel) && t.rel < r.targets[best].rel) {
			best, bestShared = i, shared
		}
	}
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
func (r *resolver) rewrite(ti int, rep *Report, attach func(t *target) *candidate) {
	t := r.targets[ti]
	c := t.cand
	rec := c.record
	unresolved := func(link, reason string) {
		rep.Unresolved = append(rep.Unresolved, Unresolved{Origin: c.origin, ID: rec.ID, Link: link, Reason: reason})
	}
	idOf := func(i int) string {
		to := r.targets[i]
		if to.cand == nil && !to.unreadable {
			to.cand = attach(to)
			to.unreadable = to.cand == nil
		}
		if to.cand == nil {
			return ""
		}
		if to.file != "" {
			rep.Attachments = append(rep.Attachments, Attachment{Origin: c.origin, Path: to.rel, ID: to.cand.record.ID, Payload: kernel.PayloadRef(to.cand.payload)})
		}
		return to.cand.record.ID
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
		case r.isHandle(shown, id):
			if !asWritten || s.Label != "" {
				repl = formatLink(s.Embed, shown, heading, "", s.InTable)
			}
		case asWritten && r.isHandle(name, id):
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
			if i, _ := r.resolve(l.Target, t, false); i >= 0 && r.targets[i].cand != nil {
				inBody[r.targets[i].cand.record.ID] = true
			}
		}
	}
	links := rec.Links[:0]
	for _, l := range rec.Links {
		if i, reason := r.resolve(l.TargetID, t, false); i >= 0 && r.targets[i].cand != nil {
			l.TargetID = r.targets[i].cand.record.ID
		} else if i < 0 {
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
		if i, reason := r.resolve(*end, t, false); i >= 0 && r.targets[i].cand != nil {
			*end = r.targets[i].cand.record.ID
		} else if i < 0 {
			unresolved("relation end "+*end, reason)
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
