// Package testenv gives the end-to-end test packages one clean, isolated
// environment: the git-records binary built once, first on PATH (so `git
// records …` runs it), HOME in a temporary directory with a known identity,
// no system git config, and none of the variables that would point git or
// git-records somewhere else. It is for tests only.
package testenv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// leaky are the variables from the developer's (or a hook's) environment
// that would change what git or git-records do.
var leaky = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_QUARANTINE_PATH",
	"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_RECORDS_AGENT", "GIT_RECORDS_BIN", "SSH_AUTH_SOCK", "GNUPGHOME",
	"PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_LOCAL_BRANCH", "PRE_COMMIT_REMOTE_BRANCH",
}

// Setup builds the CLI into tmp/bin and sets the process environment up
// under tmp. name and email go in $HOME/.gitconfig. buildFlags are extra
// `go build` flags (coverage, say). It returns the binary's path.
func Setup(tmp, name, email string, buildFlags ...string) (string, error) {
	bin := filepath.Join(tmp, "bin")
	binPath := filepath.Join(bin, "git-records")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	// go build runs in the user's environment: after Isolate, HOME is
	// the test's, and go would start from an empty build cache and module
	// cache (downloading every module) and without the user's go env.
	env := os.Environ()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	if err := install(bin, "git-records", buildFlags, env, cache); err != nil {
		return "", err
	}
	server.bin, server.flags, server.env, server.cache = bin, buildFlags, env, cache
	if err := Isolate(tmp, name, email); err != nil {
		return "", err
	}
	if err := os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")); err != nil {
		return "", err
	}
	if p, err := exec.LookPath("git-records"); err != nil || p != binPath {
		return "", fmt.Errorf("git-records on PATH is %q (%v), want %s", p, err, binPath)
	}
	return binPath, nil
}

// install builds cmd/<program> with buildFlags in env (build) and links
// it into dir.
func install(dir, program string, buildFlags, env []string, cache string) error {
	built, release, err := build(program, buildFlags, env, cache)
	if err != nil {
		return err
	}
	defer release()
	path := filepath.Join(dir, program)
	if err := os.Link(built, path); err != nil {
		if err := copyFile(built, path); err != nil {
			return err
		}
	}
	return nil
}

// server is git-records-server, built by Server the first time a test asks.
var server struct {
	once  sync.Once
	bin   string   // Setup's bin directory
	flags []string // Setup's build flags
	env   []string // the environment Setup built git-records in
	cache string   // and the user's cache directory there
	path  string
	err   error
}

// Server builds git-records-server, which `git-records mcp` and `serve`
// exec, next to the git-records Setup built, with the same flags, and
// returns its path. Only the tests that run a server ask for it: the
// link is a few seconds of CPU that a package running neither skips.
func Server() (string, error) {
	server.once.Do(func() {
		if server.bin == "" {
			server.err = errors.New("testenv.Server before testenv.Setup")
			return
		}
		server.err = install(server.bin, "git-records-server", server.flags, server.env, server.cache)
		server.path = filepath.Join(server.bin, "git-records-server")
	})
	return server.path, server.err
}

// build builds cmd/program with buildFlags into a directory of the user's
// cache that belongs to this checkout (the module's root) and these flags,
// and returns the binary's path. The test packages that run the binary
// (hooks, e2e, cmd/git-records) share it: `go test ./...` runs them at the
// same time, and on the first run after a change each used to link a
// binary of its own, the same one (about 2 s of CPU and 30,000 page
// faults a link). A lock on the directory makes the first package link
// it and the others wait, then find it up to date: go build rewrites
// nothing when the binary's build ID matches the sources', so a run after
// the first skips the link, and a changed source relinks as before.
// install copies the binary out before it calls release, so no package
// reads it while another rewrites it.
func build(program string, buildFlags, env []string, cache string) (path string, release func(), err error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", nil, err
	}
	root := moduleRoot(wd)
	if !canLock {
		root = wd // no lock to share the binary under: one per package
	}
	key := sha256.Sum256([]byte(strings.Join(append([]string{root}, buildFlags...), "\x00")))
	dir := filepath.Join(cache, "git-records-test", filepath.Base(root)+"-"+hex.EncodeToString(key[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	release, err = lock(filepath.Join(dir, program+".lock"))
	if err != nil {
		return "", nil, err
	}
	out := filepath.Join(dir, program)
	args := append(append([]string{"build", "-o", out}, buildFlags...), "github.com/git-records/git-records/cmd/"+program)
	cmd := exec.Command("go", args...)
	cmd.Env = append(slices.Clone(env), "CGO_ENABLED=0") // as make build: the binary users get is static
	if msg, err := cmd.CombinedOutput(); err != nil {
		release()
		return "", nil, fmt.Errorf("go build: %v\n%s", err, msg)
	}
	return out, release, nil
}

// moduleRoot is the directory of the go.mod at or above dir (dir itself
// when there is none).
func moduleRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// copyFile copies an executable, for when it cannot be hard-linked.
func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}

// Isolate sets the process environment up under tmp without building
// anything, for tests that run the CLI in-process: HOME in tmp/home whose
// .gitconfig names name and email, no system config, none of the leaky
// variables.
//
// The .gitconfig also turns git's automatic housekeeping off: the `git
// maintenance run --auto` that every clone and commit starts, and the `git
// gc --auto` that receive-pack starts after every push. Test repositories
// are far below any threshold, so each was a process that found nothing to
// do (181 of the 3,077 processes the hooks tests ran), and one that goes
// to the background would be left running in a removed directory. Tests of
// housekeeping run it themselves (TestCreatesDuringRepack) or set their own
// thresholds (gitstore's maintenance tests).
func Isolate(tmp, name, email string) error {
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	gitconfig := fmt.Sprintf("[user]\n\tname = %s\n\temail = %s\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"+
		"[maintenance]\n\tauto = false\n[gc]\n\tauto = 0\n[receive]\n\tautogc = false\n", name, email)
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return err
	}
	for _, k := range leaky {
		os.Unsetenv(k)
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_TERMINAL_PROMPT": "0",
		"LC_ALL":              "C",
		"TZ":                  "UTC",
	} {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// Main runs a test package's tests inside a fresh temporary directory that
// setup prepares (typically with Setup), and removes it afterwards.
func Main(m *testing.M, name string, setup func(tmp string) error) {
	tmp, err := os.MkdirTemp("", "git-records-"+name+"-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := 2
	if err := setup(tmp); err != nil {
		fmt.Fprintf(os.Stderr, "setting up the %s tests: %v\n", name, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(tmp)
	os.Exit(code)
}

// Result is what a process did.
type Result struct {
	Stdout, Stderr string
	Code           int
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
}

// Run runs a program in dir with stdin and extra environment and reports
// its output and exit code. A non-zero exit is a result, not an error; a
// program that cannot start, or that runs for two minutes (a hang), is.
func Run(dir, stdin string, env []string, name string, args ...string) (Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && ctx.Err() == nil:
		res.Code = exit.ExitCode()
	default:
		return res, fmt.Errorf("%s %q in %s: %v\n%s", name, args, dir, err, res)
	}
	return res, nil
}

// Scaled is n in a stress build and short otherwise: the count of rounds,
// kills or processes of a test that races processes against each other.
func Scaled(n, short int) int {
	if Stress {
		return n
	}
	return short
}
