package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// search: ranked JSON hits with snippets, list's filters and vocabulary
// check, the query language's errors as USAGE.
func TestSearchCommand(t *testing.T) {
	dir := newRepo(t)
	a := createID(t, dir, "--type", "concept", "--category", "eng.auth", "--title", "Token refresh policy", "--body", "Sessions end here.", "--tag", "auth", "--agent", "me")
	b := createID(t, dir, "--type", "raw", "--category", "eng", "--title", "Sessions", "--body", "Every refresh of a token rotates it.", "--agent", "me")

	hits := mustJSON[[]obj](t, dir, "search", "token")
	require.Len(t, hits, 2)
	require.Equal(t, a, hits[0]["id"], "the title hit first")
	require.Equal(t, b, hits[1]["id"])
	require.Equal(t, "Every refresh of a token rotates it.", hits[1]["snippet"])
	require.Equal(t, []any{[]any{float64(19), float64(24)}}, hits[1]["highlights"])
	require.Equal(t, []any{"body"}, hits[1]["matched"])

	require.Equal(t, b, mustJSON[[]obj](t, dir, "search", "token", "--type", "raw")[0]["id"])
	require.Len(t, mustJSON[[]obj](t, dir, "search", "token", "--category", "eng", "--prefix"), 2)
	require.Len(t, mustJSON[[]obj](t, dir, "search", "token", "--category", "eng"), 1)
	require.Len(t, mustJSON[[]obj](t, dir, "search", `"refresh policy"`), 1)
	require.Len(t, mustJSON[[]obj](t, dir, "search", "title:sess*"), 1)
	require.Empty(t, mustJSON[[]obj](t, dir, "search", "nothing-like-it"))

	// --live leaves out a superseded record, as list --live does.
	c := createID(t, dir, "--type", "raw", "--category", "eng", "--title", "Sessions, again", "--body", "A token, newer.", "--agent", "me")
	mustRec(t, dir, "supersede", c, b, "--rationale", "replaced", "--agent", "me")
	require.Len(t, mustJSON[[]obj](t, dir, "search", "token"), 3)
	live := mustJSON[[]obj](t, dir, "search", "token", "--live")
	require.Len(t, live, 2)
	for _, h := range live {
		require.NotEqual(t, b, h["id"], "the superseded record is not live")
	}

	out := mustRec(t, dir, "search", "rotates")
	require.Contains(t, out, b[:8]+"  raw  eng  Sessions\n")
	require.Contains(t, out, "of a token **rotates** it.")

	requireError(t, rec(t, dir, "--json", "search", "token", "--status", "bogus"), "USAGE", exitUsage)
	e := requireError(t, rec(t, dir, "--json", "search", "type:raw"), "USAGE", exitUsage)
	require.True(t, strings.Contains(e["message"].(string), "--type"), "names the flag: %v", e)
	requireError(t, rec(t, dir, "--json", "search", `"open`), "USAGE", exitUsage)
	requireError(t, rec(t, dir, "--json", "search"), "USAGE", exitUsage)
	e = requireError(t, rec(t, dir, "--json", "search", "token", "--limit", "-1"), "USAGE", exitUsage)
	require.Equal(t, "--limit", e["flag"])
}
