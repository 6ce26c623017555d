package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReindexSaysBehindIsNotDrift: an index that only missed commits written
// elsewhere is normal and reindex says so; only disagreement is drift.
func TestReindexSaysBehindIsNotDrift(t *testing.T) {
	dir := newRepo(t)
	createID(t, dir, "--type", "raw", "--title", "one", "--category", "x", "--agent", "a", "--body", "b")
	first := tip(t, dir)
	createID(t, dir, "--type", "raw", "--title", "two", "--category", "x", "--agent", "a", "--body", "b")
	second := tip(t, dir)
	assert.Contains(t, mustRec(t, dir, "reindex"), "there was no index; built from the branch", "writes keep only the small handles file")
	assert.Contains(t, mustRec(t, dir, "reindex"), "the index is current; no drift")

	// The cache reflects the first tip; the branch then moves on without us.
	git(t, dir, "update-ref", "refs/heads/records", first)
	mustRec(t, dir, "reindex")
	git(t, dir, "update-ref", "refs/heads/records", second)
	out := mustRec(t, dir, "reindex")
	assert.Contains(t, out, "the index was behind the tip and caught up")
	assert.False(t, strings.Contains(out, "drift:"), out)
	ri := mustJSON[obj](t, dir, "reindex")
	assert.Equal(t, "current", ri["state"])
	assert.Equal(t, false, ri["changed"])
}
