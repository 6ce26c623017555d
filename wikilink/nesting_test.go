package wikilink

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark/ast"
)

// goldmarkDepth is the most block quotes and list items goldmark nests in
// body: what containerDepth must never fall below.
func goldmarkDepth(body []byte) int {
	deepest := 0
	var walkDepth func(n ast.Node, depth int)
	walkDepth = func(n ast.Node, depth int) {
		if k := n.Kind(); k == ast.KindBlockquote || k == ast.KindListItem {
			depth++
		}
		deepest = max(deepest, depth)
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walkDepth(c, depth)
		}
	}
	walkDepth(parseMarkdown(body), 0)
	return deepest
}

var nestingPieces = []string{
	"> ", ">", "- ", "-", "* ", "+ ", "1. ", "12) ", "1.", " ", "  ", "   ", "    ", "\t", " \t", "a", "b c", "\n", "\n\n",
	"```\n", "~~~\n", "# ", "---", "***", "<div>", "| a |\n|---|\n", "[[x]]", "-\t", ">\t", "\r\n", "2024. ", "*a*",
}

// TestContainerDepthBoundsGoldmark: the pre-scan never says a body nests
// less than goldmark nests it, on random bodies of container markers.
func TestContainerDepthBoundsGoldmark(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	deep := 0
	for range 20000 {
		var b []byte
		for range 1 + rng.IntN(24) {
			b = append(b, nestingPieces[rng.IntN(len(nestingPieces))]...)
		}
		want := goldmarkDepth(b)
		require.GreaterOrEqual(t, containerDepth(b, 1000), want, "%q", b)
		if want >= 3 {
			deep++
		}
	}
	require.Greater(t, deep, 1000, "enough random bodies nest")
}

func FuzzContainerDepth(f *testing.F) {
	for _, p := range nestingPieces {
		f.Add([]byte(p + "> - 1. a\n  b\n"))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		require.GreaterOrEqual(t, containerDepth(body, 1000), goldmarkDepth(body), "%q", body)
	})
}

// TestContainerDepthOfOrdinaryBodies: what people write stays far below
// the bound, code blocks and all.
func TestContainerDepthOfOrdinaryBodies(t *testing.T) {
	assert.LessOrEqual(t, containerDepth([]byte(benchBody()), MaxNesting), 2)
	nested := "- a\n  - b\n    - c\n      > d\n      > - e\n\ntext\n\n- f\n"
	assert.Equal(t, 5, containerDepth([]byte(nested), MaxNesting))
	code := "```yaml\n" + strings.Repeat("- a:\n  ", 10) + "\n```\n"
	assert.False(t, NestsTooDeep([]byte(code)))
}

// TestDeepBodiesReadAsText: past MaxNesting a body's links are its
// [[...]] as text, code included; within it Markdown decides.
func TestDeepBodiesReadAsText(t *testing.T) {
	shallow := strings.Repeat("> ", MaxNesting) + "[[a]] `[[b]]`\n"
	assert.Equal(t, []Link{{Target: "a"}}, Extract([]byte(shallow)))
	deep := strings.Repeat("> ", MaxNesting+1) + "[[a]] `[[b]]` ![[c|C]]\n"
	assert.Equal(t, []Link{{Target: "a"}, {Target: "b"}, {Target: "c", Label: "C"}}, Extract([]byte(deep)))
	spans := Spans([]byte(deep))
	require.Len(t, spans, 3)
	assert.Equal(t, "![[c|C]]", deep[spans[2].Start:spans[2].End])
	assert.True(t, spans[2].Embed)
}

// TestManyDefinitionsReadAsText: up to maxDefinitions link reference
// definitions in a paragraph are definitions (a wikilink in one is no
// link); past that they are text, and the rest of the body reads the same.
func TestManyDefinitionsReadAsText(t *testing.T) {
	defs := func(n int) string {
		return strings.Repeat("[r]: /u\n", n-1) + "[s]: <[[in-def]]>\n\n`[[code]]` [[a]]\n"
	}
	assert.Equal(t, []Link{{Target: "a"}}, Extract([]byte(defs(maxDefinitions))))
	assert.Equal(t, []Link{{Target: "in-def"}, {Target: "a"}}, Extract([]byte(defs(maxDefinitions+1))))
	split := strings.Repeat(strings.Repeat("[r]: /u\n", maxDefinitions)+"\n", 3) + defs(maxDefinitions)
	assert.Equal(t, []Link{{Target: "a"}}, Extract([]byte(split)), "the bound is per paragraph")
}
