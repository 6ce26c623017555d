package gitstore

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// The writer process of the group commit tests: the test binary run again
// with GITSTORE_TEST_WRITER=<repository>, writing GITSTORE_TEST_WRITES
// records (forever when 0) from GITSTORE_TEST_WRITERS goroutines sharing
// one store (group commit when more than one).
func runTestWriter(dir string) int {
	writes, _ := strconv.Atoi(os.Getenv("GITSTORE_TEST_WRITES"))
	writers, _ := strconv.Atoi(os.Getenv("GITSTORE_TEST_WRITERS"))
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var mu sync.Mutex
	if writers > 1 {
		s.ShareWrites(&mu)
	}
	var wg sync.WaitGroup
	var failed error
	for g := range max(writers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; writes == 0 || i < writes; i++ {
				mu.Lock()
				_, err := s.Mutate(createOp(kernel.CreateInput{Title: fmt.Sprintf("process %d writer %d record %d", os.Getpid(), g, i)}))
				mu.Unlock()
				if err != nil {
					failed = err
					return
				}
				fmt.Println("landed") // the parent waits for these
			}
		}()
	}
	wg.Wait()
	if failed != nil {
		fmt.Fprintln(os.Stderr, failed)
		return 1
	}
	return 0
}

// startWriter starts the writer process on s's repository; its stdout has
// one line per record it wrote.
func startWriter(t *testing.T, s *Store, writes, writers int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GITSTORE_TEST_WRITER="+gitDir(s),
		"GITSTORE_TEST_WRITES="+strconv.Itoa(writes), "GITSTORE_TEST_WRITERS="+strconv.Itoa(writers))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	return cmd, bufio.NewScanner(out)
}

// branchCommits lists the commits of the records branch, newest first,
// with git's judgement of each signature against the exported signers.
func branchCommits(t *testing.T, s *Store) (commits []string, signatures map[string]string) {
	t.Helper()
	out := git(t, gitDir(s), "-c", "gpg.ssh.allowedSignersFile="+s.AllowedSignersExport(), "log", "--format=%H %G?", s.ref)
	signatures = map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		h, sig, _ := strings.Cut(line, " ")
		commits = append(commits, h)
		signatures[h] = sig
	}
	return commits, signatures
}

// requireBranchWhole checks the branch after concurrent writers: git fsck
// is clean, every commit has a good signature, and every record at the tip
// reads back.
func requireBranchWhole(t *testing.T, s *Store) (titles map[string]int) {
	t.Helper()
	requireFsckClean(t, gitDir(s))
	commits, sigs := branchCommits(t, s)
	for _, c := range commits {
		require.Equal(t, "G", sigs[c], "commit %s is signed by a trusted key", c)
	}
	s2 := reopen(t, s)
	v, err := s2.View()
	require.NoError(t, err)
	ix, err := v.Index()
	require.NoError(t, err)
	titles = map[string]int{}
	for _, id := range ix.IDs() {
		r, err := v.Record(id)
		require.NoError(t, err)
		titles[r.Title]++
	}
	return titles
}

// Many writers in one process share one store (as the MCP server's
// requests do) while another process writes too: every op lands exactly
// once as its own signed commit, a refused op in the middle of a group
// refuses only itself, and ops really were written in groups.
func TestGroupCommitConcurrentWriters(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	var mu sync.Mutex
	s.ShareWrites(&mu)
	const writers, each, others = 4, 2, 3
	// The first group in flight waits, its lock released, until two ops
	// queue behind it, so a group forms however the writers are scheduled
	// (on tmpfs the sync it would otherwise wait on takes no time).
	var waited atomic.Bool
	s.groupSynced = func() {
		if waited.Swap(true) {
			return
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			queued := len(s.queue)
			mu.Unlock()
			if queued >= 2 {
				return
			}
		}
	}
	other, lines := startWriter(t, s, others, 1)

	var wg sync.WaitGroup
	errs := make(chan error, writers*each+writers)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				mu.Lock()
				_, err := s.Mutate(createOp(kernel.CreateInput{Title: fmt.Sprintf("writer %d record %d", g, i)}))
				mu.Unlock()
				errs <- err
				if i > 0 {
					continue
				}
				mu.Lock()
				_, err = s.Mutate(createOp(kernel.CreateInput{Title: "refused", Category: "Not A Category"}))
				mu.Unlock()
				require.Error(t, err)
				require.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	landed := 0
	for lines.Scan() {
		landed++
	}
	require.NoError(t, other.Wait())
	require.Equal(t, others, landed)

	titles := requireBranchWhole(t, s)
	for g := range writers {
		for i := range each {
			require.Equal(t, 1, titles[fmt.Sprintf("writer %d record %d", g, i)], "writer %d record %d lands once", g, i)
		}
	}
	require.Zero(t, titles["refused"])
	require.Len(t, titles, writers*each+others)

	// One commit per op, fewer ref moves than commits: groups formed.
	commits, _ := branchCommits(t, s)
	require.Len(t, commits, 1+writers*each+others)
	reflog := git(t, gitDir(s), "reflog", "show", "--format=%gs", s.ref)
	require.Contains(t, reflog, "commits, the last: ", "some ops were written as one group")

	// One audit line per op, refusals included.
	log, err := s.ReadAudit(time.Time{})
	require.NoError(t, err)
	results := map[string]int{}
	for _, l := range log.Lines {
		results[l.Result]++
	}
	require.Equal(t, writers*each+others+1, results[AuditAllowed], "creates and init, each its own line")
	require.Equal(t, writers, results[kernel.AuditFailed], "each refusal its own line")
}

// A group decided on a tip another writer moves before the group's ref
// move is decided again, every op of it, on the new tip: each of its ops
// still lands once, a later op of the group reads what an earlier one
// wrote before any of it was synced, and a refused op refuses only itself.
func TestGroupCommitLostRaceRedoesEveryOp(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	rival := reopen(t, s)
	a, c := kernel.NewID(), kernel.NewID()
	var raced *Written
	first := planOf(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		if raced == nil {
			raced = mutate(t, rival, createOp(kernel.CreateInput{Title: "rival"}))
		}
		return createOp(kernel.CreateInput{ID: a, Title: "A"})(v, env)
	})
	reqs := []*writeRequest{
		{call: Call{Op: "create"}, decide: first},
		{call: Call{Op: "create"}, decide: planOf(createOp(kernel.CreateInput{Title: "B", Category: "Not A Category"}))},
		{call: Call{Op: "create"}, decide: planOf(createOp(kernel.CreateInput{ID: c, Title: "C"}))},
		{call: Call{Op: "update"}, decide: planOf(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, a, kernel.UpdateFields{Title: ptr("A, renamed in the same group")}, ev(), env)
		})},
	}
	later := s.runGroup(reqs)
	require.Empty(t, later)
	for _, r := range reqs {
		require.True(t, r.done)
	}
	requireCode(t, reqs[1].err, kernel.CodeInvalidRecord)
	for _, i := range []int{0, 2, 3} {
		require.NoError(t, reqs[i].err)
		require.Equal(t, 2, reqs[i].w.Attempts, "the lost race redid op %d", i)
	}
	// Each op its own commit, chained in order on the rival's.
	tip, err := s.Tip()
	require.NoError(t, err)
	require.Equal(t, reqs[3].w.Commit, tip)
	for child, parent := range map[int]int{3: 2, 2: 0} {
		cm, err := s.Commit(reqs[child].w.Commit)
		require.NoError(t, err)
		require.Equal(t, reqs[parent].w.Commit, cm.ParentHashes[0])
	}
	cm, err := s.Commit(reqs[0].w.Commit)
	require.NoError(t, err)
	require.Equal(t, raced.Commit, cm.ParentHashes[0])

	titles := requireBranchWhole(t, s)
	require.Equal(t, map[string]int{"rival": 1, "A, renamed in the same group": 1, "C": 1}, titles)
	require.Equal(t, "A, renamed in the same group", get(t, s, a).Title, "the writing process's index follows the group")
}

// A process killed while it writes groups leaves the branch on a whole
// commit: every object the ref reaches is there, every commit signed.
func TestGroupCommitKilledMidGroup(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	cmd, lines := startWriter(t, s, 0, 8)
	for range 6 {
		require.True(t, lines.Scan(), "the writer lands records")
	}
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	titles := requireBranchWhole(t, s)
	require.GreaterOrEqual(t, len(titles), 6)
	// The store writes on after the crash (once the lock a kill inside a
	// ref move leaves is removed, as the CONFLICT error tells).
	_ = os.Remove(gitDir(s) + "/.git/" + s.ref + ".lock")
	create(t, s, kernel.CreateInput{Title: "after the crash"})
	requireFsckClean(t, gitDir(s))
}

// A store that shares writes starts each group on the tip its last group
// landed (root, date and trees carried, not read back), and only on it: once
// another process moved the branch, or someone reset it, the next group is
// decided on the tip as it is, never on the carried commit.
func TestGroupCarriesItsTipOnly(t *testing.T) {
	s := newTestStore(t)
	var mu sync.Mutex
	s.ShareWrites(&mu)
	create := func(st *Store, title string) plumbing.Hash {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		w, err := st.Mutate(createOp(kernel.CreateInput{Title: title}))
		require.NoError(t, err)
		return w.Commit
	}
	a := create(s, "a")
	require.NotNil(t, s.carried)
	require.Equal(t, a, s.carried.tip)
	require.Equal(t, git(t, gitDir(s), "rev-parse", a.String()+"^{tree}"), s.carried.root.String())
	require.Equal(t, git(t, gitDir(s), "log", "-1", "--format=%ct", a.String()), strconv.FormatInt(s.carried.when.Unix(), 10))
	a2 := create(s, "a2")
	require.Equal(t, a.String(), git(t, gitDir(s), "rev-parse", a2.String()+"^"), "decided on the carried tip")

	b := create(reopen(t, s), "b") // another process
	c := create(s, "c")
	require.Equal(t, b.String(), git(t, gitDir(s), "rev-parse", c.String()+"^"), "decided on the other process's commit")

	git(t, gitDir(s), "update-ref", s.ref, a.String()) // a reset behind the server's back
	d := create(s, "d")
	require.Equal(t, a.String(), git(t, gitDir(s), "rev-parse", d.String()+"^"))
	titles := requireBranchWhole(t, s)
	require.Equal(t, map[string]int{"a": 1, "d": 1}, titles, "nothing of the carried commit leaks into d")
}
