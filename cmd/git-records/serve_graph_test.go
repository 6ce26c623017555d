package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeGraphOpensOnAHub: the graph page opens on the most linked
// record and its neighbours, at most 40 of them, the most linked kept,
// never on the whole store; the most linked records are listed, and the
// whole graph is one link away.
func TestServeGraphOpensOnAHub(t *testing.T) {
	t.Parallel()
	golden := goldenStore(t)
	srv := webOf(t, golden)
	_, body := get(t, srv, "/graph")
	assert.Contains(t, body, `The most linked record: <a href="/r/`+goldenConcept+`">Token refresh</a>`)
	assert.Contains(t, body, `class="node root" data-id="`+goldenConcept+`"`)
	assert.Contains(t, body, `<a id="whole" href="/graph?all=1">the whole graph (5 records)</a>`)
	assert.Regexp(t, `<td><a href="/graph\?root=`+goldenConcept+`">Token refresh</a> <span class="mono muted">`+goldenConcept+`</span></td><td>4</td>`, body, "a source link and a wikilink to the RFC, two backlinks")

	// The branch moves: the page follows it to the new most linked record.
	for i := range 4 {
		seed(t, golden, "create", "--id", fmt.Sprintf("fan-%d", i), "--type", "concept", "--title", "Fan", "--category", "t", "--body", "[[shipped]]\n", "--agent", "t")
	}
	_, body = get(t, srv, "/graph")
	assert.Contains(t, body, `The most linked record: <a href="/r/shipped">Rotate weekly</a>`)

	// A vault with a hub of 45 notes: the opening page draws 40 records,
	// the hub and the 39 neighbours with the most links, and says so.
	dir := seedRepo(t)
	vault := t.TempDir()
	note := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(vault, name+".md"), []byte(body), 0o644))
	}
	note("Hub", "The hub.\n")
	for i := range 45 {
		body := "About [[Hub]].\n"
		if i >= 40 { // the last five also link each other: more links than the rest
			body += fmt.Sprintf("See [[Leaf %02d]] and [[Leaf %02d]].\n", (i-40+1)%5+40, (i-40+2)%5+40)
		}
		note(fmt.Sprintf("Leaf %02d", i), body)
	}
	seed(t, dir, "import", vault, "--agent", "t")
	srv = webOf(t, dir)
	_, body = get(t, srv, "/graph")
	assert.Regexp(t, `The most linked record: <a href="/r/[^"]+">Hub</a>`, body)
	assert.Equal(t, 40, strings.Count(body, `class="node`), "the hub and 39 neighbours")
	assert.Contains(t, body, "with the most links (6 more left out)")
	drawn := regexp.MustCompile(`<title>(Leaf \d+) `).FindAllStringSubmatch(body, -1)
	names := map[string]bool{}
	for _, m := range drawn {
		names[m[1]] = true
	}
	for i := 40; i < 45; i++ {
		assert.True(t, names[fmt.Sprintf("Leaf %02d", i)], "Leaf %d has the most links: it is drawn", i)
	}
	assert.Contains(t, body, `the whole graph (46 records)`)
	_, body = get(t, srv, "/graph?all=1")
	assert.Equal(t, 46, strings.Count(body, `class="node`), "the whole graph, asked for")
}
