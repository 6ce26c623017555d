package hooks_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// blindView hides every link to a record: a compaction decided on it
// takes a cited record for noise, as a hand-written one could.
type blindView struct{ *gitstore.View }

func (blindView) CitedBy(string) ([]kernel.Citation, error) { return nil, nil }

// TestVerifyRefusesCompactingDecisionBearing: a compaction commit written
// by hand that retires a record cited in a report is refused by the server
// (rule decision-bearing), though it is signed, well formed and matches
// its own evidence.
func TestVerifyRefusesCompactingDecisionBearing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cited := create(t, w.origin, "--type", "raw", "--kind", "event", "--title", "latency spike", "--category", "eng.auth", "--agent", "bot", "--body", "spike")
	create(t, w.origin, "--type", "ops.report", "--title", "Weekly report", "--category", "eng.auth", "--agent", "bot", "--body", "See [["+cited+"]].")
	r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)

	dir := w.clone(t)
	s, err := gitstore.Open(dir, gitstore.Options{})
	require.NoError(t, err)
	defer s.Close()
	v, err := s.View()
	require.NoError(t, err)
	m, plan, err := kernel.Compact(blindView{v}, kernel.CompactInput{Before: time.Now().Add(time.Hour), Agent: "janitor"},
		kernel.Env{Now: time.Now(), NewID: kernel.NewID})
	require.NoError(t, err)
	require.Len(t, plan.Compacted, 1, "blind to the report, the compaction takes the cited record for noise")
	for _, rec := range m.Writes {
		data, err := gitstore.EncodeRecord(rec)
		require.NoError(t, err)
		path := filepath.Join(dir, gitstore.RecordPath(rec.Type, rec.ID))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
	commit(t, dir, w.key, gitstore.EncodeMessage(gitstore.CommitMessage{Subject: m.Subject(), Body: m.Message, Trailers: m.Trailers}))
	requireRejected(t, push(t, dir, "records"), "decision-bearing", "retires decision-bearing record "+cited+" (rule cited")
}
