package gitdir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const recordsRef = "refs/heads/records"

// chain writes n commits, each on the previous one.
func chain(t testing.TB, r *Repo, n int) []plumbing.Hash {
	w := r.NewObjectWriter()
	var out []plumbing.Hash
	parent := plumbing.ZeroHash
	for i := range n {
		parent = writeCommit(t, w, parent, "commit "+string(rune('A'+i)))
		out = append(out, parent)
	}
	return out
}

func requireConflict(t *testing.T, err error, expected, actual plumbing.Hash) *RefConflict {
	t.Helper()
	var c *RefConflict
	require.True(t, errors.As(err, &c), "want *RefConflict, got %v", err)
	assert.Equal(t, expected, c.Expected)
	assert.Equal(t, actual, c.Actual)
	return c
}

func TestUpdateRefAgreesWithGit(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 4)

	h, err := r.ReadRef(recordsRef)
	require.NoError(t, err)
	assert.True(t, h.IsZero(), "missing ref reads as zero")

	require.NoError(t, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))
	assert.Equal(t, c[0].String(), git(t, r.WorkTree, "rev-parse", recordsRef))

	// git moves it; we see git's value and CAS from it.
	git(t, r.WorkTree, "update-ref", recordsRef, c[1].String(), c[0].String())
	h, err = r.ReadRef(recordsRef)
	require.NoError(t, err)
	assert.Equal(t, c[1], h)

	err = r.UpdateRef(recordsRef, c[2], c[0], testIdent, "stale")
	requireConflict(t, err, c[0], c[1])
	assert.Contains(t, err.Error(), "is at "+c[1].String()+" but expected "+c[0].String())
	assert.Equal(t, c[1].String(), git(t, r.WorkTree, "rev-parse", recordsRef), "unchanged after a conflict")
	assert.NoFileExists(t, r.refPath(recordsRef)+".lock")

	require.NoError(t, r.UpdateRef(recordsRef, c[2], c[1], testIdent, "fresh"))
	// and git CASes from our value.
	git(t, r.WorkTree, "update-ref", recordsRef, c[3].String(), c[2].String())
	_, err = runGit(r.WorkTree, "update-ref", recordsRef, c[0].String(), c[2].String())
	assert.Error(t, err, "git sees our value as stale now")

	requireFsckClean(t, r.WorkTree)
}

func TestCreateOnlyFailsWhenRefExists(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 2)
	require.NoError(t, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))

	err := r.UpdateRef(recordsRef, c[1], plumbing.ZeroHash, testIdent, "create again")
	requireConflict(t, err, plumbing.ZeroHash, c[0])
	assert.Contains(t, err.Error(), "already exists")

	// A CAS from a value on a missing ref fails too.
	err = r.UpdateRef("refs/heads/missing", c[1], c[0], testIdent, "update")
	requireConflict(t, err, c[0], plumbing.ZeroHash)
}

// After git pack-refs the value lives only in packed-refs; the CAS must
// still see it.
func TestUpdateRefWithPackedRefs(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 3)
	require.NoError(t, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))
	git(t, r.WorkTree, "tag", "-a", "-m", "annotated", "v1", c[0].String()) // a peeled "^" line
	git(t, r.WorkTree, "pack-refs", "--all")
	require.NoFileExists(t, r.refPath(recordsRef))
	packed, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	require.NoError(t, err)
	require.Contains(t, string(packed), "\n^")

	h, err := r.ReadRef(recordsRef)
	require.NoError(t, err)
	assert.Equal(t, c[0], h)
	tag, err := r.ReadRef("refs/tags/v1")
	require.NoError(t, err)
	assert.Equal(t, git(t, r.WorkTree, "rev-parse", "refs/tags/v1"), tag.String())

	err = r.UpdateRef(recordsRef, c[1], plumbing.ZeroHash, testIdent, "create over packed")
	requireConflict(t, err, plumbing.ZeroHash, c[0])
	err = r.UpdateRef(recordsRef, c[2], c[1], testIdent, "stale")
	requireConflict(t, err, c[1], c[0])

	require.NoError(t, r.UpdateRef(recordsRef, c[1], c[0], testIdent, "from packed"))
	assert.Equal(t, c[1].String(), git(t, r.WorkTree, "rev-parse", recordsRef))

	// Pack again: the loose value goes to packed-refs; we still follow.
	git(t, r.WorkTree, "pack-refs", "--all")
	require.NoError(t, r.UpdateRef(recordsRef, c[2], c[1], testIdent, "from packed again"))
	assert.Equal(t, c[2].String(), git(t, r.WorkTree, "rev-parse", recordsRef))

	// A ref in the way, packed: refs/heads/records blocks refs/heads/records/x.
	git(t, r.WorkTree, "pack-refs", "--all")
	err = r.UpdateRef(recordsRef+"/x", c[0], plumbing.ZeroHash, testIdent, "d/f")
	assert.ErrorContains(t, err, "exists")
	requireFsckClean(t, r.WorkTree)
}

func TestUpdateRefReportsHeldLock(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 2)
	require.NoError(t, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))
	lock := r.refPath(recordsRef) + ".lock"
	require.NoError(t, os.WriteFile(lock, nil, 0o644)) // a crashed writer's lock

	start := time.Now()
	err := r.UpdateRef(recordsRef, c[1], c[0], testIdent, "blocked")
	waited := time.Since(start)
	conflict := requireConflict(t, err, c[0], plumbing.ZeroHash)
	assert.True(t, conflict.Locked)
	assert.Equal(t, lock, conflict.LockPath)
	assert.Contains(t, err.Error(), lock)
	assert.Contains(t, err.Error(), "remove the file manually")
	assert.GreaterOrEqual(t, waited, r.LockTimeout, "waits for the holder as git does")
	assert.FileExists(t, lock, "someone else's lock is never removed")

	// git refuses the same way, and says the same.
	_, gitErr := runGit(r.WorkTree, "update-ref", recordsRef, c[1].String(), c[0].String())
	assert.ErrorContains(t, gitErr, "File exists")
	assert.ErrorContains(t, gitErr, "remove the file manually")

	// Once the person removes it, updates go through.
	require.NoError(t, os.Remove(lock))
	require.NoError(t, r.UpdateRef(recordsRef, c[1], c[0], testIdent, "unblocked"))
}

func TestUpdateRefWaitsForABriefLock(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 2)
	require.NoError(t, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))
	lock := r.refPath(recordsRef) + ".lock"
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	go func() {
		time.Sleep(r.LockTimeout / 4)
		os.Remove(lock)
	}()
	require.NoError(t, r.UpdateRef(recordsRef, c[1], c[0], testIdent, "after the holder"))
}

func TestReflogReadByGit(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 2)
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("", -(3*3600+30*60)))
	id := Ident{Name: "Ada <Lovelace>", Email: "ada@example.com", When: when}
	require.NoError(t, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, id, "create(concept): first\n\nbody"))
	require.NoError(t, r.UpdateRef(recordsRef, c[1], c[0], id, ""))

	b, err := os.ReadFile(r.reflogPath(recordsRef))
	require.NoError(t, err)
	z := plumbing.ZeroHash.String()
	ident := " Ada Lovelace <ada@example.com> " + strconv.FormatInt(when.Unix(), 10) + " -0330"
	assert.Equal(t,
		z+" "+c[0].String()+ident+"\tcreate(concept): first body\n"+
			c[0].String()+" "+c[1].String()+ident+"\n",
		string(b))

	out := git(t, r.WorkTree, "log", "-g", "--format=%H|%gn|%ge|%gs", recordsRef)
	assert.Equal(t,
		c[1].String()+"|Ada Lovelace|ada@example.com|\n"+
			c[0].String()+"|Ada Lovelace|ada@example.com|create(concept): first body", out)

	// Moving the branch HEAD points at is logged in HEAD's reflog too, as
	// git does.
	branch := git(t, r.WorkTree, "symbolic-ref", "HEAD")
	require.NoError(t, r.UpdateRef(branch, c[0], plumbing.ZeroHash, testIdent, "checked-out branch moved"))
	assert.Contains(t, git(t, r.WorkTree, "reflog", "show", "HEAD"), "checked-out branch moved")
	requireFsckClean(t, r.WorkTree)
}

func TestSymbolicRefs(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 2)
	git(t, r.WorkTree, "symbolic-ref", "HEAD", recordsRef)
	require.NoError(t, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))

	h, err := r.ReadRef("HEAD")
	require.NoError(t, err)
	assert.Equal(t, c[0], h, "one level followed")

	err = r.UpdateRef("HEAD", c[1], c[0], testIdent, "through HEAD")
	assert.ErrorContains(t, err, "symbolic")
	assert.Equal(t, "ref: "+recordsRef, readFile(t, filepath.Join(r.GitDir, "HEAD")))
}

func TestBrokenRefIsReportedNotOverwritten(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 1)
	path := r.refPath(recordsRef)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, nil, 0o644)) // what a crash in go-git's update leaves

	_, err := r.ReadRef(recordsRef)
	assert.ErrorContains(t, err, "broken")
	err = r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "over a broken ref")
	assert.ErrorContains(t, err, "broken")
	assert.Equal(t, "", readFile(t, path))
	assert.NoFileExists(t, path+".lock")
}

func TestRefNames(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 1)
	for _, name := range []string{
		"records", "refs/heads/../../config", "refs/heads/a.lock", "refs/heads/.hidden",
		"refs/heads/a b", "refs/heads/a:b", "refs/heads/", "refs//x", "refs/heads/x@{1}", "refs/heads/x.",
	} {
		_, err := r.ReadRef(name)
		assert.ErrorIs(t, err, ErrRefused, name)
		err = r.UpdateRef(name, c[0], plumbing.ZeroHash, testIdent, "")
		assert.ErrorIs(t, err, ErrRefused, name)
		_, gitErr := runGit(r.WorkTree, "check-ref-format", name)
		assert.Error(t, gitErr, "git rejects %q too", name)
	}
	// A first ref in a new directory.
	require.NoError(t, r.UpdateRef("refs/records/deep/er/x", c[0], plumbing.ZeroHash, testIdent, "nested"))
	assert.Equal(t, c[0].String(), git(t, r.WorkTree, "rev-parse", "refs/records/deep/er/x"))
}

func readFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// A ref locked by LockRef has not moved: readers still see old, and every
// other writer, ours or git's, is kept out until Commit moves it or Abort
// gives the lock up. A lock that finds the ref elsewhere leaves no lock file.
func TestLockRefHoldsTheRefUntilCommitOrAbort(t *testing.T) {
	r := newRepoT(t)
	c := chain(t, r, 3)
	require.NoError(t, r.UpdateRef(recordsRef, c[0], plumbing.ZeroHash, testIdent, "create"))
	lockPath := r.refPath(recordsRef) + ".lock"

	l, err := r.LockRef(recordsRef, c[1], c[0])
	require.NoError(t, err)
	b, err := os.ReadFile(lockPath)
	require.NoError(t, err)
	assert.Equal(t, c[1].String()+"\n", string(b), "the new value is in the lock")
	assert.Equal(t, c[0].String(), git(t, r.WorkTree, "rev-parse", recordsRef), "not moved while locked")
	_, err = runGit(r.WorkTree, "update-ref", recordsRef, c[2].String(), c[0].String())
	assert.Error(t, err, "git is kept out")
	r.LockTimeout = 0
	var conflict *RefConflict
	require.True(t, errors.As(r.UpdateRef(recordsRef, c[2], c[0], testIdent, "second"), &conflict))
	assert.True(t, conflict.Locked)

	l.Abort()
	assert.NoFileExists(t, lockPath)
	assert.Equal(t, c[0].String(), git(t, r.WorkTree, "rev-parse", recordsRef), "an abort leaves the ref at old")
	require.Error(t, l.Commit(testIdent, "after abort"), "an aborted lock cannot move the ref")
	assert.Equal(t, c[0].String(), git(t, r.WorkTree, "rev-parse", recordsRef))

	_, err = r.LockRef(recordsRef, c[2], c[1])
	requireConflict(t, err, c[1], c[0])
	assert.NoFileExists(t, lockPath)

	l, err = r.LockRef(recordsRef, c[1], c[0])
	require.NoError(t, err)
	require.Error(t, l.Sync(), "nothing to sync before the move")
	require.NoError(t, l.Move(testIdent, "moved"))
	assert.NoFileExists(t, lockPath)
	assert.Equal(t, c[1].String(), git(t, r.WorkTree, "rev-parse", recordsRef), "moved before its directory is synced")
	require.NoError(t, l.Sync())
	require.Error(t, l.Commit(testIdent, "again"), "a lock moves its ref once")
	assert.Equal(t, c[1].String(), git(t, r.WorkTree, "rev-parse", recordsRef))
	assert.Contains(t, git(t, r.WorkTree, "reflog", "show", recordsRef), "moved")
	l.Abort() // after Commit: nothing to give up
	assert.Equal(t, c[1].String(), git(t, r.WorkTree, "rev-parse", recordsRef))
	requireFsckClean(t, r.WorkTree)
}
