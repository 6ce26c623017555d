package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInstallManPages: after `make install PREFIX=…`, in an environment
// that knows only that prefix, `man git-records`, `git records --help` and
// `git help records` show the page generated from the commands.
func TestInstallManPages(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"make", "man"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install make man-db)", tool)
		}
	}
	tmp := t.TempDir()
	prefix, build := filepath.Join(tmp, "prefix"), filepath.Join(tmp, "build")
	// The build directory starts as a `make build` leaves it: with the
	// binary these tests run, built from the same sources with the same
	// flags. make install still runs go build, which finds it up to date
	// (its build ID matches) instead of linking it again, a few seconds of
	// CPU; a binary that differs is rebuilt as before.
	require.NoError(t, os.MkdirAll(build, 0o755))
	require.NoError(t, os.Link(binPath, filepath.Join(build, "git-records")))
	require.NoError(t, os.Link(needServer(t), filepath.Join(build, "git-records-server")))
	r := execEnv(t, filepath.Join("..", ".."), "", goEnv, "make", "install", "PREFIX="+prefix, "BUILD="+build)
	require.Equal(t, 0, r.code, "make install:\n%s", r)
	for _, f := range []string{"bin/git-records", "bin/git-records-server", "share/man/man1/git-records.1", "share/man/man1/git-records-show.1", "share/bash-completion/completions/git-records"} {
		assert.FileExists(t, filepath.Join(prefix, f))
	}
	assertStatic(t, filepath.Join(prefix, "bin", "git-records"))
	assertStatic(t, filepath.Join(prefix, "bin", "git-records-server"))
	gitPath, err := exec.LookPath("git")
	require.NoError(t, err)
	env := []string{
		"PATH=" + filepath.Join(prefix, "bin") + string(os.PathListSeparator) + filepath.Dir(gitPath) + string(os.PathListSeparator) + "/usr/bin:/bin",
		"MANPATH=" + filepath.Join(prefix, "share", "man"), "MANPAGER=cat", "PAGER=cat", "GIT_PAGER=cat", "MANWIDTH=80",
	}
	dir := newRepo(t)
	for _, args := range [][]string{{"man", "git-records"}, {"git", "records", "--help"}, {"git", "help", "records"}} {
		r := execEnv(t, dir, "", env, args[0], args[1:]...)
		require.Equal(t, 0, r.code, "%q:\n%s", args, r)
		assert.Contains(t, r.stdout, "git-records - Signed, linked knowledge records on a git branch", "%q", args)
		assert.Contains(t, r.stdout, "git-records-serve(1)", "%q names the command pages", args)
	}
	r = execEnv(t, dir, "", env, "man", "git-records-show")
	require.Equal(t, 0, r.code, r.String())
	assert.Contains(t, r.stdout, "git-records show <handle> [flags]", "the synopsis keeps its <handle>")
}

// assertStatic: the binary make builds is linked statically (no cgo): no
// program interpreter, so no dynamic loader and libc start-up on every run.
func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Skipf("not an ELF binary (%v)", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "%s is dynamically linked: build it with CGO_ENABLED=0", path)
	}
	assert.Nil(t, f.Section(".dynamic"), "%s has a .dynamic section", path)
}

// TestCompletion: handles (id prefixes and aliases), types, categories,
// tags and kinds complete from the store, and `git records <TAB>`
// completes through git's own bash completion.
func TestCompletion(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	complete := func(args ...string) []string {
		out := mustRec(t, dir, append([]string{"__complete"}, args...)...)
		var words []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(line, ":") {
				words = append(words, strings.SplitN(line, "\t", 2)[0])
			}
		}
		return words
	}
	assert.Equal(t, []string{goldenConcept}, complete("show", goldenConcept[:4]), "an id prefix")
	assert.Equal(t, []string{"auth/token-refresh"}, complete("show", "auth/"), "an alias")
	assert.Contains(t, mustRec(t, dir, "__complete", "show", "rfc"), "rfc-6749\tRFC 6749: The OAuth 2.0 Authorization Framework", "described by its title")
	assert.Equal(t, []string{"shipped"}, complete("link", "--to", "shi"))
	assert.Equal(t, []string{"compiled", "concept"}, complete("create", "--type", "co"))
	assert.Equal(t, []string{"auth", "auth.tokens"}, complete("list", "--category", "auth"))
	assert.Equal(t, []string{"tokens"}, complete("list", "--tag", "tok"))
	assert.Equal(t, []string{"entity", "event"}, complete("list", "--kind", "e"), "a record's kind")
	assert.Equal(t, []string{"source", "supersedes"}, complete("link", "x", "--kind", "s"), "a link's kind")
	assert.Equal(t, []string{"mermaid"}, complete("graph", "--format", "m"))
	assert.Empty(t, complete("show", "zzz"))

	// git's completion calls _git_records for `git records …`.
	gitCompletion := "/usr/share/bash-completion/completions/git"
	if _, err := os.Stat(gitCompletion); err != nil {
		t.Skip("git's bash completion is not installed")
	}
	ours, err := filepath.Abs(filepath.Join("..", "..", "scripts", "git-records-git.bash"))
	require.NoError(t, err)
	script := `source ` + gitCompletion + `
source ` + ours + `
complete_line() {
	COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
	COMPREPLY=(); __git_wrap__git_main; printf '%s\n' "${COMPREPLY[@]}"; echo --
}
complete_line git records gra
complete_line git records show auth/t
`
	r := execIn(t, dir, script, "bash")
	require.Equal(t, 0, r.code, r.String())
	parts := strings.Split(r.stdout, "--\n")
	require.Len(t, parts, 3, r.String())
	assert.Equal(t, "graph \n", parts[0])
	assert.Equal(t, "auth/token-refresh \n", parts[1])
}
