package hooks_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// summaryLine is a line of the server hooks' summary in git push's output.
// git pads a remote line with spaces, which summaryLines trims.
var summaryLine = regexp.MustCompile(`(?m)^remote: git-records: .*$`)

func summaryLines(stderr string) []string {
	var out []string
	for _, l := range summaryLine.FindAllString(stderr, -1) {
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

// TestServerSummaryOncePerPush pushes several records refs at once: the
// server has pre-receive (which sees every ref) and update (run once per
// ref), and the person pushing reads one summary, not one per ref or hook.
func TestServerSummaryOncePerPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.cliClone(t)
	// A dangling link is a warning: the push goes through and the
	// summary counts it.
	mustRec(t, dir, "update", w.finding, "--body", "Also see [[no-such-record]].", "--agent", "alice")
	git(t, dir, "branch", "review-7", "records")
	git(t, dir, "branch", "review-8", "records")
	mustRec(t, dir, "update", w.concept, "--body", "Rotate; see [[gone-record]].", "--agent", "alice")

	r := push(t, dir, "records", "review-7", "review-8")
	require.Equal(t, 0, r.code, "%s", r)
	assert.Equal(t, []string{"remote: git-records: 2 commits verified, 2 warnings"}, summaryLines(r.stderr), "%s", r)

	t.Run("a clean push of several refs says once that it verified them", func(t *testing.T) {
		dir := w.cliClone(t)
		create(t, dir, "--type", "concept", "--title", "Session expiry", "--category", "eng.auth", "--agent", "alice", "--body", "Sessions expire.")
		git(t, dir, "branch", "review-9", "records")
		r := push(t, dir, "records", "review-9")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Equal(t, []string{"remote: git-records: 1 commit verified"}, summaryLines(r.stderr), "%s", r)
	})
}
