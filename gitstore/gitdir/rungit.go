package gitdir

import (
	"bytes"
	"os"
	"os/exec"
)

// GitRun is one run of the git CLI, the one way git-records runs it.
type GitRun struct {
	Stdout, Stderr []byte
	Err            error // nil, or the failure (an *exec.ExitError for a non-zero exit)
}

// ExitCode is git's exit status (-1 when it did not run).
func (g GitRun) ExitCode() int {
	if g.Err == nil {
		return 0
	}
	if e, ok := g.Err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	return -1
}

// Message is what git said on failure, for an error: its stderr, else the
// failure itself.
func (g GitRun) Message() string {
	if msg := bytes.TrimSpace(g.Stderr); len(msg) > 0 {
		return string(msg)
	}
	if g.Err != nil {
		return g.Err.Error()
	}
	return ""
}

// Git runs git with args in this repository (--git-dir, and --work-tree
// with workTree as the working directory when workTree is not ""). git's
// messages come untranslated, since callers read outcomes from them ("stale
// info", "couldn't find remote ref"); the rest of the environment is the
// user's (credentials, ssh agent, config).
func (r *Repo) Git(workTree string, args ...string) GitRun {
	pre := []string{"--git-dir=" + r.GitDir}
	if workTree != "" {
		pre = append(pre, "--work-tree="+workTree)
	}
	return execGit(workTree, os.Environ(), append(pre, args...)...)
}

// Run runs git in dir as git itself would be run there, for the few callers
// that act inside a git process of the user's (a merge driver) rather than
// on a repository they opened.
func Run(dir string, args ...string) GitRun { return execGit(dir, os.Environ(), args...) }

// execGit runs git in dir with env and args.
func execGit(dir string, env []string, args ...string) GitRun {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(env, "LC_ALL=C", "LANGUAGE=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return GitRun{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Err: err}
}
