package web

import (
	"html/template"
	"strings"

	"github.com/git-records/git-records/service"
	"github.com/git-records/git-records/wikilink"
)

// snippetHTML is a search snippet as HTML: each wikilink shown as a
// reader sees it (its label, else the title of the record it names, else
// its target as written), the text escaped, each highlighted range in
// <mark>, and a link with a highlight in it marked whole.
func snippetHTML(text string, highlights [][2]int, v *service.View) template.HTML {
	var b strings.Builder
	mark := func(from, to int) bool {
		for _, h := range highlights {
			if h[0] < to && from < h[1] {
				return true
			}
		}
		return false
	}
	at := 0
	for _, s := range wikilink.Spans([]byte(text)) {
		if s.Start < at || s.End > len(text) {
			continue
		}
		writeHighlighted(&b, text, at, s.Start, highlights)
		shown := template.HTMLEscapeString(linkText(s.Link, v))
		if mark(s.Start, s.End) {
			shown = "<mark>" + shown + "</mark>"
		}
		b.WriteString(`<span class="link">` + shown + `</span>`)
		at = s.End
	}
	writeHighlighted(&b, text, at, len(text), highlights)
	return template.HTML(b.String())
}

// writeHighlighted writes text[from:to] escaped, the parts of the
// highlights within it in <mark>.
func writeHighlighted(b *strings.Builder, text string, from, to int, highlights [][2]int) {
	at := from
	for _, h := range highlights {
		lo, hi := max(h[0], at), min(h[1], to)
		if lo >= hi || h[0] > h[1] {
			continue
		}
		b.WriteString(template.HTMLEscapeString(text[at:lo]))
		b.WriteString("<mark>" + template.HTMLEscapeString(text[lo:hi]) + "</mark>")
		at = hi
	}
	b.WriteString(template.HTMLEscapeString(text[at:to]))
}

// linkText is what a wikilink reads as: its label; else the title of the
// record it names (a section after it, "Title › Heading"); else its
// target as written.
func linkText(l wikilink.Link, v *service.View) string {
	if l.Label != "" {
		return l.Label
	}
	text := l.Target
	if id, err := v.Resolve(l.Target); err == nil && id != "" {
		if title, ok := v.Title(id); ok && strings.TrimSpace(title) != "" {
			text = service.OneLine(title)
		}
	}
	if l.Heading != "" {
		text += " › " + l.Heading
	}
	return text
}
