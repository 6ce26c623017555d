package kernel_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestApprovalStatementBindsWhatIsApproved: an approval of one op, record
// set, evidence or tip is a different statement from any other, so its
// signature cannot be replayed.
func TestApprovalStatementBindsWhatIsApproved(t *testing.T) {
	tip := strings.Repeat("a", 40)
	ev := []kernel.Trailer{{Key: kernel.TrailerOp, Value: "apply"}, {Key: kernel.TrailerID, Value: "c1"},
		{Key: kernel.TrailerProposer, Value: "f1"}, {Key: kernel.TrailerRationale, Value: "right"}}
	base := kernel.ApprovalRequest{Op: kernel.OpApply, Records: []string{"c1"}, Evidence: kernel.EvidenceDigest(ev), Tip: tip}
	other := func(f func(r *kernel.ApprovalRequest)) kernel.ApprovalRequest {
		r := base
		r.Records = append([]string(nil), base.Records...)
		f(&r)
		return r
	}
	variants := map[string]kernel.ApprovalRequest{
		"another op":       other(func(r *kernel.ApprovalRequest) { r.Op = kernel.OpRetire }),
		"another record":   other(func(r *kernel.ApprovalRequest) { r.Records = []string{"c2"} }),
		"one more record":  other(func(r *kernel.ApprovalRequest) { r.Records = append(r.Records, "c2") }),
		"no record":        other(func(r *kernel.ApprovalRequest) { r.Records = nil }),
		"another tip":      other(func(r *kernel.ApprovalRequest) { r.Tip = strings.Repeat("b", 40) }),
		"another evidence": other(func(r *kernel.ApprovalRequest) { r.Evidence = kernel.EvidenceDigest(ev[:3]) }),
		"an id that smuggles a line": other(func(r *kernel.ApprovalRequest) {
			r.Records = []string{"c1\nrecord \"c2\""}
		}),
	}
	seen := map[string]string{string(base.Statement()): "base"}
	for name, r := range variants {
		st := string(r.Statement())
		require.NotContains(t, seen, st, "%s gives the statement of %s", name, seen[st])
		seen[st] = name
	}
	assert.Equal(t, "git-records approval 1\nop \"apply\"\nrecord \"c1\"\nevidence "+base.Evidence+"\ntip \""+tip+"\"\n", string(base.Statement()))
}

func TestEvidenceDigest(t *testing.T) {
	ev := []kernel.Trailer{{Key: kernel.TrailerRationale, Value: "a"}, {Key: kernel.TrailerProposer, Value: "b"}}
	d := kernel.EvidenceDigest(ev)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, d)
	withOthers := append([]kernel.Trailer{{Key: kernel.TrailerOp, Value: "apply"}, {Key: kernel.TrailerAgent, Value: "x"}}, ev...)
	withOthers = append(withOthers, kernel.Trailer{Key: kernel.TrailerApprovedBy, Value: "carol"}, kernel.Trailer{Key: kernel.TrailerApprovalSignature, Value: "sig"})
	assert.Equal(t, d, kernel.EvidenceDigest(withOthers), "only the Evidence-* trailers count: the approval cannot cover itself")
	assert.NotEqual(t, d, kernel.EvidenceDigest([]kernel.Trailer{{Key: kernel.TrailerRationale, Value: "a\nEvidence-Proposer: b"}}))
	assert.NotEqual(t, d, kernel.EvidenceDigest([]kernel.Trailer{ev[0], {Key: kernel.TrailerProposer, Value: "c"}}))
}

func TestApprovalToken(t *testing.T) {
	tip := strings.Repeat("ab", 20)
	gotTip, sig, err := kernel.ParseToken(" " + kernel.Token(tip, "U1NIU0lH") + "\n")
	require.NoError(t, err)
	assert.Equal(t, tip, gotTip)
	assert.Equal(t, "U1NIU0lH", sig)
	for _, bad := range []string{"", "U1NIU0lH", "nothex:U1NIU0lH", tip + ":", "abc:U1NIU0lH"} {
		_, _, err := kernel.ParseToken(bad)
		assert.True(t, kernel.IsCode(err, kernel.CodeUsage), "%q: %v", bad, err)
	}
}

func TestProveApproval(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		approvedBy, committer string
		hasSignature          bool
		signedBy, why         string
		wantErr               string
	}{
		{"the committer approves with its own signature", "alice", "alice", false, "", "", ""},
		{"an approver's signature", "carol", "alice", true, "carol", "", ""},
		{"no Approved-By", "", "alice", false, "", "", "has no Approved-By"},
		{"a name only", "carol", "alice", false, "", "", "a name is not an approval"},
		{"a signature that does not verify", "carol", "alice", true, "", "bad signature", "does not verify against this commit's op, records, evidence and parent: bad signature"},
		{"a signature by someone else", "carol", "alice", true, "mallory", "", "the Approval-Signature is by mallory"},
		{"the committer's name with someone else's signature", "alice", "alice", true, "carol", "", "the Approval-Signature is by carol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := kernel.ProveApproval(tc.approvedBy, tc.committer, tc.hasSignature, tc.signedBy, tc.why)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
			assert.True(t, kernel.IsCode(err, kernel.CodePermissionDenied))
		})
	}
}
