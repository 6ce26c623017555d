package gitstore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestInitLosingTheRaceWritesNothing: two inits of a fresh repository race.
// The one that loses the compare-and-swap finds a branch that exists, and
// on an existing branch Init writes nothing: it must not replace the
// winner's allowed signers (the store's trust root) with its own line.
func TestInitLosingTheRaceWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "--object-format=sha1", "-b", "main", ".")
	winner, err := Open(dir, Options{Now: newTestClock().Now})
	require.NoError(t, err)
	line, err := winner.GenerateSigningKey(testEmail)
	require.NoError(t, err)

	// The loser reads the branch as absent, then the winner creates it
	// before the loser's write lands.
	clock := newTestClock()
	raced := false
	loser, err := Open(dir, Options{Now: func() time.Time {
		if !raced {
			raced = true
			_, err := winner.Init(testAgent, line)
			require.NoError(t, err)
		}
		return clock.Now()
	}})
	require.NoError(t, err)
	w, err := loser.Init(testAgent, "intruder@example.com "+line[len(testEmail)+1:])
	require.NoError(t, err)
	require.True(t, raced)
	require.True(t, w.Commit.IsZero(), "the branch existed by the time the loser wrote")
	require.Equal(t, line+"\n", gitShow(t, dir, winner.Ref(), AllowedSignersPath))
}
