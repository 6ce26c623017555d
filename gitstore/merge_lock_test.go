package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestMergeGivesUpOnAStaleLockLikeAWrite: a lock left by a crashed process
// stops a merge after as many attempts as it stops any write, not after
// every retry a lost race would get.
func TestMergeGivesUpOnAStaleLockLikeAWrite(t *testing.T) {
	t.Parallel()
	p := newMergePair(t)
	mgCreate(t, p.ours, "ahead", "Ours is ahead", "x\n")
	p.theirs.repo.LockTimeout = time.Millisecond
	lock := filepath.Join(p.theirs.repo.CommonDir, "refs", "heads", "feature.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))

	_, err := p.theirs.Merge(mgTip(t, p.ours), testAgent)
	requireCode(t, err, kernel.CodeConflict)
	require.Contains(t, err.Error(), fmt.Sprintf("stayed locked for %d attempts", maxLockedAttempts))
}
