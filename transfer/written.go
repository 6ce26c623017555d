package transfer

import (
	"strings"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/wikilink"
)

// SourceBody is r's body as the source of an imported note wrote it: each
// link the import rewrote (r.WrittenAs) written back as the source had it,
// the rest of the body as it is. A link of the body with one written_as
// entry is written back as it wherever it appears; one with several, its
// n-th appearance as the n-th. For a note whose body has not changed since
// its import, that is the note's body byte for byte; a link made or
// changed since stays as the body holds it.
func SourceBody(r *kernel.Record) string {
	body, _ := sourceBody(r)
	return body
}

// sourceBody is SourceBody, and each link it wrote back, in body order
// (the body's link and what it wrote in its place): writtenAs of them is
// r.WrittenAs when every link the import rewrote is in the body as the
// import left it.
func sourceBody(r *kernel.Record) (string, []kernel.WrittenLink) {
	if len(r.WrittenAs) == 0 {
		return r.Body, nil
	}
	var back []kernel.WrittenLink
	sources := make(map[string][]string, len(r.WrittenAs))
	for _, w := range r.WrittenAs {
		sources[w.Link] = append(sources[w.Link], w.Source)
	}
	seen := map[string]int{}
	spans := wikilink.Spans([]byte(r.Body))
	var b strings.Builder
	last := 0
	for _, s := range spans {
		raw := r.Body[s.Start:s.End]
		ways, ok := sources[raw]
		if !ok || s.Start < last {
			continue
		}
		n := seen[raw]
		seen[raw]++
		was := ways[0]
		if len(ways) > 1 {
			if n >= len(ways) {
				continue
			}
			was = ways[n]
		}
		b.WriteString(r.Body[last:s.Start])
		b.WriteString(was)
		back = append(back, kernel.WrittenLink{Link: raw, Source: was})
		last = s.End
	}
	if last == 0 {
		return r.Body, back
	}
	b.WriteString(r.Body[last:])
	return b.String(), back
}
