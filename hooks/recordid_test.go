package hooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/hooks"
)

// TestRecordIDNamesOnlyWhatChanged: Record-Id trailers are the audit trail
// (git log --format=%(trailers:key=Record-Id)); a commit may not name a
// record it leaves alone, or the history would point reviewers at the
// wrong record.
func TestRecordIDNamesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	edit(t, recordFile(t, dir, w.concept), func(s string) string { return appendLog(t, s, handEntry) + "\nmore" })
	commit(t, dir, w.key, handMsg("update(concept): x", "Record-Op: update", "Record-Id: "+w.concept, "Record-Id: "+w.finding,
		"Record-Agent: a", "Record-Format: 1", "Evidence-Fields: body"))
	assert.Contains(t, strings.Join(violationsOf(t, dir), "\n"),
		hooks.RuleOpMatches+": Record-Id names record "+w.finding+", which this update commit does not change")
}
