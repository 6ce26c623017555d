package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fixed ids for the golden store: two shaped like generated ids (shown
// shortened in lists), and slugs.
const (
	goldenConcept = "k7m2qxw4rtz5vbnh3yfjd6gpca"
	goldenFinding = "w3ne5hbq2sxvl7dk4mrcj6atyo"
)

// timestampPattern matches the fixed-width timestamps records carry.
var timestampPattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)

func maskTimes(s string) string { return timestampPattern.ReplaceAllString(s, "<TIME>") }

// goldenStore builds the same store every time, but for the clock.
func goldenStore(t testing.TB) string {
	t.Helper()
	dir := newRepo(t)
	mustRec(t, dir, "create", "--id", "rfc-6749", "--type", "raw", "--title", "RFC 6749: The OAuth 2.0 Authorization Framework",
		"--category", "standards.oauth", "--tag", "oauth", "--body", "Section 6 covers refreshing an access token.\n", "--agent", "importer")
	mustRec(t, dir, "create", "--id", goldenConcept, "--type", "concept", "--title", "Token refresh",
		"--category", "auth.tokens", "--tag", "auth", "--tag", "tokens", "--alias", "auth/token-refresh",
		"--link", "source:rfc-6749", "--ttl-seconds", "86400",
		"--body", "# Token refresh\n\nRefresh tokens rotate on use; see [[rfc-6749|the RFC]].\n", "--agent", "alice")
	mustRec(t, dir, "create", "--id", goldenFinding, "--type", "review.finding", "--title", "Refresh token reused\nacross sessions",
		"--category", "auth.tokens", "--link", "example:auth/token-refresh", "--body", "Found in PR 42.", "--agent", "reviewer-bot")
	mustRec(t, dir, "create", "--id", "old-note", "--type", "concept", "--title", "Old note", "--category", "scratch",
		"--body", "Obsolete.\n", "--agent", "alice")
	mustRec(t, dir, "create", "--id", "shipped", "--type", "decision", "--title", "Rotate weekly", "--category", "auth",
		"--body", "Decided.\n", "--agent", "alice")
	mustRec(t, dir, "retire", "old-note", "--rationale", "obsolete", "--agent", "alice")
	mustRec(t, dir, "retire", "shipped", "--status", "implemented", "--implemented-by", "PR-43", "--rationale", "done", "--agent", "alice")
	mustRec(t, dir, "link", "shipped", "--to", goldenConcept, "--kind", "refines", "--label", "policy", "--agent", "alice")
	return dir
}

// TestGolden compares people's output of show, list, links and graph with
// testdata/cli/*.golden (timestamps masked). Refresh them with
//
//	go test ./cmd/git-records -run TestGolden -update
func TestGolden(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	for _, g := range []struct {
		file string
		args []string
	}{
		{"show.golden", []string{"show", "auth/token-refresh"}},
		{"show-finding.golden", []string{"show", goldenFinding[:8]}},
		{"show-implemented.golden", []string{"show", "shipped"}},
		{"show.json.golden", []string{"--json", "show", goldenConcept}},
		{"list.golden", []string{"list"}},
		{"list-include-retired.golden", []string{"list", "--include-retired"}},
		{"list-category.golden", []string{"list", "--category", "auth", "--prefix"}},
		{"links.golden", []string{"links", goldenConcept}},
		{"graph.mermaid.golden", []string{"graph", "auth/token-refresh"}},
		{"graph-depth2.mermaid.golden", []string{"graph", "rfc-6749", "--depth", "2"}},
		{"graph.dot.golden", []string{"graph", "--format", "dot"}},
		{"graph.json.golden", []string{"--json", "graph", goldenFinding[:8]}},
	} {
		t.Run(g.file, func(t *testing.T) {
			got := maskTimes(mustRec(t, dir, g.args...))
			path := filepath.Join(cliTestdata, g.file)
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./cmd/git-records -run TestGolden -update to create it")
			assert.Equal(t, string(want), got, "git-records %q differs from %s (refresh with -update if the change is intended)", g.args, path)
		})
	}
}
