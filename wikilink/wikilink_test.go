package wikilink

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var extractCases = []struct {
	name string
	body string
	want []Link
}{
	{"plain", "see [[rec1]]", []Link{{Target: "rec1"}}},
	{"label", "[[rec1|the note]]", []Link{{Target: "rec1", Label: "the note"}}},
	{"heading", "[[rec1#Open questions]]", []Link{{Target: "rec1", Heading: "Open questions"}}},
	{"heading and label", "[[rec1#Scope|why]]", []Link{{Target: "rec1", Heading: "Scope", Label: "why"}}},
	{"parts trimmed", "[[ rec1 # Scope | why ]]", []Link{{Target: "rec1", Heading: "Scope", Label: "why"}}},
	{"several per line, duplicates kept", "[[a]] and [[b|B]], then [[a]]",
		[]Link{{Target: "a"}, {Target: "b", Label: "B"}, {Target: "a"}}},
	{"adjacent to text", "x[[a]]y[[b]]z", []Link{{Target: "a"}, {Target: "b"}}},
	{"unicode target", "[[café-ñ|日本語]] [[знание]]",
		[]Link{{Target: "café-ñ", Label: "日本語"}, {Target: "знание"}}},
	{"second pipe belongs to label", "[[a|b|c]]", []Link{{Target: "a", Label: "b|c"}}},
	{"escaped punctuation unescaped", `[[a|x\]y\|z]]`, []Link{{Target: "a", Label: "x]y|z"}}},
	{"escaped pipe as separator outside a table", `[[a\|b]]`, []Link{{Target: "a", Label: "b"}}},
	{"empty label", "[[a|]]", []Link{{Target: "a"}}},

	{"inline code", "use `[[a]]` here", nil},
	{"double backtick code span", "``x [[a]] ` y``", nil},
	{"code span closing inside link", "[[a`b]]`", nil},
	{"fenced backticks", "```\n[[a]]\n```\n", nil},
	{"fenced tildes", "~~~md\n[[a]]\n~~~\n", nil},
	{"indented code", "para\n\n    [[a]]\n", nil},
	{"html block", "<div>\n[[a]]\n</div>\n", nil},
	{"raw html attribute", `text <span title="[[a]]">x</span>`, nil},
	{"autolink", "<http://example.com/[[a]]>", nil},
	{"code around a real link", "`x` [[a]] `y`", []Link{{Target: "a"}}},
	{"code span over lines", "`a\n[[a]]\nb`", nil},
	{"runs without closers", "``` x [[a]] ` y", []Link{{Target: "a"}}},
	{"escaped backtick", "\\`[[a]]`", []Link{{Target: "a"}}},
	{"closer after a backslash", "`x\\`[[a]]`", []Link{{Target: "a"}}},
	{"closer of the same length only", "`` a ` [[b]] ``[[a]]", []Link{{Target: "a"}}},

	{"table with escaped pipe", "| link | note |\n|---|---|\n| [[a\\|A]] | [[b#h\\|B]] |\n",
		[]Link{{Target: "a", Label: "A"}, {Target: "b", Heading: "h", Label: "B"}}},
	{"table header cell", "| [[a]] |\n|---|\n| x |\n", []Link{{Target: "a"}}},
	{"table with bare pipe splits the cell", "| x | y |\n|---|---|\n| [[a|A]] | z |\n", nil},

	{"emphasis", "*[[a]]* and **[[b]]** and _x [[c]] y_",
		[]Link{{Target: "a"}, {Target: "b"}, {Target: "c"}}},
	{"list items", "- [[a]]\n- item\n  1. [[b|B]]\n", []Link{{Target: "a"}, {Target: "b", Label: "B"}}},
	{"blockquote", "> quoted [[a]]\n> > deeper [[b]]\n", []Link{{Target: "a"}, {Target: "b"}}},
	{"headings", "# Title [[a]]\n\nSub [[b]]\n---\n", []Link{{Target: "a"}, {Target: "b"}}},
	{"inside a markdown link text", "[see [[a]]](http://x)", []Link{{Target: "a"}}},
	{"wins over a reference link", "[[a]]\n\n[a]: http://x\n", []Link{{Target: "a"}}},

	{"unclosed", "[[x", nil},
	{"single closing bracket", "[[x]", nil},
	{"lone bracket inside", "[[a]b]]", nil},
	{"nested", "[[a [[b]]", []Link{{Target: "b"}}},
	{"triple brackets", "[[[a]]]", []Link{{Target: "a"}}},
	{"empty", "[[]]", nil},
	{"blank target", "[[   ]]", nil},
	{"empty target with label", "[[ |x]]", nil},
	{"empty target with escaped pipe", `[[ \|x]]`, nil},
	{"heading only", "[[#h]]", nil},
	{"newline inside", "[[a\nb]]", nil},
	{"newline inside label", "[[a|b\nc]]", nil},
	{"carriage return inside", "[[a\rb]]", nil},
	{"escaped opener", `\[[x]]`, nil},
	{"markdown link", "[x](y)", nil},
	{"markdown reference link", "[x][y]\n\n[y]: http://z\n", nil},
	{"no brackets", "just text", nil},
	{"empty body", "", nil},
}

func TestExtract(t *testing.T) {
	for _, tc := range extractCases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Extract([]byte(tc.body)))
		})
	}
}

// TestExtractConcurrent backs the claim that the shared parser is safe for concurrent use;
// it only proves something under -race.
func TestExtractConcurrent(t *testing.T) {
	body := []byte(benchBody())
	want := Extract(body)
	require.Len(t, want, 10)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				assert.Equal(t, want, Extract(body))
			}
		})
	}
	wg.Wait()
}

func FuzzExtract(f *testing.F) {
	for _, tc := range extractCases {
		f.Add([]byte(tc.body))
	}
	f.Add([]byte(benchBody()))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, l := range Extract(body) {
			if l.Target == "" || strings.ContainsAny(l.Target, "\r\n") || strings.TrimSpace(l.Target) != l.Target {
				t.Fatalf("bad target %q in %q", l.Target, body)
			}
		}
	})
}

// benchBody is a record body of about 4 KB with ten links, written like the notes the store
// holds: prose, a list, a table, and code that mentions links which must not count.
func benchBody() string {
	var b strings.Builder
	b.WriteString("# Token refresh policy\n\nThis note collects what we decided about refresh tokens.\n\n")
	for i := range 5 {
		b.WriteString("## Section\n\nThe gateway rotates refresh tokens on every use, as agreed in ")
		b.WriteString("[[rec_01jd8x" + string(rune('a'+i)) + "|the review]] and recorded by the incident ")
		b.WriteString("report. A reused token revokes the whole family, which *matters* for clients that ")
		b.WriteString("retry after a timeout; see [[rotation-notes#Retries]] for the measured numbers and ")
		b.WriteString("the discussion that followed. Nothing here changes the `[[not-a-link]]` syntax.\n\n")
		b.WriteString("- first consequence of the policy, stated plainly for reviewers\n")
		b.WriteString("- second consequence, with a [normal link](https://example.com/a) to the RFC\n")
		b.WriteString("- third consequence: clients must persist the new token before using it\n\n")
		b.WriteString("> Reviewers asked whether the grace window should be configurable per client. The\n")
		b.WriteString("> answer was no: one window keeps the audit simple and the alerts comparable.\n\n")
		b.WriteString("```go\nrefresh := \"[[also-not-a-link]]\"\n```\n\n")
	}
	b.WriteString("| case | outcome |\n|---|---|\n| reuse | family revoked |\n| expiry | re-login |\n")
	return b.String()
}

func BenchmarkExtract(b *testing.B) {
	body := []byte(benchBody())
	if n := len(Extract(body)); n != 10 {
		b.Fatalf("bench body has %d links, want 10", n)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Extract(body)
	}
}

// Spans gives each link and embed with its source text, for rewriting;
// an embed links like a link, and a Markdown image stays an image.
func TestSpansLocateLinksAndEmbeds(t *testing.T) {
	body := "See [[Note A|the note]], ![[diagram.png]] and ![[Other#Part]].\n\n" +
		"![an image](x.png) `[[in code]]` [[b]]\n\n| a | [[c\\|C]] |\n|---|---|\n"
	spans := Spans([]byte(body))
	var got []string
	for _, s := range spans {
		got = append(got, body[s.Start:s.End])
	}
	assert.Equal(t, []string{"[[Note A|the note]]", "![[diagram.png]]", "![[Other#Part]]", "[[b]]", "[[c\\|C]]"}, got)
	assert.Equal(t, Span{Link: Link{Target: "Other", Heading: "Part"}, Embed: true, Start: spans[2].Start, End: spans[2].End}, spans[2])
	assert.Equal(t, []Link{{Target: "Note A", Label: "the note"}, {Target: "diagram.png"}, {Target: "Other", Heading: "Part"}, {Target: "b"}, {Target: "c", Label: "C"}},
		Extract([]byte(body)))
	assert.Nil(t, Spans([]byte("no links ![x](y)")))
}

// plainPieces build bodies where the parse-free path might be taken, and
// the Markdown that must make it step aside.
var plainPieces = []string{
	"[[a]]", "[[a|b]]", "[[a#h]]", "[[a#h|l]]", "![[img.png]]", "[[ a ]]", "[[]]", "[[ |x]]", "[[a|]]", "[[a#]]", "[[#h]]",
	"[[a]", "[[a", "[a]]", "[a](b)", "[a]: b", "[[a]]: b", "[[a]](b)", "[x [[a]]](u)", "[[[a]]]", "[[a]]]", "]", "[", "|",
	"text", " ", "  ", "    ", "\n", "\n\n", "- ", "1. ", "> ", "# ", "---", "===", "*", "_", "&amp;", "&#91;", "!", "#",
	"`", "``", "```\n", "~~~\n", "\t", "<div>", "<a>", "\\", "\\|", "\r\n", "| a | b |\n|---|---|\n", "-:\n", "é", "\u00a0",
}

// TestExtractPlainAgreesWithMarkdown: where the parse-free path answers,
// it answers as goldmark does; and it answers for ordinary record bodies.
func TestExtractPlainAgreesWithMarkdown(t *testing.T) {
	checkPlain := func(body []byte) bool {
		hint := bytes.Count(body, opener)
		got, ok := extractPlain(body, hint)
		if !ok {
			return false
		}
		want := extractParsed(body, hint)
		require.Equal(t, want, got, "%q", body)
		return true
	}
	rng := rand.New(rand.NewPCG(3, 5))
	plain := 0
	for range 20000 {
		var b []byte
		for range 1 + rng.IntN(8) {
			b = append(b, plainPieces[rng.IntN(len(plainPieces))]...)
		}
		if checkPlain(b) {
			plain++
		}
	}
	require.Greater(t, plain, 1000, "random bodies take the plain path often enough to be tested")
	for _, tc := range extractCases {
		checkPlain([]byte(tc.body))
	}
	ordinary := "## Context\n\nRecord session cache. See [[cyaxlyyl3nifia4wrbskk3im3i]] and [[ituogs6z62palqveniamvmuj4e|the earlier note]].\n\n" +
		"## Decision\n\nServer token timeout.\n\n- Owner finding review [[a#Details|x]]\n- Incident record\n"
	require.True(t, checkPlain([]byte(ordinary)), "an ordinary body takes the plain path")
}

func FuzzExtractPlain(f *testing.F) {
	for _, p := range plainPieces {
		f.Add([]byte("x " + p + " [[a|b]] y"))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		hint := bytes.Count(body, opener)
		if got, ok := extractPlain(body, hint); ok {
			require.Equal(t, extractParsed(body, hint), got, "%q", body)
		}
	})
}
