package web

import (
	"bytes"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/wikilink"
	"github.com/git-records/git-records/wikilink/wikilinkext"
)

// fullGoldmark is goldmark with every parser it has unmetered, GFM and
// wikilinks: how the view rendered every body before it metered them.
var fullGoldmark = goldmark.New(goldmark.WithExtensions(extension.GFM, wikilinkext.Extension))

// metered renders body with meteredParser, wikilinks as their display
// text as wikilinkext renders them, and says whether the budget left some
// of it as written.
func metered(body []byte) (string, bool) {
	pc, work := newMarkdownContext(len(body))
	doc := meteredParser().Parse(text.NewReader(body), parser.WithContext(pc))
	var buf bytes.Buffer
	if err := newMarkdownRenderer(util.Prioritized(displayText{}, 100)).Render(&buf, body, doc); err != nil {
		panic(err)
	}
	return buf.String(), work.limited
}

type displayText struct{}

func (displayText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(wikilink.KindNode, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l := n.(*wikilink.Node); entering {
			display := l.Label
			if display == "" {
				display = l.Target
			}
			_, _ = w.Write(util.EscapeHTML([]byte(display)))
		}
		return ast.WalkContinue, nil
	})
}

func unmetered(body []byte) string {
	var buf bytes.Buffer
	if err := fullGoldmark.Convert(body, &buf); err != nil {
		panic(err)
	}
	return buf.String()
}

// markdownCases are bodies where the metered parsers, the code span parser
// and the table's `\|` rule could part from goldmark's.
var markdownCases = []string{
	"`a` `` b ` `` ` `` ` c `  ` `` `\n`x\ny`\n```a``b```",
	"- a\n\t- `b\n\tc`\n  - `d`\n",
	"> `a\n> b` [c](d \"t\") ![e](f 'g') <http://h> www.i.com j@k.com",
	"| a | `b\\|c` |\n|---|:-:|\n| `d\\|e\\|f` | g \\| h |\n| `i\\\\|j` | [[k\\|l]] |\n| `\\|` | `m\\|`|\n",
	"*a* **b** _c_ __d__ ***e*** ~~f~~ ~g~ ~~~h~~~ a*b*c a_b_c\n\n**a *b* c** *[d](e)* [*f*](g) [**h**][i]\n\n[i]: /u 'T'",
	"[a]: /x\n[b]: </y z> \"t\"\n[c]:\n  /z\n  'multi\nline'\n\n[a] [b][] [c][C] [d][a] ![a]",
	"- [ ] task\n- [x] done\n  - [ ] nested\n\n1. [ ] one",
	"[a [b] c](d) [a [b](c) d](e) ![a [b](c) d](e) [[x]] ![[y]] [[z|w]] [[q#h|l]] \\[[n]]",
	"<div>\n*raw*\n</div>\n\n<span>*x*</span> <!-- c --> <?p?> <![CDATA[x]]>",
	"a  \nb\\\nc\n\n# h1 #\n\nh2\n---\n\n    code\n\n~~~go\nx\n~~~",
	"[a](<b c>) [d](e(f)g) [h](i \"j\\\"k\") [l](\n/m\n) [n]( o ) [p](q\n\"r\")",
	"a | b\n--|--\n`c | d`|e\n\n|x|\n|-|\n|`y\\|`z|",
	"*a **b* c** _a __b_ c__ **a*b***c* ~a ~~b~ c~~",
	"\t`a\tb`\n>\t- `c\n>\t  d`",
}

// heavyMarkdown are ordinary bodies that use much of what the meters
// charge for: many links in one hard-wrapped paragraph, paragraphs of
// links with emphasis in them, a long table, many reference definitions,
// dense emphasis.
func heavyMarkdown() map[string]string {
	var wrapped, emphasized, table, defs, bold strings.Builder
	for i := range 200 {
		n := strconv.Itoa(i)
		wrapped.WriteString("line " + n + " of a long paragraph links [the spec " + n + "](https://example.com/" + n + " \"Spec\") again\n")
		emphasized.WriteString("see [*note " + n + "*](n" + n + ".md) and [**" + n + "**][r" + n + "], ")
		if i%20 == 19 {
			emphasized.WriteString("\n\n")
		}
		table.WriteString("| " + n + " | [[rec-" + n + "]] | `code \\| " + n + "` | *e* | [l](u) | ~~s~~ | x | y | z | w |\n")
		defs.WriteString("[r" + n + "]: https://example.com/ref/" + n + " \"Reference " + n + "\"\n")
		if i%4 == 0 {
			bold.WriteString("**b" + n + "** _i_ ")
		}
	}
	return map[string]string{
		"links on every line":   wrapped.String(),
		"emphasis in links":     emphasized.String() + "\n\n" + defs.String(),
		"a long table":          "| n | rec | code | e | l | s | x | y | z | w |\n|---|---|---|---|---|---|---|---|---|---|\n" + table.String(),
		"reference definitions": strings.Repeat("See [r1], [r2][] and [x][r3].\n\n", 50) + defs.String(),
		"dense emphasis":        bold.String(),
	}
}

// TestMeteredMarkdownRendersAsGoldmark: metering changes nothing of a body
// within its budget. Every Markdown file of the repository, every case
// above and heavy ordinary bodies render exactly as goldmark's full parse
// renders them.
func TestMeteredMarkdownRendersAsGoldmark(t *testing.T) {
	bodies := map[string][]byte{}
	for i, c := range markdownCases {
		bodies["case "+string(rune('a'+i))] = []byte(c)
	}
	for name, body := range heavyMarkdown() {
		bodies[name] = []byte(body)
	}
	require.NoError(t, filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") || strings.Contains(path, "malformed") {
			return err // malformed records are hostile ones
		}
		b, err := os.ReadFile(path)
		bodies[path] = b
		return err
	}))
	require.Greater(t, len(bodies), 50)
	for name, body := range bodies {
		got, limited := metered(body)
		if wikilink.NestsTooDeep(body) {
			continue // shown as plain text, not by goldmark
		}
		assert.False(t, limited, "%s: an ordinary body is laid out whole", name)
		assert.Equal(t, unmetered(body), got, name)
	}
}

func FuzzMeteredMarkdownRendersAsGoldmark(f *testing.F) {
	for _, c := range markdownCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 4096 || wikilink.NestsTooDeep(body) {
			return
		}
		if got, limited := metered(body); !limited {
			require.Equal(t, unmetered(body), got, "%q", body)
		}
	})
}

var tags = regexp.MustCompile(`<[^>]*>`)

// shownWords is the letters and digits of a page's HTML as a reader sees
// them, in order.
func shownWords(page string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, html.UnescapeString(tags.ReplaceAllString(page, "")))
}

// isSubsequence: every byte of sub is in s, in order.
func isSubsequence(sub, s string) bool {
	for i := 0; i < len(sub); i++ {
		j := strings.IndexByte(s, sub[i])
		if j < 0 {
			return false
		}
		s = s[j+1:]
	}
	return true
}

// TestHostileBodiesShownWhole: what the budget leaves as written is shown
// as written: a reader sees every word goldmark's full parse shows, in
// order, and the page says that some Markdown was not laid out. The
// quadratic cases are limited at 64 KiB; a body nested too deep is shown
// as plain text.
func TestHostileBodiesShownWhole(t *testing.T) {
	br := emptyRenderer(t)
	for name, shape := range hostileShapes() {
		t.Run(name, func(t *testing.T) {
			body := []byte(shape(4 << 10))
			page, limited := metered(body)
			if !wikilink.NestsTooDeep(body) {
				assert.True(t, isSubsequence(shownWords(unmetered(body)), shownWords(page)), "limited: %v", limited)
			}
			p, err := br.render(shape(64<<10), "")
			require.NoError(t, err)
			assert.Contains(t, string(p), `<span class="dangling" title="no such record">a</span>`, "the wikilink, as a link")
			plain := strings.HasPrefix(string(p), plainNotice)
			assert.Equal(t, wikilink.NestsTooDeep([]byte(shape(64<<10))), plain, "plain text when nested too deep")
			if !plain {
				assert.Contains(t, string(p), "<code>x</code>")
			}
			t.Logf("limited at 4 KiB: %v, at 64 KiB: %v", limited, strings.HasPrefix(string(p), limitedNotice))
		})
	}
}

// TestHostileBodiesStaySafe: what a hostile body shows as written is
// escaped, in a limited block as in plain text; raw HTML and script links
// are left out as in any body.
func TestHostileBodiesStaySafe(t *testing.T) {
	br := emptyRenderer(t)
	attack := "<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) [[a|<b>]] `<i>`\n\n"
	for name, hostile := range map[string]string{
		"limited": testenv.HostileMarkdown["nested brackets"](8<<10) + attack + testenv.HostileMarkdown["nested brackets"](8<<10) + attack,
		"plain":   attack + testenv.HostileMarkdown["block quotes on one line"](1<<10) + attack,
	} {
		page, err := br.render(hostile, "")
		require.NoError(t, err)
		p := string(page)
		require.True(t, strings.HasPrefix(p, limitedNotice) || strings.HasPrefix(p, plainNotice), name)
		for _, bad := range []string{"<script", "<img", "<b>", "<i>", `href="javascript`} {
			assert.NotContains(t, p, bad, name)
		}
	}
}

// hostileShapes are the bodies goldmark takes quadratic time over, as a
// reader of links and as a renderer: testenv's HostileMarkdown and
// HostileRendering.
func hostileShapes() map[string]func(int) string {
	shapes := map[string]func(int) string{}
	for _, m := range []map[string]func(int) string{testenv.HostileMarkdown, testenv.HostileRendering} {
		for name, shape := range m {
			shapes[name] = shape
		}
	}
	return shapes
}

// emptyRenderer renders bodies in a store with no record: every wikilink dangles.
func emptyRenderer(t *testing.T) *bodyRenderer {
	svc, err := opener(t)()
	require.NoError(t, err)
	v, err := svc.View()
	require.NoError(t, err)
	return newBodyRenderer(v)
}
