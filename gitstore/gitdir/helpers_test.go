package gitdir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"
)

// helperEnv switches the test binary into a helper process (see
// TestHelperProcess): real processes, not goroutines, are what compete for
// a ref in production.
const helperEnv = "GITDIR_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "" {
		// Whoever runs the tests (a git hook running go test, say) must not
		// point them at a repository or leak config into them. Helper
		// processes keep what their parent (or git) gave them.
		for _, v := range append(locationEnv, "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
			"GIT_CEILING_DIRECTORIES", "GIT_QUARANTINE_PATH", "GIT_CONFIG_GLOBAL",
			"GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME", "GIT_CONFIG") {
			os.Unsetenv(v)
		}
	}
	os.Exit(m.Run())
}

// isolate keeps the machine's and the user's git configuration out of a test
// and gives git an identity. It returns the fake home directory.
func isolate(t testing.TB) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(v, "Test")
	}
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(v, "test@example.com")
	}
	return home
}

// newRepoT is a fresh isolated repository.
func newRepoT(t testing.TB) *Repo {
	t.Helper()
	isolate(t)
	r, err := Init(t.TempDir())
	require.NoError(t, err)
	return r
}

// git runs the real git CLI in dir and returns its trimmed stdout.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := runGit(dir, args...)
	require.NoError(t, err, "git %s", strings.Join(args, " "))
	return out
}

func runGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w: %s", err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// requireFsckClean runs git fsck with the checks git applies on push.
func requireFsckClean(t testing.TB, dir string) {
	t.Helper()
	out, err := runGit(dir, "fsck", "--strict", "--no-dangling", "--no-progress")
	require.NoError(t, err)
	require.Empty(t, out)
}

var testIdent = Ident{Name: "Records Test", Email: "records@example.com"}

var emptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// newCommit encodes a commit with the empty tree on top of parent (none when
// zero).
func newCommit(t testing.TB, parent plumbing.Hash, msg string) *plumbing.MemoryObject {
	sig := object.Signature{Name: "Test", Email: "test@example.com", When: time.Unix(1700000000, 0).UTC()}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg + "\n", TreeHash: emptyTree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	o := &plumbing.MemoryObject{}
	if err := c.Encode(o); err != nil {
		t.Fatal(err)
	}
	return o
}

// writeCommit writes a commit (and the empty tree) and syncs them.
func writeCommit(t testing.TB, w *ObjectWriter, parent plumbing.Hash, msg string) plumbing.Hash {
	t.Helper()
	_, err := w.Write(plumbing.TreeObject, nil)
	require.NoError(t, err)
	h, err := w.WriteObject(newCommit(t, parent, msg))
	require.NoError(t, err)
	require.NoError(t, w.Sync())
	return h
}

// casIncrement adds one commit on top of ref the way the record store
// does: read the tip, write a commit on it, take the ref's lock while the
// objects' directories are fsynced (SyncAlongside), compare-and-swap, and
// on a lost race start again from the new tip. It returns the commit that
// landed.
func casIncrement(t testing.TB, r *Repo, w *ObjectWriter, ref, msg string) (plumbing.Hash, int) {
	for retries := 0; retries < 100000; retries++ {
		tip, err := r.ReadRef(ref)
		require.NoError(t, err)
		_, err = w.Write(plumbing.TreeObject, nil)
		require.NoError(t, err)
		h, err := w.WriteObject(newCommit(t, tip, msg))
		require.NoError(t, err)
		var lock *RefLock
		var lockErr error
		require.NoError(t, w.SyncAlongside(func() error {
			lock, lockErr = r.LockRef(ref, h, tip)
			return nil
		}))
		err = lockErr
		if err == nil {
			err = lock.Commit(testIdent, msg)
		}
		var conflict *RefConflict
		if errors.As(err, &conflict) {
			continue
		}
		require.NoError(t, err)
		return h, retries
	}
	t.Fatalf("%s: no progress", msg)
	return plumbing.ZeroHash, 0
}

// helperCmd re-executes the test binary as a helper process in the given
// mode (the standard pattern: -test.run selects TestHelperProcess, the
// environment carries the job).
func helperCmd(t testing.TB, mode string, env ...string) *exec.Cmd {
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), append(env, helperEnv+"="+mode)...)
	return cmd
}

// TestHelperProcess is not a test: it is the body of the helper processes
// that helperCmd starts. The job comes in the environment.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	if mode == "pre-receive" {
		preReceiveHelper(t)
		os.Exit(0)
	}
	r, err := Discover(os.Getenv("GITDIR_TEST_REPO"))
	require.NoError(t, err)
	w := r.NewObjectWriter()
	ref, id := os.Getenv("GITDIR_TEST_REF"), os.Getenv("GITDIR_TEST_ID")
	switch mode {
	case "cas": // GITDIR_TEST_N increments, then the number of retries
		n, err := strconv.Atoi(os.Getenv("GITDIR_TEST_N"))
		require.NoError(t, err)
		total := 0
		for i := range n {
			_, retries := casIncrement(t, r, w, ref, fmt.Sprintf("%s n%d", id, i))
			total += retries
		}
		fmt.Println(total)
	case "crash": // increments until killed, printing each acknowledged commit
		fmt.Println("ready")
		for i := 0; ; i++ {
			h, _ := casIncrement(t, r, w, ref, fmt.Sprintf("%s n%d", id, i))
			fmt.Println(h)
		}
	default:
		t.Fatalf("unknown helper mode %q", mode)
	}
	os.Exit(0)
}
