// Package storetest holds the checks of a store that the in-process
// command tests (pkg/cmd/root) and the black-box ones (cmd/git-records)
// both make, so each is written once: graph-index.json against the
// contract's schema, every commit of the records branch as git judges it.
package storetest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Graph is graph-index.json as the contract's schema 1.0 has it.
type Graph struct {
	SchemaVersion string                         `json:"schema_version"`
	Forward       map[string][]map[string]string `json:"forward"`
	Reverse       map[string][]map[string]string `json:"reverse"`
}

// ReadGraph reads the store's graph-index.json strictly as schema 1.0: a
// regular file with an ordinary file's mode, no unknown fields, each edge
// with exactly its schema's keys.
func ReadGraph(t testing.TB, store string) Graph {
	t.Helper()
	path := filepath.Join(store, "graph-index.json")
	fi, err := os.Lstat(path)
	require.NoError(t, err, "graph-index.json is a real file at the store root")
	require.True(t, fi.Mode().IsRegular(), "graph-index.json is a regular file")
	ordinary := filepath.Join(t.TempDir(), "ordinary")
	require.NoError(t, os.WriteFile(ordinary, nil, 0o666))
	ofi, err := os.Stat(ordinary)
	require.NoError(t, err)
	assert.Equal(t, ofi.Mode().Perm(), fi.Mode().Perm(), "graph-index.json has the mode of any file (0666 less umask), for clients to read")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var g Graph
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&g), "graph-index.json:\n%s", data)
	require.Equal(t, "1.0", g.SchemaVersion)
	require.NotNil(t, g.Forward, "forward is an object")
	require.NotNil(t, g.Reverse, "reverse is an object")
	for src, edges := range g.Forward {
		for _, e := range edges {
			assert.NotEmpty(t, e["target_id"], "forward[%s]: %v", src, e)
			assert.NotEmpty(t, e["kind"], "forward[%s]: %v", src, e)
			for k := range e {
				assert.Contains(t, []string{"target_id", "kind", "label"}, k, "forward[%s]: %v", src, e)
			}
		}
	}
	for tgt, edges := range g.Reverse {
		for _, e := range edges {
			assert.NotEmpty(t, e["source_id"], "reverse[%s]: %v", tgt, e)
			assert.NotEmpty(t, e["kind"], "reverse[%s]: %v", tgt, e)
			for k := range e {
				assert.Contains(t, []string{"source_id", "kind"}, k, "reverse[%s]: %v", tgt, e)
			}
		}
	}
	return g
}

// AssertGraphInStep checks graph-index.json against the schema and that it
// is in step with the records: reindex (the caller's contract call,
// returning its result) finds no drift and changes nothing.
func AssertGraphInStep(t testing.TB, store string, reindex func() map[string]any) {
	t.Helper()
	g := ReadGraph(t, store)
	assert.Equal(t, false, reindex()["changed"], "graph-index.json was not in step with the records")
	assert.Equal(t, g, ReadGraph(t, store), "reindex of an index in step changes nothing")
}

// Git runs the git CLI in dir and returns its stdout, trailing newline
// trimmed, failing the test on an error: each suite passes its own.
type Git func(t testing.TB, dir string, args ...string) string

// VerifyAll checks every commit on the records branch with git itself: a
// good signature (%G? is G) for each, wantCommits of them when it is not 0.
func VerifyAll(t testing.TB, git Git, dir string, wantCommits int) {
	t.Helper()
	out := git(t, dir, "log", "--format=%H %G?", "refs/heads/records")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if wantCommits > 0 {
		assert.Len(t, lines, wantCommits, "commits on the records branch")
	}
	for _, l := range lines {
		assert.True(t, strings.HasSuffix(l, " G"), "git log %%G? says %q: not a good signature", l)
	}
	git(t, dir, "verify-commit", "refs/heads/records")
}

// OpsOnBranch lists the Record-Op trailers of the records branch, newest first.
func OpsOnBranch(t testing.TB, git Git, dir string) []string {
	t.Helper()
	out := git(t, dir, "log", "--format=%(trailers:key=Record-Op,valueonly)", "refs/heads/records")
	var ops []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ops = append(ops, l)
		}
	}
	return ops
}

// FsckClean runs git fsck --strict in dir and fails on anything but
// dangling objects, which lost compare-and-swap races and killed processes
// may leave.
func FsckClean(t testing.TB, dir string) {
	t.Helper()
	cmd := exec.Command("git", "fsck", "--strict", "--no-progress")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git fsck:\n%s", out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" || strings.HasPrefix(line, "dangling ") || strings.HasPrefix(line, "notice: HEAD points to an unborn branch") {
			continue
		}
		t.Errorf("git fsck reports: %s", line)
	}
}

// Sorted is a sorted copy of s.
func Sorted(s ...string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// HasLink reports whether a record's or a listing's links (a JSON array)
// hold one with these fields.
func HasLink(links any, fields map[string]any) bool {
	list, _ := links.([]any)
	for _, l := range list {
		m, _ := l.(map[string]any)
		ok := true
		for k, v := range fields {
			if m[k] != v {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Fixed ids for the golden store: two shaped like generated ids (shown
// shortened in lists), and slugs.
const (
	GoldenConcept = "k7m2qxw4rtz5vbnh3yfjd6gpca"
	GoldenFinding = "w3ne5hbq2sxvl7dk4mrcj6atyo"
)

// Rec runs git-records args in dir and returns its stdout, failing the test
// unless it exits 0: each suite passes its own (a process, or the root
// in-process).
type Rec func(t testing.TB, dir string, args ...string) string

// GoldenStore builds the same store every time, but for the clock, in the
// repository newRepo makes (initialized, with its own signing key): the
// store the golden answers (testdata/cli) and the terminal, web and
// completion tests read.
func GoldenStore(t testing.TB, newRepo func(testing.TB) string, rec Rec) string {
	t.Helper()
	dir := newRepo(t)
	rec(t, dir, "create", "--id", "rfc-6749", "--type", "raw", "--title", "RFC 6749: The OAuth 2.0 Authorization Framework",
		"--category", "standards.oauth", "--tag", "oauth", "--body", "Section 6 covers refreshing an access token.\n", "--agent", "importer")
	rec(t, dir, "create", "--id", GoldenConcept, "--type", "concept", "--title", "Token refresh",
		"--category", "auth.tokens", "--tag", "auth", "--tag", "tokens", "--alias", "auth/token-refresh",
		"--link", "source:rfc-6749", "--ttl-seconds", "86400",
		"--body", "# Token refresh\n\nRefresh tokens rotate on use; see [[rfc-6749|the RFC]].\n", "--agent", "alice")
	rec(t, dir, "create", "--id", GoldenFinding, "--type", "review.finding", "--title", "Refresh token reused\nacross sessions",
		"--category", "auth.tokens", "--link", "example:auth/token-refresh", "--body", "Found in PR 42.", "--agent", "reviewer-bot")
	rec(t, dir, "create", "--id", "old-note", "--type", "concept", "--title", "Old note", "--category", "scratch",
		"--body", "Obsolete.\n", "--agent", "alice")
	rec(t, dir, "create", "--id", "shipped", "--type", "decision", "--title", "Rotate weekly", "--category", "auth",
		"--body", "Decided.\n", "--agent", "alice")
	rec(t, dir, "retire", "old-note", "--rationale", "obsolete", "--agent", "alice")
	rec(t, dir, "retire", "shipped", "--status", "implemented", "--implemented-by", "PR-43", "--rationale", "done", "--agent", "alice")
	rec(t, dir, "link", "shipped", "--to", GoldenConcept, "--kind", "refines", "--label", "policy", "--agent", "alice")
	return dir
}

// AssertCapability checks capability name of a decoded `capabilities
// --json` (by name): its state, and its reason and recovery when given.
func AssertCapability(t *testing.T, got map[string]map[string]any, name, state, reason, recovery string) {
	t.Helper()
	c := got[name]
	require.NotNil(t, c, "%s is resolved", name)
	assert.Equal(t, state, c["state"], "%s: %v", name, c)
	if reason != "" {
		assert.Equal(t, reason, c["reason"], "%s: %v", name, c)
	}
	if recovery != "" {
		assert.Contains(t, c["suggestedRecovery"], recovery, "%s", name)
	}
}

// CapabilityStates resolves a decoded `capabilities --json` answer by
// capability ("record.write", "execute.action verify_record"), checking
// what every capability must carry: the extension, its requirements and
// risk, and for one not available the reason and the recovery.
func CapabilityStates(t *testing.T, out map[string]any) map[string]map[string]any {
	t.Helper()
	assert.Equal(t, "git-records", out["extension"])
	got := map[string]map[string]any{}
	for _, c := range out["capabilities"].([]any) {
		m := c.(map[string]any)
		key := m["capability"].(string)
		if a, ok := m["action"].(string); ok {
			key += " " + a
		}
		got[key] = m
		assert.Equal(t, "git-records", m["extension"])
		assert.NotNil(t, m["requirements"], "%s lists its requirements", key)
		assert.NotEmpty(t, m["risk"], "%s declares its risk", key)
		if m["state"] != "available" {
			assert.NotEmpty(t, m["reason"], "%s says why", key)
			assert.NotEmpty(t, m["suggestedRecovery"], "%s says what to do", key)
		}
	}
	return got
}
