package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPagerAndColorOrder: the pager is chosen as git chooses it, and
// colour follows --color, then color.ui.
func TestPagerAndColorOrder(t *testing.T) {
	config := func(kv map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
	}
	t.Setenv("GIT_PAGER", "gp")
	t.Setenv("PAGER", "p")
	assert.Equal(t, "gp", pagerCommand(config(map[string]string{"core.pager": "cp"})))
	t.Setenv("GIT_PAGER", "")
	assert.Equal(t, "", pagerCommand(nil), "an empty GIT_PAGER turns paging off, as in git")
	unsetenv(t, "GIT_PAGER")
	assert.Equal(t, "cp", pagerCommand(config(map[string]string{"core.pager": "cp"})))
	assert.Equal(t, "p", pagerCommand(nil))
	unsetenv(t, "PAGER")
	assert.Equal(t, "less", pagerCommand(nil))

	assert.Equal(t, "never", colorMode("never", true, config(map[string]string{"color.ui": "always"})))
	assert.Equal(t, "always", colorMode("auto", false, config(map[string]string{"color.ui": "always"})))
	assert.Equal(t, "never", colorMode("auto", false, config(map[string]string{"color.ui": "false"})))
	assert.Equal(t, "auto", colorMode("auto", false, nil))
}

// unsetenv removes k for the rest of the test (t.Setenv restores it).
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	require.NoError(t, os.Unsetenv(k))
}

// TestPagerOnATerminal: on a terminal long output goes through the pager
// (--no-pager and --json keep it out); in a pipe nothing changes.
func TestPagerOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) gives the test a terminal; not installed")
	}
	t.Parallel()
	dir := goldenStore(t)
	pager := []string{"GIT_PAGER=sed s/^/PAGED:/"}
	onTerminal := func(args string) string {
		r := execEnv(t, dir, "", pager, "script", "-qec", binPath+" "+args, "/dev/null")
		require.Equal(t, 0, r.code, r.String())
		return strings.ReplaceAll(r.stdout, "\r", "")
	}
	assert.Contains(t, onTerminal("show rfc-6749"), "PAGED:id ")
	assert.NotContains(t, onTerminal("--no-pager show rfc-6749"), "PAGED:")
	assert.NotContains(t, onTerminal("--json show rfc-6749"), "PAGED:")
	assert.NotContains(t, onTerminal("reindex"), "PAGED:", "a short report is not paged")
	r := execEnv(t, dir, "", pager, "git-records", "show", "rfc-6749")
	assert.NotContains(t, r.stdout, "PAGED:", "never in a pipe")
	// The pager shows colour on: diff's colour with --color auto.
	assert.Contains(t, onTerminal("diff records~1 records"), "\033[")
	assert.NotContains(t, onTerminal("--color never diff records~1 records"), "\033[")
}
