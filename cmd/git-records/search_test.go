package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchQueryBounds: the query (w* repeated over 3 KB, which
// took 22 s and 1.9 GB) is refused as USAGE naming the bound it passes,
// and a query of as many clauses as a query may have still answers.
func TestSearchQueryBounds(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	id := createID(t, dir, "--type", "concept", "--title", "Worker writes", "--category", "c", "--body", "Workers wait.", "--agent", "a")
	e := requireError(t, rec(t, dir, "--json", "search", strings.Repeat("w* ", 1000)), "USAGE", exitUsage)
	assert.Equal(t, "bytes", e["query_limit"], "the error names the bound: %v", e)
	e = requireError(t, rec(t, dir, "--json", "search", strings.Repeat("w* ", 33)), "USAGE", exitUsage)
	assert.Equal(t, "clauses", e["query_limit"], "the error names the bound: %v", e)
	hits := mustJSON[[]obj](t, dir, "search", strings.Repeat("w* ", 32))
	require.Len(t, hits, 1)
	assert.Equal(t, id, hits[0]["id"])
}
