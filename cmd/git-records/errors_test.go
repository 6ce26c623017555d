package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The command line's refusals (bad input, setup errors, forged trailers,
// flags named in errors) are tested in-process in pkg/cmd/root, through the
// same root, error envelope and exit codes as the binary. TestStaleLock
// stays here: CI's race step runs it (with the Concurrent and Crash tests)
// against the binary.

// TestStaleLock: a refs/heads/records.lock left behind by a crashed process
// is reported as CONFLICT naming the file, promptly, with nothing moved;
// once it is removed, writes go through.
func TestStaleLock(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", dir)
	lock := filepath.Join(dir, ".git", "refs", "heads", "records.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))

	// init reports the lock as a conflict, not as a usage error
	e := requireError(t, rec(t, dir, "--json", "init", "--generate-key"), "CONFLICT", exitConflict)
	assert.Contains(t, e["message"], lock, "the message names the lock file")
	assert.Empty(t, tip(t, dir))
	require.NoError(t, os.Remove(lock))
	mustRec(t, dir, "init", "--generate-key")

	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	before := stateOf(t, dir)
	start := time.Now()
	r := rec(t, dir, "--json", "create", "--type", "concept", "--title", "t", "--category", "c", "--body", "b", "--agent", "a")
	e = requireError(t, r, "CONFLICT", exitConflict)
	assert.Less(t, time.Since(start), 5*time.Second, "a stale lock is reported promptly")
	assert.Contains(t, e["message"], lock, "the message names the lock file")
	assert.Equal(t, lock, e["lock"])
	assert.Equal(t, before.Tip, tip(t, dir), "the ref did not move")
	assert.Equal(t, before.Reflog, stateOf(t, dir).Reflog)
	require.FileExists(t, lock, "someone else's lock is never removed")

	require.NoError(t, os.Remove(lock))
	createID(t, dir, "--type", "concept", "--title", "t", "--category", "c", "--body", "b", "--agent", "a")
	verifyAll(t, dir, 2)
	fsckClean(t, dir)
}
