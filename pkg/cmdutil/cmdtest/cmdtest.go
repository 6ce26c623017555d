// Package cmdtest runs commands in-process for their tests: a Factory over
// a real store (real git) in t.TempDir() with buffers for its streams, and
// Run, which executes one command under the same global flags and error
// reporting as the binary. No git is mocked.
package cmdtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// Identity of the test user, from $HOME/.gitconfig.
const (
	UserName  = "Test User"
	UserEmail = "test@example.com"
	Agent     = "test-agent"
)

// Main runs a package's tests in an isolated environment (HOME with the
// test identity, no system git config; testenv.Isolate). Call it from the
// package's TestMain.
func Main(m *testing.M) {
	testenv.Main(m, "cmdtest", func(tmp string) error { return testenv.Isolate(tmp, UserName, UserEmail) })
}

// Store is a repository with an initialized, signed records store in it.
type Store struct {
	Dir   string
	clock *clock
}

// NewStore is a fresh repository (`git init`, branch main) whose store is
// set up as `git records init --generate-key` does.
func NewStore(t testing.TB) *Store {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main", ".")
	st := &Store{Dir: dir, clock: &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	svc, err := service.Open(dir, st.options())
	require.NoError(t, err)
	defer svc.Close()
	_, err = svc.Init(service.InitRequest{GenerateKey: true, Agent: Agent})
	require.NoError(t, err)
	return st
}

// NewRepo is a repository with no store in it.
func NewRepo(t testing.TB) *Store {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main", ".")
	return &Store{Dir: dir, clock: &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
}

func (s *Store) options() service.Options { return service.Options{Now: s.clock.Now} }

// Factory is a Factory over the store with buffers for stdin, stdout and
// stderr, as one run of the binary in the repository would have.
func (s *Store) Factory() (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	streams, in, out, errOut := cmdutil.Test()
	f := cmdutil.New(streams)
	f.WorkDir = s.Dir
	f.StoreOptions = s.options()
	return f, in, out, errOut
}

// Service is the service over the store, to seed records through the one
// write path.
func (s *Store) Service(t testing.TB) *service.Service {
	t.Helper()
	svc, err := service.Open(s.Dir, s.options())
	require.NoError(t, err)
	svc.SetCall(service.Call{Front: "test", Op: "seed", Agent: Agent})
	return svc
}

// Create writes a record through the service and returns its id.
func (s *Store) Create(t testing.TB, in kernel.CreateInput) string {
	t.Helper()
	if in.Provenance.Agent == "" {
		in.Provenance.Agent = Agent
	}
	if in.Category == "" {
		in.Category = "test"
	}
	if in.Body == "" {
		in.Body = "Body of " + in.Title + ".\n"
	}
	res, err := s.Service(t).Create(in, kernel.Approval{})
	require.NoError(t, err)
	return res.ID
}

// Result is what one in-process run did.
type Result struct {
	Stdout, Stderr string
	Code           int
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
}

// InProcess runs git-records args in dir ("" is the test's working
// directory) with stdin, in this process, through main: the caller passes
// root.Main (this package cannot import root, whose own tests use it).
// Tests use it where the process boundary is not what they test: a
// process per command costs about 30 ms of CPU and 500-700 page faults.
func InProcess(main func(*cmdutil.Factory, []string) int, dir, stdin string, args ...string) Result {
	streams, in, out, errOut := cmdutil.Test()
	in.WriteString(stdin)
	f := cmdutil.New(streams)
	f.WorkDir = dir
	code := main(f, args)
	// Close the store the run opened.
	if svc := f.OpenedService(); svc != nil {
		_ = svc.Close()
	}
	return Result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// JSON decodes stdout into v, failing the test when it is not JSON.
func (r Result) JSON(t testing.TB, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), v), "stdout is not JSON:\n%s", r)
}

// Error is the {"error":{…}} envelope a --json run printed, requiring code
// and the exit status.
func (r Result) Error(t testing.TB, code kernel.Code, exit int) map[string]any {
	t.Helper()
	var env struct {
		Error map[string]any `json:"error"`
	}
	r.JSON(t, &env)
	require.NotNil(t, env.Error, "no error envelope:\n%s", r)
	require.Equal(t, string(code), env.Error["code"], "%s", r)
	require.Equal(t, exit, r.Code, "%s", r)
	return env.Error
}

// Run executes cmd with args under a root that has the binary's global
// flags, through the binary's error reporting and exit codes.
func Run(f *cmdutil.Factory, cmd *cobra.Command, args ...string) Result {
	root := &cobra.Command{Use: "git-records"}
	f.BindGlobalFlags(root)
	root.AddCommand(cmd)
	code := cmdutil.Execute(f, root, append([]string{cmd.Name()}, args...))
	out, _ := f.IOStreams.Out.(*bytes.Buffer)
	errOut, _ := f.IOStreams.ErrOut.(*bytes.Buffer)
	r := Result{Code: code}
	if out != nil {
		r.Stdout = out.String()
	}
	if errOut != nil {
		r.Stderr = errOut.String()
	}
	return r
}

// RunIn makes a Factory over s and runs the command newCmd builds with it.
func (s *Store) RunIn(newCmd func(*cmdutil.Factory) *cobra.Command, args ...string) Result {
	f, _, _, _ := s.Factory()
	return Run(f, newCmd(f), args...)
}

// Git runs the real git CLI in dir and returns its stdout, trimmed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "git %s: %s", strings.Join(args, " "), stderr.String())
	return strings.TrimSpace(stdout.String())
}

// clock is deterministic: every reading is one second after the previous
// one, so each op gets its own timestamp and tests never sleep.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

// WriteFile writes content to name in the store's working tree.
func (s *Store) WriteFile(t testing.TB, name, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, name), []byte(content), 0o644))
}

// Commit commits the working tree's files on main.
func (s *Store) Commit(t testing.TB, msg string) {
	t.Helper()
	Git(t, s.Dir, "add", "-A")
	Git(t, s.Dir, "commit", "-qm", msg)
}

// Tip is the records branch's commit.
func (s *Store) Tip(t testing.TB) string {
	t.Helper()
	return Git(t, s.Dir, "rev-parse", "refs/heads/records")
}

// ScriptedEditor makes the repository's editor (core.editor, as git
// chooses it) a shell script that edits the file it is given ($f), as a
// person would.
func (s *Store) ScriptedEditor(t testing.TB, script string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "editor.sh")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\nset -e\nf=\"$1\"\n"+script), 0o755))
	Git(t, s.Dir, "config", "core.editor", path)
}
