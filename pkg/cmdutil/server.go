package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/git-records/git-records/kernel"
)

// ServerProgram is the binary that runs the long-running commands, mcp and
// serve. They live apart from git-records, as git keeps git-http-backend
// and git-remote-https apart from git: the MCP SDK, net/http and
// html/template they link cost every other command (a --version, a show)
// about 5 ms of start-up, package initialisation and page faults, and a
// server pays its start-up once.
const ServerProgram = "git-records-server"

// ServerInstall is what to run when ServerProgram is missing.
const ServerInstall = "CGO_ENABLED=0 go install github.com/git-records/git-records/cmd/...@latest (or make install)"

// ExecServer replaces this process with ServerProgram run on args (this
// process's own arguments, os.Args[1:], so the server parses the same
// command line), with the same environment and the same open files: an
// MCP host that starts `git-records mcp` talks to the server on the pipes
// it gave. It returns only when the server cannot be started.
func ExecServer(args []string) error {
	exe, _ := os.Executable()
	path, err := FindServer(exe, exec.LookPath)
	if err != nil {
		return err
	}
	err = syscall.Exec(path, append([]string{path}, args...), serverEnv(os.Environ()))
	return kernel.Wrap(kernel.CodeInternal, err, "run %s", path)
}

// clientBuildEnv tells git-records-server the build of the git-records
// that execs it (Build), which CheckClientBuild compares with its own.
const clientBuildEnv = "GIT_RECORDS_CLIENT_BUILD"

// serverEnv is environ for the server: the same, with this build in
// clientBuildEnv.
func serverEnv(environ []string) []string {
	environ = slices.DeleteFunc(slices.Clone(environ), func(kv string) bool { return strings.HasPrefix(kv, clientBuildEnv+"=") })
	return append(environ, clientBuildEnv+"="+Build())
}

// Build names this binary's build: the main module's version and, for a
// build from a checkout, its commit and whether the tree was modified.
// git-records and git-records-server of one build (make build, go install
// …/cmd/...) agree; a server left by an earlier install does not.
func Build() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	id := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			id += " " + s.Key + "=" + s.Value
		}
	}
	return id
}

// CheckClientBuild refuses, with NOT_INSTALLED, to serve for a git-records
// of another build: the two are one program split in two, and a server
// left by an earlier install (next to git-records or on PATH) would apply
// its own build's signing, policy and checks to what this git-records was
// asked to do, silently. Run on its own (no git-records before it), the
// server serves. git-records-server calls it before mcp or serve runs.
func CheckClientBuild() error {
	want, ok := os.LookupEnv(clientBuildEnv)
	if !ok {
		return nil
	}
	os.Unsetenv(clientBuildEnv) // not for the programs the server runs
	if have := Build(); have != want {
		return kernel.Errorf(kernel.CodeNotInstalled, "%s is not from the build of the git-records that ran it (%s, against %s): install both from one build with %s",
			ServerProgram, have, want, ServerInstall).WithExtra("program", ServerProgram)
	}
	return nil
}

// FindServer is the ServerProgram to run: the one next to exe (the running
// git-records, its symbolic links resolved, so a git-records linked into
// ~/bin finds the server installed beside its target), else the one on
// PATH (lookPath); NOT_INSTALLED when there is none.
func FindServer(exe string, lookPath func(string) (string, error)) (string, error) {
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		sibling := filepath.Join(filepath.Dir(exe), ServerProgram)
		if st, err := os.Stat(sibling); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			if err := trustedBeside(sibling, st, exe); err != nil {
				return "", err
			}
			return sibling, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", kernel.Wrap(kernel.CodeInternal, err, "find %s", ServerProgram)
		}
	}
	if path, err := lookPath(ServerProgram); err == nil {
		return path, nil
	}
	return "", kernel.Errorf(kernel.CodeNotInstalled, "%s is not installed: mcp and serve run it, and it is neither next to %s nor on PATH; install it with %s",
		ServerProgram, orName(exe), ServerInstall).WithExtra("program", ServerProgram)
}

// trustedBeside refuses a sibling server that someone who cannot replace
// git-records could have put there: one of another owner (in a directory
// others may add files to, /tmp or a shared bin with the sticky bit, anyone
// could otherwise have their program run by every mcp and serve), or one
// writable by someone git-records is not writable by.
func trustedBeside(sibling string, st fs.FileInfo, exe string) error {
	est, err := os.Stat(exe)
	if err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "find %s", ServerProgram)
	}
	s, sok := st.Sys().(*syscall.Stat_t)
	e, eok := est.Sys().(*syscall.Stat_t)
	if !sok || !eok {
		return nil
	}
	why := ""
	switch {
	case s.Uid != e.Uid:
		why = fmt.Sprintf("it belongs to uid %d and %s to uid %d", s.Uid, exe, e.Uid)
	case st.Mode().Perm()&0o022&^est.Mode().Perm() != 0:
		why = fmt.Sprintf("it is writable by others (%v) where %s is not (%v)", st.Mode().Perm(), exe, est.Mode().Perm())
	}
	if why == "" {
		return nil
	}
	return kernel.Errorf(kernel.CodeNotInstalled, "refusing to run %s: %s; reinstall it with %s", sibling, why, ServerInstall).WithExtra("program", ServerProgram)
}

func orName(exe string) string {
	if exe == "" {
		return "git-records"
	}
	return exe
}
