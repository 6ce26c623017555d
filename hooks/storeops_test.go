package hooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/hooks"
)

// TestStoreOpsLeaveRecordsAlone: a policy or init commit changes store
// files only. Its record changes would skip the op-matches rules (a
// retired record made active again, say), since no op's entries are
// expected of it. And a merge is a commit with two parents: one parent
// and Record-Op: merge is an update in disguise.
func TestStoreOpsLeaveRecordsAlone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	base := revParse(t, dir, "HEAD")
	for _, c := range []struct {
		name, msg, want string
	}{
		{"policy", handMsg("policy(store): x", "Record-Op: policy", "Record-Id: "+w.concept, "Record-Agent: a", "Record-Format: 1",
			"Evidence-Rationale: r"), "policy commit changes record " + w.concept + ": policy and init change store files only"},
		{"init", handMsg("init(store): x", "Record-Op: init", "Record-Id: "+w.concept, "Record-Agent: a", "Record-Format: 1"),
			"init commit changes record " + w.concept + ": policy and init change store files only"},
		{"merge with one parent", handMsg("merge(store): x", "Record-Op: merge", "Record-Id: "+w.concept, "Record-Agent: a",
			"Record-Format: 1", "Evidence-Merged-From: "+base), "a merge commit has two parents, this one has 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			git(t, dir, "reset", "-q", "--hard", base)
			edit(t, recordFile(t, dir, w.concept), func(s string) string {
				return appendLog(t, s, strings.Replace(handEntry, "op: update", "op: "+strings.Fields(c.name)[0], 1)) + "\nx"
			})
			commit(t, dir, w.key, c.msg)
			assert.Contains(t, violationsOf(t, dir), hooks.RuleOpMatches+": "+c.want)
		})
	}
}
