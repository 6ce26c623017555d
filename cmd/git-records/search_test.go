package main

import (
	"bytes"
	"os"
	"path/filepath"
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

// searchIDsOf runs `search --json q` and returns the ids it prints.
func searchIDsOf(t *testing.T, dir, q string) []string {
	t.Helper()
	ids := []string{}
	for _, h := range mustJSON[[]obj](t, dir, "search", q) {
		ids = append(ids, h["id"].(string))
	}
	return ids
}

// searchFiles are the search index's delta and the base it names.
func searchFiles(t *testing.T, dir string) (delta, base string) {
	t.Helper()
	delta = filepath.Join(dir, ".git", "records", "index", "heads%2Frecords.search")
	bases, err := filepath.Glob(delta + "-*")
	require.NoError(t, err)
	require.Len(t, bases, 1)
	return delta, bases[0]
}

// TestSearchIndexDamage: a bit flipped in the search delta or base, or
// another store's base copied in, never changes what search prints (the
// index is rebuilt from the branch, exit 0); a directory where an index
// file belongs is repaired by reindex (exit 0).
func TestSearchIndexDamage(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	mk := func(title, body string) string {
		return createID(t, dir, "--type", "concept", "--title", title, "--category", "c", "--body", body, "--agent", "a")
	}
	mk("Token refresh policy", "Sessions end.")
	mk("Sessions", "Every refresh of a token rotates it.")
	searchIDsOf(t, dir, "token") // the base
	mk("Token caching", "Cached tokens rotate hourly.")
	mk("Queues", "Workers drain the token queue.")
	want := searchIDsOf(t, dir, "token") // caught up: the delta holds two
	require.Len(t, want, 4)
	delta, base := searchFiles(t, dir)

	files := []string{delta, base}
	intact := make([][]byte, len(files))
	for i, path := range files {
		var err error
		intact[i], err = os.ReadFile(path)
		require.NoError(t, err)
	}
	for i, path := range files {
		for k := range 5 {
			at := (2*k + 1) * len(intact[i]) / 10
			bad := bytes.Clone(intact[i])
			bad[at] ^= 0x04
			require.NoError(t, os.WriteFile(path, bad, 0o644))
			require.Equal(t, want, searchIDsOf(t, dir, "token"), "%s byte %d flipped", filepath.Base(path), at)
			for j, p := range files { // the rebuild replaced the delta and removed the base
				require.NoError(t, os.WriteFile(p, intact[j], 0o644))
			}
		}
	}

	other := newRepo(t)
	createID(t, other, "--type", "concept", "--title", "Token of another store", "--category", "c", "--body", "b", "--agent", "a")
	searchIDsOf(t, other, "token")
	_, theirBase := searchFiles(t, other)
	theirs, err := os.ReadFile(theirBase)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(base, theirs, 0o644))
	require.Equal(t, want, searchIDsOf(t, dir, "token"), "another store's base copied in")

	for _, name := range []string{"heads%2Frecords.search", "heads%2Frecords.idx"} {
		path := filepath.Join(dir, ".git", "records", "index", name)
		require.NoError(t, os.RemoveAll(path))
		require.NoError(t, os.MkdirAll(filepath.Join(path, "sub"), 0o755))
		require.Equal(t, want, searchIDsOf(t, dir, "token"), "a directory at %s", name)
		mustRec(t, dir, "reindex")
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular(), "reindex writes %s in place of the directory", name)
		require.Equal(t, want, searchIDsOf(t, dir, "token"))
	}
}
