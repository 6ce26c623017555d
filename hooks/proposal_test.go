package hooks_test

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/hooks"
)

// TestProposalLifecycleOnPush: a proposal is resolved once. A hand-made
// commit that rejects a proposal already rejected, by proposer or by
// proposal id, is signed by the maintainer and well formed, and the server
// still refuses it.
func TestProposalLifecycleOnPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	d := w.cliClone(t)
	mustRec(t, d, "reject", w.concept, "--proposer", w.finding, "--reason", "not now", "--agent", userEmail)
	require.Equal(t, 0, push(t, d, "records").code, "the first reject is legal")

	for _, byID := range []bool{false, true} {
		t.Run(fmt.Sprintf("reject again (by proposal id: %v)", byID), func(t *testing.T) {
			dir := w.clone(t)
			file := recordFile(t, dir, w.concept)
			evidence := "      proposer_id: " + w.finding
			says := "has no pending proposal for " + w.concept
			if byID {
				data, err := os.ReadFile(file)
				require.NoError(t, err)
				says = "is already rejected"
				id := regexp.MustCompile(`proposal_id: "?([0-9a-f]{12})`).FindStringSubmatch(string(data))
				require.NotNil(t, id, "the propose entry carries its proposal id")
				evidence += "\n      proposal_id: \"" + id[1] + "\""
			}
			edit(t, file, func(s string) string {
				return appendLog(t, s, "  - op: reject\n    at: \"2030-01-02T03:04:05.000Z\"\n    agent: hand-editor\n    evidence:\n"+
					evidence+"\n      reason: again")
			})
			commit(t, dir, w.key, handMsg("reject(concept): Token refresh", "Record-Op: reject", "Record-Id: "+w.concept,
				"Record-Agent: hand-editor", "Record-Format: 1", "Evidence-Proposer: "+w.finding, "Evidence-Reason: again"))
			requireRejected(t, push(t, dir, "records"), hooks.RuleProposal, says)
		})
	}
}
