package cmdutil

import (
	"os"
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
	assert.Equal(t, "gp", PagerCommand(config(map[string]string{"core.pager": "cp"})))
	t.Setenv("GIT_PAGER", "")
	assert.Equal(t, "", PagerCommand(nil), "an empty GIT_PAGER turns paging off, as in git")
	unsetenv(t, "GIT_PAGER")
	assert.Equal(t, "cp", PagerCommand(config(map[string]string{"core.pager": "cp"})))
	assert.Equal(t, "p", PagerCommand(nil))
	unsetenv(t, "PAGER")
	assert.Equal(t, "less", PagerCommand(nil))

	assert.Equal(t, "never", ColorMode("never", true, config(map[string]string{"color.ui": "always"})))
	assert.Equal(t, "always", ColorMode("auto", false, config(map[string]string{"color.ui": "always"})))
	assert.Equal(t, "never", ColorMode("auto", false, config(map[string]string{"color.ui": "false"})))
	assert.Equal(t, "auto", ColorMode("auto", false, nil))
}

// TestUseColorNeverInAPipe: auto colour needs a terminal; a buffer, like a
// pipe, gets none, and NO_COLOR wins even over a terminal.
func TestUseColorNeverInAPipe(t *testing.T) {
	streams, _, out, _ := Test()
	assert.False(t, UseColor("auto", out))
	assert.True(t, UseColor("always", out))
	assert.False(t, streams.IsStdoutTTY())
	t.Setenv("NO_COLOR", "1")
	assert.False(t, UseColor("auto", os.Stdout))
}

// TestPagerTakesTheOutput: a started pager reads what the command prints
// and has written it all once stopped; colour turns on for it.
func TestPagerTakesTheOutput(t *testing.T) {
	streams, _, out, _ := Test()
	streams.StartPager("sed s/^/PAGED:/")
	_, err := streams.Out.Write([]byte("one\ntwo\n"))
	require.NoError(t, err)
	streams.StopPager()
	assert.Equal(t, "PAGED:one\nPAGED:two\n", out.String())
	assert.True(t, streams.colorForced)

	streams, _, out, _ = Test()
	streams.StartPager("cat")
	assert.Same(t, out, streams.Out, "cat is no pager")
}

// unsetenv removes k for the rest of the test (t.Setenv restores it).
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	require.NoError(t, os.Unsetenv(k))
}
