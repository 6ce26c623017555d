package goldmarkext

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	upstream "github.com/yuin/goldmark/extension"
)

// corpus exercises every extension of the copy: autolinks (www., http,
// https, ftp, mailto, with ports, paths, trailing punctuation, inside
// emphasis), tables (alignments, escaped pipes, ragged rows, a delimiter
// row that is not one), strikethrough and task lists.
var corpus = []string{
	"",
	"plain text",
	"see www.example.com and http://example.com:8080/a/b?c=d#e, then https://x.org/(y).",
	"ftp://files.example.net/pub and <https://explicit.example> and mail me@example.com.",
	"*www.example.com* _http://a.bc_ ~https://d.ef~ (www.g.hi)",
	"www.a" + strings.Repeat("b", 300) + ".com is too long a domain",
	"| a | b | c |\n|:--|--:|:-:|\n| 1 | 2 | 3 |\n| x \\| y | [[link\\|alias]] |\n",
	"| a |\n| - |\n| b |\n| c | d |\n",
	"| a | b |\n| :-: | --- |\n",
	"| a | b |\n| -x- | --- |\n| 1 | 2 |\n",
	"a | b\n--|--\n1 | 2\n",
	"~~gone~~ and ~one~ and ~~~three~~~",
	"- [ ] todo\n- [x] done\n- [X] also\n-  [ ]  spaced\n- [y] not a task\n",
	"1. [ ] ordered\n2. [x] done\n\n> - [ ] quoted\n",
	"```\nwww.example.com | a |\n```\n",
}

func render(t testing.TB, ext goldmark.Extender, src string) string {
	var buf bytes.Buffer
	require.NoError(t, goldmark.New(goldmark.WithExtensions(ext)).Convert([]byte(src), &buf))
	return buf.String()
}

// TestSameAsUpstream: the copy renders every input as goldmark's own
// extension package does, extension by extension and as GFM.
func TestSameAsUpstream(t *testing.T) {
	pairs := []struct {
		name     string
		ours, up goldmark.Extender
	}{
		{"GFM", GFM, upstream.GFM},
		{"Linkify", Linkify, upstream.Linkify},
		{"Table", Table, upstream.Table},
		{"Strikethrough", Strikethrough, upstream.Strikethrough},
		{"TaskList", TaskList, upstream.TaskList},
	}
	for _, p := range pairs {
		for _, src := range corpus {
			assert.Equal(t, render(t, p.up, src), render(t, p.ours, src), "%s: %q", p.name, src)
		}
	}
	// The corpus does reach the lazily compiled expressions.
	assert.Contains(t, render(t, GFM, corpus[2]), `<a href="http://www.example.com">`)
	assert.Contains(t, render(t, GFM, corpus[6]), `<th style="text-align:right">b</th>`)
	assert.Contains(t, render(t, GFM, corpus[12]), `checked="" disabled="" type="checkbox"`)
}

func FuzzSameAsUpstream(f *testing.F) {
	for _, src := range corpus {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := render(t, GFM, src), render(t, upstream.GFM, src); got != want {
			t.Fatalf("%q:\nours     %q\nupstream %q", src, got, want)
		}
	})
}

// TestUpstreamNotLinked: the binary does not link goldmark's extension
// package, whose initialisation compiles its regexps in every process; nor
// goldmark's renderers (the root package builds a default Markdown, the
// HTML renderer its attribute filters) or this package, which wires them:
// git-records parses Markdown (wikilink.Extract, with gfmtable) and renders
// none. The web view, in git-records-server, does.
func TestUpstreamNotLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/git-records/git-records/cmd/git-records").CombinedOutput()
	require.NoError(t, err, string(out))
	deps := strings.Fields(string(out))
	assert.Contains(t, deps, "github.com/git-records/git-records/internal/goldmarkext/gfmtable")
	assert.Contains(t, deps, "github.com/yuin/goldmark/parser")
	for _, p := range []string{
		"github.com/yuin/goldmark/extension",
		"github.com/yuin/goldmark",
		"github.com/yuin/goldmark/renderer",
		"github.com/yuin/goldmark/renderer/html",
		"github.com/git-records/git-records/internal/goldmarkext",
	} {
		assert.NotContains(t, deps, p)
	}
}
