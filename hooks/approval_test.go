package hooks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// approvalWorld is the world under policy-approvers.yaml: applies need an
// approval, and both the test user and carol maintain.
func approvalWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	mustRec(t, w.origin, "policy", "set", fixturePath(t, "policy-approvers.yaml"), "--rationale", "applies need a second look", "--agent", userEmail)
	r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)
	return w
}

// approvalRequest is what the gate asks for when an op needs an approval
// the committer did not bring: the error's approval_request.
func approvalRequest(t *testing.T, dir string, args []string) (kernel.ApprovalRequest, string) {
	t.Helper()
	r := rec(t, dir, append([]string{"--json"}, args...)...)
	require.Equal(t, 4, r.code, "%s", r)
	var env struct {
		Error struct {
			Code            string
			Message         string
			ApprovalRequest struct {
				Op       string   `json:"op"`
				Records  []string `json:"records"`
				Evidence string   `json:"evidence"`
				Tip      string   `json:"tip"`
			} `json:"approval_request"`
			ApproveCommand string `json:"approve_command"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &env), "%s", r)
	require.Equal(t, "PERMISSION_DENIED", env.Error.Code)
	q := env.Error.ApprovalRequest
	return kernel.ApprovalRequest{Op: kernel.Op(q.Op), Records: q.Records, Evidence: q.Evidence, Tip: q.Tip}, env.Error.ApproveCommand
}

// signApproval signs an approval of req with key, in-process: what a
// client without the CLI can make.
func signApproval(t *testing.T, key string, req kernel.ApprovalRequest) string {
	t.Helper()
	signer, err := signing.FromConfig(mapConfig{"records.signingkey": key}, "", "")
	require.NoError(t, err)
	sig, err := signing.SignApproval(signer, req.Statement())
	require.NoError(t, err)
	return sig
}

type mapConfig map[string]string

func (m mapConfig) Get(key string) (string, bool) { v, ok := m[key]; return v, ok }

// approvedAs wraps a decision so the commit carries the given approval
// trailers, past the gate; sign (when set) signs the approval of the
// commit's own statement with that key.
func approvedAs(t *testing.T, decide gitstore.Decision, approvedBy string, sign func(req kernel.ApprovalRequest) string) gitstore.Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, err := decide(v, env)
		if err != nil || m == nil {
			return m, err
		}
		m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerApprovedBy, Value: approvedBy})
		if sign != nil {
			req := kernel.RequestFor(m, v.(kernel.Snapshot).Revision())
			m.Trailers = append(m.Trailers, kernel.Trailer{Key: kernel.TrailerApprovalSignature, Value: sign(req)})
		}
		return m, nil
	}
}

// TestSignedApproval: Approved-By used to be a name the committer typed. An
// approval is now the approver's signature over the op, the records, the
// evidence and the tip; verify and the server check it.
func TestSignedApproval(t *testing.T) {
	t.Parallel()
	w := approvalWorld(t)
	apply := []string{"apply", w.concept, "--proposer", w.finding, "--rationale", "the finding is right", "--body", "Rotate on every refresh.", "--agent", userEmail}

	// The committer (the test user) is asked for an approval and told how to get one.
	dir := w.cliClone(t)
	req, command := approvalRequest(t, dir, apply)
	tip := revParse(t, dir, "refs/heads/records")
	assert.Equal(t, kernel.ApprovalRequest{Op: kernel.OpApply, Records: []string{w.concept}, Evidence: req.Evidence, Tip: tip}, req)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, req.Evidence)
	assert.Equal(t, "git records approve --op apply --record "+w.concept+" --tip "+tip+" --evidence "+req.Evidence, command)

	// carol approves from her own clone, with her own key.
	carolDir := w.carolClone(t)
	git(t, carolDir, "fetch", "-q", "origin")
	token := strings.TrimSpace(mustRec(t, carolDir, strings.Fields(strings.TrimPrefix(command, "git records "))...))
	require.True(t, strings.HasPrefix(token, tip+":"), "a token names the tip it approves: %q", token)

	t.Run("a forged approval is refused by verify and by the server", func(t *testing.T) {
		// verify judges every forgery; the server, which runs the same
		// rule on what a push brings, is pushed each kind of failure once:
		// no signature, a key not the approver's, and a replay (the tip,
		// which the server judges against its own).
		for _, tc := range []struct {
			name, approvedBy string
			sign             func(req kernel.ApprovalRequest) string
			says             string
			push             bool
		}{
			{"a name only", carol, nil, "Approved-By names carol@example.com but the commit carries no Approval-Signature: a name is not an approval", true},
			{"signed by a key not the approver's", carol, func(req kernel.ApprovalRequest) string { return signApproval(t, malloryKey, req) },
				"the Approval-Signature for carol@example.com does not verify", true},
			{"signed by the approver for another name", userEmail, func(req kernel.ApprovalRequest) string { return signApproval(t, carolKey, req) },
				"Approved-By names test@example.com but the Approval-Signature is by carol@example.com", false},
			{"replayed on another record", carol, func(req kernel.ApprovalRequest) string {
				req.Records = []string{w.finding}
				return signApproval(t, carolKey, req)
			}, "does not verify against this commit's op, records, evidence and parent", false},
			{"replayed on another op", carol, func(req kernel.ApprovalRequest) string {
				req.Op = kernel.OpRetire
				return signApproval(t, carolKey, req)
			}, "does not verify against this commit's op, records, evidence and parent", false},
			{"replayed on another tip", carol, func(req kernel.ApprovalRequest) string {
				req.Tip = strings.Repeat("0", 40)
				return signApproval(t, carolKey, req)
			}, "does not verify against this commit's op, records, evidence and parent", true},
			{"replayed with other evidence", carol, func(req kernel.ApprovalRequest) string {
				req.Evidence = kernel.EvidenceDigest(nil)
				return signApproval(t, carolKey, req)
			}, "does not verify against this commit's op, records, evidence and parent", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // each pushes from its own clone and is refused: the server does not move
				d := w.cliClone(t)
				mutateAs(t, d, approvedAs(t, w.apply(userEmail), tc.approvedBy, tc.sign))
				rep := verifyJSON(t, d, 1, "records~1..records")
				require.Len(t, rep.Violations, 1, "%+v", rep.Violations)
				assert.Equal(t, hooks.RuleApproval, rep.Violations[0].Rule)
				assert.Contains(t, rep.Violations[0].Message, tc.says)
				if tc.push {
					requireRejected(t, push(t, d, "records"), "approval", tc.says)
				}
			})
		}
	})

	t.Run("a genuine approval made past the CLI passes", func(t *testing.T) {
		d := w.cliClone(t)
		mutateAs(t, d, approvedAs(t, w.apply(userEmail), carol, func(req kernel.ApprovalRequest) string { return signApproval(t, carolKey, req) }))
		verifyJSON(t, d, 0, "records~1..records")
	})

	t.Run("the committer attaches the approval; verify and the server accept it", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "approval")
		require.NoError(t, os.WriteFile(file, []byte(token+"\n"), 0o644))
		mustRec(t, dir, append(apply, "--approval-file", file)...)
		ts := trailers(t, dir, "refs/heads/records")
		assert.Equal(t, []string{carol}, trailerValues(ts, "Approved-By"), "git reads the approval: %q", ts)
		require.Len(t, trailerValues(ts, "Approval-Signature"), 1)
		mustRec(t, dir, "verify")
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
	})

	t.Run("an approval for an older tip asks for a fresh one", func(t *testing.T) {
		d := w.cliClone(t)
		mustRec(t, d, "propose", w.concept, "--proposer", w.finding, "--proposal", "again", "--agent", userEmail)
		r := rec(t, d, append(apply, "--approval", token)...)
		require.Equal(t, 3, r.code, "%s", r)
		assert.Contains(t, r.stderr, "CONFLICT")
		assert.Contains(t, r.stderr, "fresh approval")
	})

	t.Run("a committer allowed the op approves it with its own signature", func(t *testing.T) {
		d := w.cliClone(t)
		mustRec(t, d, "propose", w.concept, "--proposer", w.finding, "--proposal", "once more", "--agent", userEmail)
		mustRec(t, d, append(apply, "--approve")...)
		ts := trailers(t, d, "refs/heads/records")
		assert.Equal(t, []string{userEmail}, trailerValues(ts, "Approved-By"))
		assert.Empty(t, trailerValues(ts, "Approval-Signature"))
		mustRec(t, d, "verify")
	})

	t.Run("--approved-by is gone", func(t *testing.T) {
		r := rec(t, dir, append(apply, "--approve", "--approved-by", carol)...)
		require.NotEqual(t, 0, r.code, "%s", r)
		assert.Contains(t, r.stderr, "git records approve")
	})
}
