package root

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/storetest"
)

// timestampPattern matches the fixed-width timestamps records carry.
var timestampPattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)

func maskTimes(s string) string { return timestampPattern.ReplaceAllString(s, "<TIME>") }

// goldenStore builds the same store every time, but for the clock.
func goldenStore(t testing.TB) string {
	t.Helper()
	return storetest.GoldenStore(t, newRepo, func(t testing.TB, dir string, args ...string) string { return mustRec(t, dir, args...) })
}

// TestGolden compares people's output of show, list, links and graph with
// testdata/cli/*.golden (timestamps masked). Refresh them with
//
//	go test ./pkg/cmd/root -run TestGolden -update
func TestGolden(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	for _, g := range []struct {
		file string
		args []string
	}{
		{"show.golden", []string{"show", "auth/token-refresh"}},
		{"show-finding.golden", []string{"show", storetest.GoldenFinding[:8]}},
		{"show-implemented.golden", []string{"show", "shipped"}},
		{"show.json.golden", []string{"--json", "show", storetest.GoldenConcept}},
		{"list.golden", []string{"list"}},
		{"list-include-retired.golden", []string{"list", "--include-retired"}},
		{"list-category.golden", []string{"list", "--category", "auth", "--prefix"}},
		{"links.golden", []string{"links", storetest.GoldenConcept}},
		{"graph.mermaid.golden", []string{"graph", "auth/token-refresh"}},
		{"graph-depth2.mermaid.golden", []string{"graph", "rfc-6749", "--depth", "2"}},
		{"graph.dot.golden", []string{"graph", "--format", "dot"}},
		{"graph.json.golden", []string{"--json", "graph", storetest.GoldenFinding[:8]}},
	} {
		t.Run(g.file, func(t *testing.T) {
			got := maskTimes(mustRec(t, dir, g.args...))
			path := filepath.Join(cliTestdata, g.file)
			if *updateGolden {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./pkg/cmd/root -run TestGolden -update to create it")
			assert.Equal(t, string(want), got, "git-records %q differs from %s (refresh with -update if the change is intended)", g.args, path)
		})
	}
}
