package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFreshnessInTheCLI: fresh --exit-code gates CI on stale records; show
// says a record's scope, freshness, links and backlinks (with titles); list
// --stale means what fresh means; a superseded record says so in show and
// list; links flags a link to a record that does not exist.
func TestFreshnessInTheCLI(t *testing.T) {
	dir := newRepo(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "auth.go"), []byte("package auth\n"), 0o644))
	git(t, dir, "add", "auth.go")
	git(t, dir, "commit", "-qm", "code")
	rfc := createID(t, dir, "--type", "raw", "--title", "RFC 6749", "--category", "auth", "--agent", "a", "--body", "OAuth.", "--alias", "rfc")
	finding := createID(t, dir, "--type", "review.finding", "--title", "Reuse accepted", "--category", "auth", "--agent", "a",
		"--scope", "auth.go", "--body", "The handler accepts a rotated token; see [[rfc]] and [[nowhere]].", "--link", "source:"+rfc)
	other := createID(t, dir, "--type", "concept", "--title", "Unscoped", "--category", "auth", "--agent", "a", "--body", "b")

	// current: fresh exits 0 even with --exit-code
	r := rec(t, dir, "fresh", "--exit-code", finding)
	require.Equal(t, 0, r.code, "%s", r)
	assert.Contains(t, r.stdout, "current")
	show := mustRec(t, dir, "show", finding)
	assert.Regexp(t, `scope\s+auth.go at [0-9a-f]{12}`, show)
	assert.Regexp(t, `freshness\s+current`, show)
	assert.Regexp(t, `link\s+source → `+rfc+`  RFC 6749`, show, "a link names the title at its other end")
	assert.Regexp(t, `link\s+related → nowhere  \(no such record\)`, show, "a dangling wikilink is flagged")
	assert.NotRegexp(t, `related → rfc\b`, show, "the body's [[rfc]] is the same record as the source link's: listed by id")
	assert.Regexp(t, `backlink\s+source ← `+finding+`  Reuse accepted`, mustRec(t, dir, "show", rfc))
	links := mustRec(t, dir, "links", finding)
	assert.Contains(t, links, "nowhere  (no such record)")
	assert.Contains(t, links, "RFC 6749")
	assert.Empty(t, mustRec(t, dir, "list", "--stale"))

	// an edit to the scoped file, uncommitted: stale everywhere
	require.NoError(t, os.WriteFile(filepath.Join(dir, "auth.go"), []byte("package auth // changed\n"), 0o644))
	r = rec(t, dir, "fresh", "--exit-code")
	assert.Equal(t, 1, r.code, "a stale record fails --exit-code\n%s", r)
	assert.Contains(t, r.stdout, "stale")
	assert.Equal(t, 0, rec(t, dir, "fresh", other).code, "without --exit-code, fresh reports and exits 0")
	assert.Equal(t, 0, rec(t, dir, "fresh", "--exit-code", other).code, "only the records checked count")
	assert.Regexp(t, `freshness\s+stale: .*auth.go`, mustRec(t, dir, "show", finding))
	stale := mustJSON[[]obj](t, dir, "list", "--stale")
	require.Len(t, stale, 1, "list --stale is what fresh calls stale, not only expiry")
	assert.Equal(t, finding, stale[0]["id"])

	// superseded: show and list say so
	mustRec(t, dir, "supersede", other, rfc, "--agent", "a", "--rationale", "replaced")
	assert.Regexp(t, `status\s+active, superseded by `+other, mustRec(t, dir, "show", rfc))
	assert.Regexp(t, handleOf(rfc)+`\s+raw\s+auth\s+superseded\s+RFC 6749`, mustRec(t, dir, "list"))
}

func handleOf(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
