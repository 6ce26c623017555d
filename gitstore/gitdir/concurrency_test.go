package gitdir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Four processes and the git CLI increment one ref by compare-and-swap at
// the same time, while git pack-refs keeps moving the ref's value between
// its loose file and packed-refs. Every increment must land exactly once: no
// lost update, no fork, nothing git would call broken.
//
// The default run makes 4×25 increments and 10 with the CLI; make soak runs
// many more (TestSoakConcurrentCAS).
func TestConcurrentCASWithRealProcesses(t *testing.T) {
	concurrentCAS(t, 4, 25, 10)
}

func concurrentCAS(t *testing.T, procs, perProc, cliIncrements int) {
	r := newRepoT(t)
	_, err := r.NewObjectWriter().Write(plumbing.TreeObject, nil) // the CLI's commits use it too
	require.NoError(t, err)

	var wg sync.WaitGroup
	retries := make([]string, procs)
	for p := range procs {
		cmd := helperCmd(t, "cas", "GITDIR_TEST_REPO="+r.WorkTree, "GITDIR_TEST_REF="+recordsRef,
			"GITDIR_TEST_ID=p"+strconv.Itoa(p), "GITDIR_TEST_N="+strconv.Itoa(perProc))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		wg.Go(func() {
			out, err := cmd.Output()
			assert.NoError(t, err, "helper p%d: %s", p, stderr.String())
			retries[p] = strings.TrimSpace(string(out))
		})
	}
	var cliRetries int
	var cliErr error
	wg.Go(func() { cliRetries, cliErr = gitCLIIncrements(r.WorkTree, recordsRef, cliIncrements) })
	done, packs := make(chan struct{}), 0
	var packWG sync.WaitGroup
	packWG.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			// It may lose a race for a ref's lock; it then leaves the ref loose.
			runGit(r.WorkTree, "pack-refs", "--all")
			packs++
		}
	})
	wg.Wait()
	close(done)
	packWG.Wait()
	require.NoError(t, cliErr)
	t.Logf("CAS retries per process: %v, git CLI: %d; git pack-refs ran %d times", retries, cliRetries, packs)

	total := procs*perProc + cliIncrements
	if !assert.Equal(t, strconv.Itoa(total), git(t, r.WorkTree, "rev-list", "--count", recordsRef)) {
		logForks(t, r)
	}
	assert.Empty(t, git(t, r.WorkTree, "rev-list", "--merges", recordsRef))
	// Every increment exactly once.
	seen := map[string]int{}
	for _, s := range strings.Split(git(t, r.WorkTree, "log", "--format=%s", recordsRef), "\n") {
		seen[s]++
	}
	for p := range procs {
		for i := range perProc {
			assert.Equal(t, 1, seen[fmt.Sprintf("p%d n%d", p, i)], "p%d n%d", p, i)
		}
	}
	for i := range cliIncrements {
		assert.Equal(t, 1, seen[fmt.Sprintf("cli n%d", i)], "cli n%d", i)
	}
	// The reflog has one entry per move, from both writers.
	assert.Equal(t, strconv.Itoa(total),
		strconv.Itoa(len(strings.Split(git(t, r.WorkTree, "reflog", "show", "--format=%H", recordsRef), "\n"))))
	requireFsckClean(t, r.WorkTree)
}

// gitCLIIncrements does n compare-and-swap increments with git commit-tree
// and git update-ref, retrying on a lost race, and returns the retries. It
// runs beside the test goroutine, so it reports failures as an error.
func gitCLIIncrements(dir, ref string, n int) (retries int, err error) {
	for i := 0; i < n; {
		old := plumbing.ZeroHash.String() // create-only while the ref is missing
		args := []string{"commit-tree", emptyTree.String(), "-m", fmt.Sprintf("cli n%d", i)}
		if tip, err := runGit(dir, "rev-parse", "--verify", "-q", ref); err == nil {
			old = tip
			args = append(args, "-p", tip)
		}
		commit, err := runGit(dir, args...)
		if err != nil {
			return retries, err
		}
		// git 2.39 update-ref loads packed-refs before taking the ref's lock
		// (checking the hex arguments against ref names) and trusts that
		// snapshot under the lock if packed-refs has the same size, second
		// and inode number; git pack-refs rewrites it so, the loose ref is
		// gone, and git CASes from a stale value: an update is lost with git
		// alone (reproduced with three git update-ref loops and a git
		// pack-refs loop). Skipping the check avoids the early load.
		if _, err := runGit(dir, "-c", "core.warnAmbiguousRefs=false",
			"update-ref", "-m", "cli", ref, commit, old); err != nil {
			if retries++; retries > 100000 {
				return retries, fmt.Errorf("git update-ref made no progress: %w", err)
			}
			continue
		}
		i++
	}
	return retries, nil
}

// A writer is killed with SIGKILL at random moments. After each kill the ref
// must name a complete commit, git must find nothing broken, and every
// commit the writer acknowledged (printed after UpdateRef returned) must be
// in the history. A kill while the writer holds the lock leaves a stale
// "<ref>.lock": it must block updates (Locked, with the path in the message)
// until removed, exactly as it blocks git.
//
// The default run kills 10 writers; make soak kills many more
// (TestSoakCrashSafetyUnderKill9).
func TestCrashSafetyUnderKill9(t *testing.T) {
	crashUnderKill9(t, 10)
}

func crashUnderKill9(t *testing.T, kills int) {
	r := newRepoT(t)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, seed))
	t.Logf("seed %d", seed)
	lockPath := r.refPath(recordsRef) + ".lock"

	var acked []string
	staleLocks := 0
	for k := range kills {
		cmd := helperCmd(t, "crash", "GITDIR_TEST_REPO="+r.WorkTree, "GITDIR_TEST_REF="+recordsRef,
			"GITDIR_TEST_ID=k"+strconv.Itoa(k))
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		lines, ready, firstAck := make(chan []string), make(chan struct{}), make(chan struct{})
		go func() {
			var got []string
			rd := bufio.NewReader(stdout)
			if line, _ := rd.ReadString('\n'); line == "ready\n" {
				close(ready)
			}
			for {
				line, err := rd.ReadString('\n')
				if err != nil { // a line cut by the kill is not an acknowledgement
					break
				}
				if h := strings.TrimSpace(line); isHexHash([]byte(h)) {
					if got = append(got, h); len(got) == 1 {
						close(firstAck)
					}
				}
			}
			lines <- got
		}()
		// Kill at a random moment once the writer is at work, whatever the
		// start-up cost of the binary (the race detector's is large). Every
		// fifth kill first waits for an acknowledged commit, so that a loaded
		// machine, where a commit takes longer than the random delay, still
		// checks that acknowledged commits survive.
		select {
		case <-ready:
		case <-time.After(10 * time.Second):
			t.Fatal("writer did not start")
		}
		if k%5 == 4 {
			select {
			case <-firstAck:
			case <-time.After(30 * time.Second):
				t.Fatal("the writer acknowledged no commit in 30 s")
			}
		}
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		require.NoError(t, cmd.Process.Kill())
		acked = append(acked, <-lines...)
		_ = cmd.Wait() // "signal: killed"

		if _, err := os.Stat(lockPath); err == nil {
			staleLocks++
			tip, _ := r.ReadRef(recordsRef)
			err := r.UpdateRef(recordsRef, emptyTree, tip, testIdent, "blocked")
			var conflict *RefConflict
			require.True(t, errors.As(err, &conflict), "stale lock: %v", err)
			assert.True(t, conflict.Locked)
			assert.Contains(t, err.Error(), lockPath)
			require.NoError(t, os.Remove(lockPath)) // what the user is told to do
		}
		if len(acked) == 0 {
			continue // killed before the first commit landed
		}
		tip, err := r.ReadRef(recordsRef)
		require.NoError(t, err)
		assert.Equal(t, git(t, r.WorkTree, "rev-parse", recordsRef), tip.String())
		git(t, r.WorkTree, "cat-file", "-e", tip.String()+"^{commit}")
		history := map[string]bool{}
		for _, h := range strings.Split(git(t, r.WorkTree, "rev-list", tip.String()), "\n") {
			history[h] = true
		}
		for _, h := range acked {
			require.True(t, history[h], "acknowledged commit %s lost after kill %d", h, k)
		}
		git(t, r.WorkTree, "reflog", "show", recordsRef)
		requireFsckClean(t, r.WorkTree)
	}
	tmps, _ := filepath.Glob(filepath.Join(r.ObjectDir, "*", "tmp_obj_*"))
	t.Logf("%d kills: %d acknowledged commits, %d stale locks, %d leftover tmp_obj_ files",
		kills, len(acked), staleLocks, len(tmps))
	require.NotEmpty(t, acked, "the writer never got a commit in")
}

// logForks prints the reflog entries that moved the ref from the same old
// value: each pair is a lost update.
func logForks(t *testing.T, r *Repo) {
	b, err := os.ReadFile(r.reflogPath(recordsRef))
	require.NoError(t, err)
	byOld := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		byOld[line[:40]] = append(byOld[line[:40]], line)
	}
	for old, lines := range byOld {
		if len(lines) > 1 {
			t.Logf("moved from %s more than once:\n%s", old, strings.Join(lines, "\n"))
		}
	}
}
