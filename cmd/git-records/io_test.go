package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	// /dev/null is a character device, not a terminal: no pager is started.
	marker := filepath.Join(t.TempDir(), "pager-ran")
	r = execEnv(t, dir, "", []string{"GIT_PAGER=touch " + marker}, "sh", "-c", "git-records show rfc-6749 >/dev/null")
	require.Equal(t, 0, r.code, r.String())
	assert.NoFileExists(t, marker, "output sent to /dev/null started the pager")
	// The pager shows colour on: diff's colour with --color auto.
	assert.Contains(t, onTerminal("diff records~1 records"), "\033[")
	assert.NotContains(t, onTerminal("--color never diff records~1 records"), "\033[")
}

// TestProgressOnATerminal: long work shows git's progress line on stderr
// on a terminal; never in a pipe, never with --json.
func TestProgressOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) gives the test a terminal; not installed")
	}
	t.Parallel()
	dir := goldenStore(t)
	commits := strings.TrimSpace(git(t, dir, "rev-list", "--count", "refs/heads/records"))
	now := []string{"GIT_PROGRESS_DELAY=0"}
	onTerminal := func(args string) string {
		r := execEnv(t, dir, "", now, "script", "-qec", binPath+" "+args, "/dev/null")
		require.Equal(t, 0, r.code, r.String())
		return r.stdout
	}
	assert.Contains(t, onTerminal("verify"), "\rVerifying commits: 100% ("+commits+"/"+commits+"), done.\r\n")
	assert.Regexp(t, `\rReading records: 100% \(\d+/\d+\), done\.\r\n`, onTerminal("reindex"))
	assert.NotContains(t, onTerminal("--json verify"), "Verifying")
	r := execEnv(t, dir, "", now, "git-records", "verify")
	require.Equal(t, 0, r.code, r.String())
	assert.NotContains(t, r.stderr, "Verifying", "never in a pipe")
}
