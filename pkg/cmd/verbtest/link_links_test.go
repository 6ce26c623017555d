package verbtest

import (
	"bufio"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	linkscmd "github.com/git-records/git-records/pkg/cmd/link/links"
	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
	"github.com/git-records/git-records/service"
)

// TestLinksRun: each link and backlink once, with the title at its other
// end, a dangling link flagged, the body's wikilinks among them; --json is
// the two lists; a missing handle is NOT_FOUND; one handle exactly.
func TestLinksRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	rfc := st.Create(t, kernel.CreateInput{Type: "raw", Title: "RFC 6749", Aliases: []string{"rfc"}})
	finding := st.Create(t, kernel.CreateInput{Type: "review.finding", Title: "Reuse accepted",
		Body: "See [[rfc]] and [[nowhere|the void]].", Links: []kernel.Link{{Kind: "source", TargetID: rfc}}})
	links := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, linkscmd.NewCmdLinks(f, nil), args...)
	}

	r := links(finding)
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "→ related      nowhere (the void)  (no such record)\n")
	assert.NotContains(t, r.Stdout, "→ related      rfc", "the body's [[rfc]] is the source link's record")
	// The finding links to rfc by its source field and by [[rfc]] in its
	// body: two links (a link is its target and kind), one line.
	back := links("rfc").Stdout
	assert.Contains(t, back, "← source,related "+finding+"  Reuse accepted\n", "by alias, the backlink, both kinds on one line")
	assert.Equal(t, 1, strings.Count(back, finding), "the finding is listed once: %s", back)
	assert.Contains(t, r.Stdout, "→ source,related "+rfc+"  RFC 6749\n", "forward, too, one line for rfc")
	assert.Equal(t, 1, strings.Count(r.Stdout, rfc), r.Stdout)

	var l struct {
		Forward []map[string]any `json:"forward"`
		Reverse []map[string]any `json:"reverse"`
	}
	links("--json", rfc).JSON(t, &l)
	require.Len(t, l.Reverse, 2, "--json keeps both links, as the contract's graph index has them")
	assert.Equal(t, finding, l.Reverse[0]["source_id"])
	assert.Equal(t, "source", l.Reverse[0]["kind"])
	assert.Equal(t, finding, l.Reverse[1]["source_id"])
	assert.Equal(t, "related", l.Reverse[1]["kind"])
	assert.Empty(t, l.Forward)

	links("--json", "no-such-record").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
	links("--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestWriteLineIsTheFormattedLine: WriteLine writes what the Fprintf it
// replaces wrote, for kinds shorter, as long as and longer than the
// column, several kinds and labels, a non-ASCII kind (padded by runes),
// titles that need their spaces folded, and an end with no record.
func TestWriteLineIsTheFormattedLine(t *testing.T) {
	titles := map[string]service.EndTitle{"a": {Text: "Plain title", OK: true}, "b": {Text: "  spaced \t title ", OK: true}, "c": {OK: true}}
	lines := []service.LinkLine{
		{End: "a", Kinds: []string{"related"}},
		{End: "b", Kinds: []string{"source", "related"}, Labels: []string{"see", "also"}},
		{End: "c", Kinds: []string{"supersedes12"}, Labels: []string{"x"}},
		{End: "d", Kinds: []string{"derived_from_long"}},
		{End: "a", Kinds: []string{"réla"}},
	}
	for _, arrow := range []string{"→ ", "← "} {
		for _, line := range lines {
			var got strings.Builder
			w := bufio.NewWriter(&got)
			linkscmd.WriteLine(w, arrow, line, titles[line.End])
			require.NoError(t, w.Flush())
			want := fmt.Sprintf("%s%-12s %s%s\n", arrow, line.Kind(), line.End, record.DescribeEnd(titles[line.End], line))
			assert.Equal(t, want, got.String())
		}
	}
}

// TestLinksOfAHubAreTheLinesOfItsLinks: a record linked by its id alone,
// whose backlinks `links` streams from the index's edge rows, prints the
// lines LinkLines makes of Links' backlinks (one per holder, its kinds
// and labels, its title, in the order of the holders).
func TestLinksOfAHubAreTheLinesOfItsLinks(t *testing.T) {
	st := cmdtest.NewStore(t)
	hub := st.Create(t, kernel.CreateInput{Type: "raw", Title: "The hub"})
	var holders []string
	for i, body := range []string{"See [[" + hub + "]].", "See [[" + hub + "|the hub]] and [[" + hub + "|again]].", "No wikilink."} {
		holders = append(holders, st.Create(t, kernel.CreateInput{Type: "review.finding", Title: fmt.Sprintf("Holder  %d ", i),
			Body: body, Links: []kernel.Link{{Kind: "source", TargetID: hub, Label: "why"}}}))
	}
	svc := st.Service(t)
	f, _, _, _ := st.Factory()
	r := cmdtest.Run(f, linkscmd.NewCmdLinks(f, nil), hub)
	require.Equal(t, 0, r.Code, r.String())
	l, err := svc.Links(hub)
	require.NoError(t, err)
	var want strings.Builder
	w := bufio.NewWriter(&want)
	for _, line := range service.LinkLines(l.Reverse, func(e service.Edge) string { return e.Source }) {
		linkscmd.WriteLine(w, "← ", line, l.ReverseTitles[line.First])
	}
	require.NoError(t, w.Flush())
	assert.Equal(t, want.String(), r.Stdout)
	assert.Equal(t, len(holders), strings.Count(r.Stdout, "\n"), r.Stdout)
	// The second [[wikilink]] of one kind is not a link of its own.
	assert.Contains(t, r.Stdout, "← source,related "+holders[1]+" (why, the hub)  Holder 1\n", r.Stdout)
}
