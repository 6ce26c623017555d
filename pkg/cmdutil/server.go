package cmdutil

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
	err = syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return kernel.Wrap(kernel.CodeInternal, err, "run %s", path)
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

func orName(exe string) string {
	if exe == "" {
		return "git-records"
	}
	return exe
}
