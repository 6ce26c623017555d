package hooks_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPushRefusesAnAliasThatLeavesItsFolder: export names files by
// aliases, so an alias with '..', '.' or empty segments would let a
// snapshot's payload overwrite ~/.bashrc or a git hook. A correctly signed
// hand commit that gives a record such an alias is refused by the server
// and by verify, whatever else in it is right.
func TestPushRefusesAnAliasThatLeavesItsFolder(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, alias := range []string{"a/../../../.bashrc", "a/./b", "a//b"} {
		t.Run(alias, func(t *testing.T) {
			dir := w.clone(t)
			tip := w.serverTip(t)
			edit(t, recordFile(t, dir, w.concept), func(s string) string {
				s = replace(t, s, "\ncreated_at:", "\naliases: ["+alias+"]\ncreated_at:")
				return appendLog(t, s, strings.Replace(updateEntry, "fields: [body]", "fields: [aliases]", 1))
			})
			commit(t, dir, w.key, handMsg("update(concept): Token refresh", "Record-Op: update", "Record-Id: "+w.concept,
				"Record-Agent: hand-editor", "Record-Format: 1", "Evidence-Fields: aliases"))
			requireRejected(t, push(t, dir, "records"), "alias-path", `aliases entry "`+alias+`" has the path segment`)
			assert.Equal(t, tip, w.serverTip(t), "the server's branch did not move")

			r := rec(t, dir, "verify", "HEAD~1..HEAD")
			assert.Equal(t, 1, r.code, "%s", r)
			assert.Regexp(t, regexp.MustCompile(`(?m)^✗ [0-9a-f]{12} record `+w.concept+`: alias-path: `), r.stdout)
			assert.NotContains(t, r.stdout, "mutation-log", "the commit is right in every other way:\n%s", r)
		})
	}
}
