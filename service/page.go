package service

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/graph"
	"github.com/git-records/git-records/kernel"
)

// Field is one line of a record's summary: a name and what it says.
type Field struct{ Name, Value string }

// RecordPage is what `show` prints of a record and the web view's record
// page shows: the summary fields (scope and freshness as the working tree
// stands now), the links and backlinks, and the freshness verdict.
type RecordPage struct {
	Record    *kernel.Record
	Fields    []Field
	Links     Links
	Freshness kernel.Verdict
}

// RecordPage computes a record's page once, for every front-end that shows
// one to people.
func (s *Service) RecordPage(v *View, r *kernel.Record) (*RecordPage, error) {
	links, err := v.Links(r.ID)
	if err != nil {
		return nil, err
	}
	verdicts, err := s.Verdicts(v, []*kernel.Record{r}, time.Now())
	if err != nil {
		return nil, err
	}
	p := &RecordPage{Record: r, Links: links, Freshness: verdicts[0]}
	add := func(name, format string, args ...any) {
		p.Fields = append(p.Fields, Field{name, fmt.Sprintf(format, args...)})
	}
	add("id", "%s", r.ID)
	add("title", "%s", OneLine(r.Title))
	add("type", "%s (%s/%s/%s)", r.Type, r.Kind, r.Role, r.Authority)
	add("category", "%s", r.Category)
	add("status", "%s", statusLine(r, links))
	if len(r.Tags) > 0 {
		add("tags", "%s", strings.Join(r.Tags, ", "))
	}
	if len(r.Aliases) > 0 {
		add("aliases", "%s", strings.Join(r.Aliases, ", "))
	}
	add("created", "%s by %s", r.CreatedAt, r.Provenance.Agent)
	add("updated", "%s", r.UpdatedAt)
	if exp, ok := r.EffectiveExpiry(); ok {
		add("expires", "%s", kernel.At(exp))
	}
	if sc := r.Scope; sc != nil {
		at := sc.GitHead
		if len(at) > 12 {
			at = at[:12]
		}
		if sc.Base != "" {
			at += " (" + sc.Base + ")"
		}
		add("scope", "%s at %s", strings.Join(sc.Paths, ", "), at)
	}
	vd := p.Freshness
	fresh := string(vd.State) + ": " + vd.Reason
	if len(vd.ChangedPaths) > 0 {
		fresh += ": " + strings.Join(vd.ChangedPaths, ", ")
	}
	add("freshness", "%s", fresh)
	return p, nil
}

// statusLine is a record's status, and who supersedes it when a record
// does: a superseded record keeps its stored status (B.1) but is not live.
func statusLine(r *kernel.Record, links Links) string {
	s := string(r.EffectiveStatus())
	if by := SupersededBy(links); len(by) > 0 {
		s += ", superseded by " + strings.Join(by, ", ")
	}
	return s
}

// SupersededBy lists the records with a supersedes link to this one.
func SupersededBy(links Links) []string {
	var by []string
	for _, e := range links.Reverse {
		if e.Kind == kernel.LinkSupersedes {
			by = append(by, e.Source)
		}
	}
	return by
}

// ListedStatus is the status column of a listing: "superseded" for a
// record another supersedes, else its stored status.
func ListedStatus(v *View, id string, status kernel.Status) string {
	// One kind of backlink, from the index's edge rows: a listing asks this
	// of every record it prints, and a hub among them has 10,000 others.
	if v.git == nil {
		return string(status)
	}
	if ix, err := v.git.Index(); err == nil && ix.HasBacklink(id, kernel.LinkSupersedes) {
		return "superseded"
	}
	return string(status)
}

// HandleFor is the handle a listing prints for id: its ShortID, lengthened
// as git lengthens short hashes until it resolves to id itself. An 8
// character prefix that several ids share ("payment-api-v1-…",
// "payment-api-v2-…") or that is another record's id or alias would
// otherwise be printed for a record it does not name.
//
// A view that can answer from its index in two searches (gitstore's View:
// ShortHandle) does; resolving each prefix in turn took a third of a text
// search's own time at 100,000 records.
func HandleFor(v kernel.View, id string) string {
	if sv, ok := v.(*View); ok && sv.git != nil {
		v = sv.git
	}
	if s, ok := v.(interface{ ShortHandle(string) (string, bool) }); ok {
		if h, ok := s.ShortHandle(id); ok {
			return h
		}
	}
	short := ShortID(id)
	for n := len(short); n < len(id); n++ {
		if got, err := v.Resolve(id[:n]); err == nil && got == id {
			return id[:n]
		}
	}
	return id
}

// ShortID is the 8-character handle people cite (Addendum H).
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:kernel.MinIDPrefix]
	}
	return id
}

// OneLine folds a title onto one line for the line-per-record listings: a
// title may hold newlines, which must not start what looks like another
// record (or field) in the output.
func OneLine(s string) string {
	for i := 0; i < len(s); i++ {
		// Only a control byte, a space at an end or next to another, or a
		// non-ASCII byte (a Unicode space?) needs the rewrite; most
		// titles are returned as they are, without allocating.
		if c := s[i]; c < ' ' || c >= utf8.RuneSelf || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}

// Graph is the graph `graph` and the web view draw: the whole store
// (handle ""), or the neighbourhood of the record handle names, depth
// links either way.
func (s *Service) Graph(v *View, handle string, depth int) (*graph.Graph, error) {
	g, err := v.needsIndex("the graph")
	if err != nil {
		return nil, err
	}
	ix, err := g.Index()
	if err != nil {
		return nil, err
	}
	if handle == "" {
		return wholeGraph(ix), nil
	}
	id, err := v.Resolve(handle)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q: check the id, alias or 8+ character prefix (git records list)", handle)
	}
	return graphAround(ix, id, depth), nil
}

// LinkCounts counts the links of each record, both ways: how linked it is.
func (v *View) LinkCounts() (map[string]int, error) {
	g, err := v.needsIndex("link counts")
	if err != nil {
		return nil, err
	}
	ix, err := g.Index()
	if err != nil {
		return nil, err
	}
	return ix.LinkCounts(), nil
}

// ReadableGraph is the neighbourhood of root that one can read: at most
// limit records, the most linked first (counts: LinkCounts), and how many
// it left out.
func ReadableGraph(v *View, root string, limit int, counts map[string]int) (*graph.Graph, int, error) {
	g, err := v.needsIndex("the graph")
	if err != nil {
		return nil, 0, err
	}
	ix, err := g.Index()
	if err != nil {
		return nil, 0, err
	}
	out, left := readableGraph(ix, root, limit, counts)
	return out, left, nil
}

// LinkLine is one line of a link listing: every link between the record
// and one other end in one direction, each kind once in the order the
// links come, with their labels.
type LinkLine struct {
	End    string
	First  int // the index of its first edge among those LinkLines was given
	Kinds  []string
	Labels []string // distinct and not empty
}

// Kind is the line's kinds as a link line shows them ("source,related").
func (l LinkLine) Kind() string { return strings.Join(l.Kinds, ",") }

// EachLinkLine calls fn with each of the lines LinkLines(edges, end)
// returns, in the same order, without a slice of them: when the ends come
// sorted (the index gives backlinks in the order of their source), a line
// is complete when the next end differs, and one LinkLine is filled again
// for the next (fn must not keep it or its slices). Ends out of order go
// through LinkLines. A hub's 10,000 lines were 0.9 MB of fresh memory,
// each page of it a fault, in a process that collects no garbage.
func EachLinkLine(edges []Edge, end func(Edge) string, fn func(LinkLine)) {
	for n := 1; n < len(edges); n++ {
		if end(edges[n]) < end(edges[n-1]) {
			for _, l := range LinkLines(edges, end) {
				fn(l)
			}
			return
		}
	}
	f := lineFiller{fn: func(l LinkLine, _ EndTitle) { fn(l) }}
	for _, e := range edges {
		f.add(end(e), e.Kind, e.Label, EndTitle{})
	}
	f.done()
}

// lineFiller fills one LinkLine after another from edges whose ends come
// sorted: a line is complete when the next end differs. fn gets the line
// and the title given with its first edge, and must not keep either or
// the line's slices. With copy set the line's strings are copies in a
// buffer reused from line to line (the edges' strings are then views of a
// read buffer, valid for one call: EachBacklink's).
type lineFiller struct {
	fn    func(LinkLine, EndTitle)
	copy  bool
	l     LinkLine
	title EndTitle
	n     int
	buf   []byte
}

func (f *lineFiller) add(end, kind, label string, title EndTitle) {
	if f.n == 0 || end != f.l.End {
		if f.n > 0 {
			f.fn(f.l, f.title)
		}
		f.buf = f.buf[:0]
		f.l = LinkLine{End: f.keep(end), First: f.n, Kinds: f.l.Kinds[:0], Labels: f.l.Labels[:0]}
		f.title = EndTitle{Text: f.keep(title.Text), OK: title.OK}
	}
	if !slices.Contains(f.l.Kinds, kind) {
		f.l.Kinds = append(f.l.Kinds, f.keep(kind))
	}
	if label != "" && !slices.Contains(f.l.Labels, label) {
		f.l.Labels = append(f.l.Labels, f.keep(label))
	}
	f.n++
}

// keep is s as the line keeps it: a copy in buf with copy set. A copy
// that grows buf leaves the strings before it in the old array, which
// nothing writes again.
func (f *lineFiller) keep(s string) string {
	if !f.copy || s == "" {
		return s
	}
	at := len(f.buf)
	f.buf = append(f.buf, s...)
	return unsafe.String(&f.buf[at], len(s))
}

func (f *lineFiller) done() {
	if f.n > 0 {
		f.fn(f.l, f.title)
	}
}

// EachLinkLineOf gives the link lines of the record handle names, as
// Links and LinkLines give them (an unknown handle is NOT_FOUND): forward
// first, then reverse, each line with the title at its other end, one
// LinkLine filled again (fn must not keep it, its slices or the title).
// The backlinks come from the index one at a time when it can give them
// so (View.EachBacklink), and from Links otherwise: `links <hub>` at
// 100,000 records lists 10,000 of them without a slice of them.
func (s *Service) EachLinkLineOf(handle string, forward, reverse func(LinkLine, EndTitle)) error {
	sv, err := s.View()
	if err != nil {
		return err
	}
	v, err := sv.needsIndex("links")
	if err != nil {
		return err
	}
	if id, err := v.Resolve(handle); err != nil {
		return err
	} else if id == "" {
		return notFound(handle)
	}
	fl, err := v.ForwardLinks(handle)
	if err != nil {
		return err
	}
	l := linksOf(fl)
	target := func(e Edge) string { return e.Target }
	EachLinkLine(l.Forward, target, func(line LinkLine) { forward(line, l.ForwardTitles[line.First]) })
	f := lineFiller{fn: reverse, copy: true, buf: make([]byte, 0, 1<<10)}
	streamed, err := v.EachBacklink(handle, func(e gitstore.Edge, t gitstore.EndTitle) { f.add(e.Source, e.Kind, e.Label, EndTitle(t)) })
	if err != nil {
		return err
	}
	if streamed {
		f.done()
		return nil
	}
	if l, err = sv.Links(handle); err != nil {
		return err
	}
	source := func(e Edge) string { return e.Source }
	EachLinkLine(l.Reverse, source, func(line LinkLine) { reverse(line, l.ReverseTitles[line.First]) })
	return nil
}

// LinkLines groups edges by their other end (end gives it), in the order
// each end first comes: a record that links to another both by a link
// field and by a [[wikilink]] is one line carrying both kinds, not the same
// record listed twice. (--json keeps every link: the contract identifies a
// link by its target and kind.)
//
// The index gives backlinks in the order of their source, so a line is
// found as the one before it; the map of ends is built only if an end
// comes out of order (until then every end is greater than all before it,
// so a new one cannot be on an earlier line). For a hub's 10,000
// backlinks that map was a twentieth of `links`.
func LinkLines(edges []Edge, end func(Edge) string) []LinkLine {
	out := make([]LinkLine, 0, len(edges))
	var at map[string]int
	for n, e := range edges {
		k := end(e)
		i, ok := 0, false
		if n := len(out); n > 0 {
			switch last := out[n-1].End; {
			case last == k:
				i, ok = n-1, true
			case at != nil:
				i, ok = at[k]
			case k < last:
				at = make(map[string]int, len(edges))
				for j, l := range out {
					at[l.End] = j
				}
				i, ok = at[k]
			}
		}
		if !ok {
			i = len(out)
			if at != nil {
				at[k] = i
			}
			out = append(out, LinkLine{End: k, First: n})
		}
		l := &out[i]
		if !slices.Contains(l.Kinds, e.Kind) {
			l.Kinds = append(l.Kinds, e.Kind)
		}
		if e.Label != "" && !slices.Contains(l.Labels, e.Label) {
			l.Labels = append(l.Labels, e.Label)
		}
	}
	return out
}
