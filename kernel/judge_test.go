package kernel_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestJudgeCommitOrder: the judgment runs its checks in its documented
// order (shape, signature, message, what the commit changes, policy), and
// each finding names its rule and, for a record, the file.
func TestJudgeCommitOrder(t *testing.T) {
	v := fixture(t)
	tr := kernel.NewTrust(nil, []byte("version: 1\nrules:\n  - profile: read-only\n"))
	require.NoError(t, tr.Err())
	r := appended(get(t, v, conceptID), kernel.OpUpdate)
	r.Title, r.Authority = "Renamed", kernel.AuthorityExternal // the evidence names the title only
	path := "records/concept/xx/" + conceptID + ".md"
	facts := func(sig kernel.SignatureFacts) kernel.CommitFacts {
		return kernel.CommitFacts{
			Parents: []string{"p1"}, ParentDates: []time.Time{opAt}, Committed: opAt.Add(-time.Hour), Now: opAt,
			Message: kernel.Message{Op: kernel.OpUpdate, Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: "update"},
				{Key: kernel.TrailerID, Value: conceptID}, {Key: kernel.TrailerFields, Value: "title"}}},
			Trust: tr, Signature: sig, Before: v,
			Files: kernel.FileList([]kernel.FileChange{{Path: path, Mode: "0100644", Regular: true, IsRecord: true, Type: "concept", ID: conceptID,
				Old: get(t, v, conceptID), New: r}}),
		}
	}
	rules := func(j kernel.Judgment) []string {
		var out []string
		for _, x := range j.Violations {
			out = append(out, x.Rule)
		}
		return out
	}

	j, err := kernel.JudgeCommit(facts(kernel.SignatureFacts{Status: kernel.SignatureUnsigned}))
	require.NoError(t, err)
	assert.Equal(t, []string{kernel.RuleTime, kernel.RuleSignature, kernel.RuleTrailers, kernel.RuleOpMatches, kernel.RuleOpMatches}, rules(j),
		"dated before its parent, unsigned, no Record-Agent, and a field its evidence does not name; no policy without a signer")
	assert.Equal(t, path, j.Violations[3].Path)

	j, err = kernel.JudgeCommit(facts(kernel.SignatureFacts{Status: kernel.SignatureGood, Principal: "reader@example.com"}))
	require.NoError(t, err)
	assert.Equal(t, []string{kernel.RuleTime, kernel.RuleTrailers, kernel.RuleOpMatches, kernel.RuleOpMatches, kernel.RulePolicy}, rules(j))
	require.Len(t, j.Rights, 1)
	assert.False(t, j.Rights[0].Decision.Allowed, "the policy's decision is part of the verdict")

	staged := facts(kernel.SignatureFacts{})
	staged.Staged = true
	j, err = kernel.JudgeCommit(staged)
	require.NoError(t, err)
	assert.Empty(t, rules(j), "staged changes are judged by what they change alone, and a hand edit names no op")
}
