package gitdir

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitLocations asks git itself where the repository is, from dir.
func gitLocations(t *testing.T, dir string) (gitDir, commonDir, top string) {
	out := git(t, dir, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 2)
	top, _ = runGit(dir, "rev-parse", "--show-toplevel") // fails when bare
	return lines[0], lines[1], top
}

func TestDiscoverFromNestedSubdir(t *testing.T) {
	r := newRepoT(t)
	sub := filepath.Join(r.WorkTree, "a", "b", "c")
	require.NoError(t, os.MkdirAll(sub, 0o755))

	got, err := Discover(sub)
	require.NoError(t, err)
	gitDir, commonDir, top := gitLocations(t, sub)
	assert.Equal(t, gitDir, got.GitDir)
	assert.Equal(t, commonDir, got.CommonDir)
	assert.Equal(t, top, got.WorkTree)
	assert.False(t, got.Bare)
	assert.Equal(t, filepath.Join(commonDir, "objects"), got.ObjectDir)
}

func TestDiscoverLinkedWorktree(t *testing.T) {
	r := newRepoT(t)
	git(t, r.WorkTree, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, r.WorkTree, "worktree", "add", "-q", "-b", "side", wt)
	sub := filepath.Join(wt, "deep")
	require.NoError(t, os.Mkdir(sub, 0o755))

	got, err := Discover(sub)
	require.NoError(t, err)
	gitDir, commonDir, top := gitLocations(t, sub)
	assert.Equal(t, gitDir, got.GitDir)
	assert.Equal(t, commonDir, got.CommonDir)
	assert.Equal(t, r.GitDir, got.CommonDir)
	assert.NotEqual(t, got.GitDir, got.CommonDir)
	assert.Equal(t, top, got.WorkTree)
	assert.False(t, got.Bare)

	// HEAD is per worktree; branches are shared.
	head, err := got.ReadRef("HEAD")
	require.NoError(t, err)
	assert.Equal(t, git(t, wt, "rev-parse", "HEAD"), head.String())
	w := got.NewObjectWriter()
	c := writeCommit(t, w, head, "from the worktree")
	require.NoError(t, got.UpdateRef("refs/heads/shared", c, plumbing.ZeroHash, testIdent, "create"))
	assert.Equal(t, c.String(), git(t, r.WorkTree, "rev-parse", "refs/heads/shared"))
}

func TestDiscoverBare(t *testing.T) {
	isolate(t)
	bare := filepath.Join(t.TempDir(), "server.git")
	git(t, "", "init", "-q", "--bare", bare)

	for _, dir := range []string{bare, filepath.Join(bare, "refs", "heads")} {
		got, err := Discover(dir)
		require.NoError(t, err, dir)
		assert.Equal(t, bare, got.GitDir)
		assert.Equal(t, bare, got.CommonDir)
		assert.Equal(t, "", got.WorkTree)
		assert.True(t, got.Bare)
	}
	assert.Equal(t, "true", git(t, bare, "rev-parse", "--is-bare-repository"))
}

func TestDiscoverHonoursGitDir(t *testing.T) {
	r := newRepoT(t)
	elsewhere := t.TempDir()

	t.Setenv("GIT_DIR", r.GitDir)
	got, err := Discover(elsewhere)
	require.NoError(t, err)
	assert.Equal(t, r.GitDir, got.GitDir)
	// With GIT_DIR and no work tree configured, git takes the current
	// directory as the work tree; Discover takes the directory it was given.
	assert.Equal(t, elsewhere, got.WorkTree)

	t.Setenv("GIT_WORK_TREE", r.WorkTree)
	got, err = Discover(elsewhere)
	require.NoError(t, err)
	assert.Equal(t, r.WorkTree, got.WorkTree)

	// Relative to the process's working directory, as for git.
	t.Chdir(r.WorkTree)
	t.Setenv("GIT_DIR", ".git")
	got, err = Discover(elsewhere)
	require.NoError(t, err)
	assert.Equal(t, r.GitDir, got.GitDir)

	t.Setenv("GIT_DIR", filepath.Join(elsewhere, "nope"))
	_, err = Discover(elsewhere)
	assert.ErrorIs(t, err, ErrNotARepository)
}

func TestDiscoverNotARepository(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	dir := filepath.Join(root, "x", "y")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	// Whatever is above the temp dir on this machine stays out of it.
	t.Setenv("GIT_CEILING_DIRECTORIES", root)

	_, err := Discover(dir)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNotARepository)
	assert.Contains(t, err.Error(), "inside a git repository or pass --store")

	_, gitErr := runGit(dir, "rev-parse", "--git-dir")
	assert.ErrorContains(t, gitErr, "not a git repository", "git agrees")

	// The ceiling directory itself is still examined, as git does.
	git(t, "", "init", "-q", root)
	_, err = Discover(dir)
	assert.ErrorIs(t, err, ErrNotARepository, "repository above the ceiling")
	_, gitErr = runGit(dir, "rev-parse", "--git-dir")
	assert.Error(t, gitErr, "git agrees")
	got, err := Discover(root)
	require.NoError(t, err)
	assert.Equal(t, root, got.WorkTree)
	assert.Equal(t, root, git(t, root, "rev-parse", "--show-toplevel"))
}

func TestDiscoverRefusesSHA256(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	git(t, "", "init", "-q", "--object-format=sha256", dir)
	_, err := Discover(dir)
	assert.ErrorIs(t, err, ErrNotARepository)
	assert.ErrorContains(t, err, "sha256")
}

// hookReport is what the pre-receive helper saw.
type hookReport struct {
	Repo          *Repo
	Updates       []string
	NewObjectSet  bool   // the pushed commit is in Repo.ObjectDir
	UpdateErr     string // UpdateRef inside the quarantine
	UpdateRefused bool   // and it is ErrRefused
}

// TestDiscoverInPreReceiveHook pushes into a bare repository whose
// pre-receive hook is this test binary: git runs it with GIT_DIR=. and the
// pushed objects in a quarantine directory.
func TestDiscoverInPreReceiveHook(t *testing.T) {
	r := newRepoT(t)
	server := filepath.Join(t.TempDir(), "server.git")
	git(t, "", "init", "-q", "--bare", server)
	exe, err := os.Executable()
	require.NoError(t, err)
	report := filepath.Join(t.TempDir(), "report.json")
	hook := "#!/bin/sh\nexec env " + helperEnv + "=pre-receive GITDIR_TEST_OUT='" + report + "' '" + exe +
		"' -test.run='^TestHelperProcess$' -test.count=1\n"
	require.NoError(t, os.WriteFile(filepath.Join(server, "hooks", "pre-receive"), []byte(hook), 0o755))

	c := writeCommit(t, r.NewObjectWriter(), plumbing.ZeroHash, "pushed")
	require.NoError(t, r.UpdateRef("refs/heads/records", c, plumbing.ZeroHash, testIdent, "create"))
	git(t, r.WorkTree, "push", "-q", server, "refs/heads/records")

	b, err := os.ReadFile(report)
	require.NoError(t, err)
	var got hookReport
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, server, got.Repo.GitDir)
	assert.True(t, got.Repo.Bare)
	assert.Equal(t, []string{plumbing.ZeroHash.String() + " " + c.String() + " refs/heads/records"}, got.Updates)
	// The pushed objects wait in a quarantine until the hook accepts them.
	assert.NotEqual(t, filepath.Join(server, "objects"), got.Repo.ObjectDir)
	assert.Contains(t, got.Repo.AlternateObjectDirs, filepath.Join(server, "objects"))
	assert.True(t, got.NewObjectSet)
	assert.True(t, got.UpdateRefused, got.UpdateErr)
	assert.Contains(t, got.UpdateErr, "quarantine")

	assert.Equal(t, c.String(), git(t, server, "rev-parse", "refs/heads/records"), "push accepted")
}

func preReceiveHelper(t *testing.T) {
	r, err := Discover(".")
	require.NoError(t, err)
	rep := hookReport{Repo: r}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		rep.Updates = append(rep.Updates, sc.Text())
		newHex := strings.Fields(sc.Text())[1]
		_, err := os.Stat(filepath.Join(r.ObjectDir, newHex[:2], newHex[2:]))
		rep.NewObjectSet = err == nil
		err = r.UpdateRef("refs/heads/other", plumbing.NewHash(newHex), plumbing.ZeroHash, testIdent, "in hook")
		if err != nil {
			rep.UpdateErr, rep.UpdateRefused = err.Error(), errors.Is(err, ErrRefused)
		}
	}
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(os.Getenv("GITDIR_TEST_OUT"), b, 0o644))
}

// Init creates the repository where asked even when called from a hook,
// with GIT_DIR pointing at another repository.
func TestInitIgnoresGitDir(t *testing.T) {
	other := newRepoT(t)
	t.Setenv("GIT_DIR", other.GitDir)
	dir := t.TempDir()
	r, err := Init(dir)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, ".git"), r.GitDir)
	assert.Equal(t, dir, r.WorkTree)
	assert.DirExists(t, filepath.Join(dir, ".git", "objects"))
}
