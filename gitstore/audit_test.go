package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func readAudit(t testing.TB, s *Store) *AuditLog {
	t.Helper()
	log, err := s.ReadAudit(time.Time{})
	require.NoError(t, err)
	return log
}

// TestAuditOneLinePerOp: every op that reaches the write path leaves
// exactly one line, whatever its outcome: committed, unchanged, refused by
// the op's own rules before anything was decided, with the caller's front,
// op, agent and input digest.
func TestAuditOneLinePerOp(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	log := readAudit(t, s)
	require.Len(t, log.Lines, 1, "init is audited")
	assert.Equal(t, "init", log.Lines[0].Op)
	assert.Equal(t, kernel.AuditAllowed, log.Lines[0].Result)

	r := create(t, s, kernel.CreateInput{Title: "Audited"})
	tip, err := s.Tip()
	require.NoError(t, err)
	input := map[string]any{"title": "x"}
	_, err = s.MutateCall(Call{Front: "mcp", Op: "create", Agent: "bot", Input: input}, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Create(v, kernel.CreateInput{Type: "concept", Category: "engineering", Provenance: kernel.Provenance{Agent: "bot"}}, env)
	}, kernel.Approval{})
	require.Error(t, err, "a create without a title is refused")
	refusedCode := string(kernel.CodeOf(err))
	title := r.Title
	w, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, r.ID, kernel.UpdateFields{Title: &title}, ev(), env)
	})
	require.NoError(t, err)
	require.True(t, w.Commit.IsZero(), "an update to the same title changes nothing")

	log = readAudit(t, s)
	require.Len(t, log.Lines, 4, "one line per op")
	created, refused, unchanged := log.Lines[1], log.Lines[2], log.Lines[3]

	assert.Equal(t, "create", created.Op)
	assert.Equal(t, kernel.AuditAllowed, created.Result)
	assert.Equal(t, "OK", created.Code)
	assert.Equal(t, testEmail, created.Principal)
	assert.Equal(t, testAgent, created.Agent, "the agent is read from the commit when the caller names none")
	assert.Equal(t, kernel.RiskWritesLocalState, created.Risk)
	assert.Equal(t, kernel.EvidenceRefs{Commit: tip.String(), Records: []string{r.ID}}, created.EvidenceRefs)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, created.InputDigest)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, created.OutputDigest)
	assert.Positive(t, created.DurationMS)

	assert.Equal(t, "create", refused.Op, "an op refused before deciding is audited under the op the caller asked for")
	assert.Equal(t, "mcp", refused.Front)
	assert.Equal(t, "bot", refused.Agent)
	assert.Equal(t, kernel.AuditFailed, refused.Result)
	assert.Equal(t, refusedCode, refused.Code)
	assert.Equal(t, kernel.AuditDigest(input), refused.InputDigest)
	assert.Empty(t, refused.EvidenceRefs.Commit)
	assert.Equal(t, testEmail, refused.Principal)
	assert.NotEqual(t, created.OutputDigest, refused.OutputDigest)

	assert.Equal(t, kernel.AuditUnchanged, unchanged.Result)
	assert.Equal(t, "OK", unchanged.Code)
	assert.Empty(t, unchanged.EvidenceRefs.Commit)
}

// TestAuditRotationLosesNoLine: writers in parallel, each with a store of
// its own (as separate processes have), append past the rotation size many
// times over; reading the rotated parts in order then the current log gives
// back every line exactly once.
func TestAuditRotationLosesNoLine(t *testing.T) {
	t.Parallel()
	s := newTestStore(t, Options{AuditMaxBytes: 2048})
	const writers, each = 6, 60
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		st := reopen(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				st.appendAudit(kernel.AuditLine{Time: kernel.At(time.Now()).String(), Op: "create", Principal: fmt.Sprintf("w%d-%d", w, i), Result: kernel.AuditAllowed, Code: "OK"})
			}
		}()
	}
	wg.Wait()
	log := readAudit(t, s)
	assert.Zero(t, log.Skipped)
	assert.Greater(t, len(log.Files), 5, "the log rotated")
	seen := map[string]int{}
	last := map[int]int{}
	for _, l := range log.Lines {
		seen[l.Principal]++
		var w, i int
		if _, err := fmt.Sscanf(l.Principal, "w%d-%d", &w, &i); err == nil {
			assert.Greater(t, i+1, last[w], "writer %d's lines are read in the order it wrote them", w)
			last[w] = i + 1
		}
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			assert.Equal(t, 1, seen[fmt.Sprintf("w%d-%d", w, i)], "line w%d-%d", w, i)
		}
	}
	for _, f := range log.Files[:len(log.Files)-1] {
		fi, err := os.Stat(f)
		require.NoError(t, err)
		assert.Less(t, fi.Size(), int64(2048+2048), "%s: a part stops growing once rotated", f)
	}
}

// TestAuditTornLine: a line cut short by a crash (no newline, not JSON)
// is skipped and counted, and the next op's line is not glued to it.
func TestAuditTornLine(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	f, err := os.OpenFile(s.AuditLogPath(), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2026-01-02T03:04:09.000Z","op":"cre`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	create(t, s, kernel.CreateInput{Title: "After the crash"})
	log := readAudit(t, s)
	assert.Equal(t, 1, log.Skipped)
	require.Len(t, log.Lines, 2)
	assert.Equal(t, "create", log.Lines[1].Op)
	assert.Equal(t, kernel.AuditAllowed, log.Lines[1].Result)
}

// TestAuditReadsOlderLines: a newer tool reads every older line (the
// kernel contract's data compatibility): lines from before results existed
// were denials, and their record and commit are evidence references now.
func TestAuditReadsOlderLines(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	old := `{"time":"2026-01-01T00:00:00.000Z","principal":"carol@example.com","op":"apply","record":"r1","rule":"principal carol@example.com → contributor","reason":"profile contributor does not allow apply"}
{"time":"2026-01-01T00:00:01.000Z","principal":"alice@example.com","op":"create","record":"r2","rule":"default","reason":"ok","result":"allowed","commit":"0123456789abcdef0123456789abcdef01234567"}
`
	require.NoError(t, os.WriteFile(s.AuditLogPath()+".1", []byte(old), 0o644))
	log := readAudit(t, s)
	require.Len(t, log.Lines, 3)
	assert.Equal(t, filepath.Base(s.AuditLogPath())+".1", filepath.Base(log.Files[0]), "rotated parts first")
	denied, allowed := log.Lines[0], log.Lines[1]
	assert.Equal(t, kernel.AuditDenied, denied.Result)
	assert.Equal(t, "PERMISSION_DENIED", denied.Code)
	assert.Equal(t, []string{"r1"}, denied.EvidenceRefs.Records)
	assert.Equal(t, kernel.RiskExternalMutation, denied.Risk, "the risk of an old line is its op's")
	assert.Equal(t, kernel.AuditAllowed, allowed.Result)
	assert.Equal(t, "0123456789abcdef0123456789abcdef01234567", allowed.EvidenceRefs.Commit)
	assert.Equal(t, "init", log.Lines[2].Op)

	since, err := kernel.ParseTimestamp("2026-01-01T00:00:01.000Z")
	require.NoError(t, err)
	log, err = s.ReadAudit(since.Time)
	require.NoError(t, err)
	require.Len(t, log.Lines, 2, "--since keeps lines at or after the time")
}
