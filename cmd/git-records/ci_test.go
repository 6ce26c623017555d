package main

// The CI recipes of examples/ run here for real: the GitHub Actions
// workflow's run: steps in order, with GitHub's shell and GitHub's files
// ($GITHUB_STEP_SUMMARY, $GITHUB_PATH) stood in for by temporary files, and
// the plain shell recipe, against pull requests on a bare "origin".

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The user's HOME before TestMain replaced it: the Go build and module
// caches live under it, and installing git-records from source offline
// needs them.
var (
	ciUserHome       = os.Getenv("HOME")
	ciUserCacheHome  = os.Getenv("XDG_CACHE_HOME")
	ciRepoRoot, _    = filepath.Abs(filepath.Join("..", ".."))
	ciWorkflowPath   = filepath.Join(ciRepoRoot, "examples", "github-actions", "records.yml")
	ciRecipePath     = filepath.Join(ciRepoRoot, "examples", "ci", "records-check.sh")
	ciExpressionExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
)

// ghWorkflow is the part of GitHub's workflow syntax the example uses;
// decoding is strict, so a misspelt key fails the test as it would fail on
// GitHub.
type ghWorkflow struct {
	Name string `yaml:"name"`
	On   map[string]struct {
		Branches []string `yaml:"branches"`
		Types    []string `yaml:"types"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Jobs map[string]ghJob `yaml:"jobs"`
}

type ghJob struct {
	RunsOn         string `yaml:"runs-on"`
	TimeoutMinutes int    `yaml:"timeout-minutes"`
	Defaults       struct {
		Run struct {
			Shell string `yaml:"shell"`
		} `yaml:"run"`
	} `yaml:"defaults"`
	Env   map[string]string `yaml:"env"`
	Steps []ghStep          `yaml:"steps"`
}

type ghStep struct {
	Name             string            `yaml:"name"`
	Uses             string            `yaml:"uses"`
	With             map[string]any    `yaml:"with"`
	Run              string            `yaml:"run"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
}

func loadWorkflow(t *testing.T) ghWorkflow {
	t.Helper()
	data, err := os.ReadFile(ciWorkflowPath)
	require.NoError(t, err)
	var wf ghWorkflow
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&wf), "%s is not a workflow this test understands", ciWorkflowPath)
	return wf
}

func TestWorkflowStructure(t *testing.T) {
	wf := loadWorkflow(t)
	require.Contains(t, wf.On, "pull_request_target", "the workflow must run from the default branch: the records branch holds records only")
	assert.Len(t, wf.On, 1)
	assert.Equal(t, []string{"records"}, wf.On["pull_request_target"].Branches)
	assert.Equal(t, map[string]string{"contents": "read"}, wf.Permissions, "a pull_request_target job gets a read-only token")
	assert.True(t, wf.Concurrency.CancelInProgress)

	require.Len(t, wf.Jobs, 1)
	job := wf.Jobs["records"]
	assert.Equal(t, "ubuntu-latest", job.RunsOn)
	assert.Equal(t, "bash", job.Defaults.Run.Shell)
	assert.Positive(t, job.TimeoutMinutes)

	var runs []string
	for _, s := range job.Steps {
		assert.True(t, (s.Uses == "") != (s.Run == ""), "step %q has exactly one of uses and run", s.Name)
		if s.Uses != "" {
			assert.Regexp(t, `^actions/(checkout|setup-go)@v\d+$`, s.Uses)
			if s.Uses == "actions/checkout@v4" {
				if repo, ok := s.With["repository"]; ok {
					assert.Equal(t, "git-records/git-records", repo)
					assert.NotEmpty(t, s.With["ref"], "git-records is built from a pinned ref")
				} else {
					// Never check out the pull request under pull_request_target.
					assert.NotContains(t, s.With, "ref", "step %q must not check out a PR ref", s.Name)
				}
			}
			continue
		}
		assert.NotRegexp(t, ciExpressionExpr, s.Run, "step %q: event data goes through env, never into the script", s.Name)
		runs = append(runs, s.Run)
	}
	all := strings.Join(runs, "\n")
	assert.Contains(t, all, "go install ./cmd/git-records")
	assert.Contains(t, all, `git records diff --format markdown --verify "origin/${BASE_REF}...${HEAD_SHA}"`,
		"one run writes the diff and the verification it counts")
	assert.Contains(t, all, `>> "$GITHUB_STEP_SUMMARY"`)
	assert.Less(t, strings.Index(all, "git fetch"), strings.Index(all, "git records diff"), "fetch before diff")
	for k, v := range job.Env {
		for _, m := range ciExpressionExpr.FindAllStringSubmatch(v, -1) {
			assert.Regexp(t, `^github\.event\.pull_request\.`, m[1], "env %s", k)
		}
	}
}

// ciOrigin is a GitHub stand-in: a bare repository with the default branch
// (code), the records branch, and three pull requests to records as
// refs/pull/N/head: 1 is clean, 2 deletes a record by hand, 3 edits one by
// hand without signing. The base gains a record after the PRs fork, so a
// check that compared tips instead of merge bases would blame PR 1 for it.
// The records are written in-process (seed): the recipes' runs are the
// processes under test.
func ciOrigin(t *testing.T) string {
	t.Helper()
	dev := seedRepo(t)
	require.NoError(t, os.WriteFile(filepath.Join(dev, "main.go"), []byte("package main\n"), 0o644))
	git(t, dev, "add", "main.go")
	git(t, dev, "commit", "-q", "-m", "code")
	seed(t, dev, "create", "--id", "token-refresh", "--type", "concept", "--title", "Token refresh", "--category", "auth.tokens",
		"--body", "Refresh tokens rotate on use.\n", "--agent", "alice")
	seed(t, dev, "create", "--id", "scratch", "--type", "concept", "--title", "Scratch", "--category", "scratch",
		"--body", "temp\n", "--agent", "alice")
	for _, b := range []string{"pr1", "pr2", "pr3"} {
		git(t, dev, "branch", b, "records")
	}
	seed(t, dev, "--ref", "pr1", "create", "--id", "session-policy", "--type", "concept", "--title", "Session policy",
		"--category", "auth.sessions", "--body", "Sessions last 12 hours.\n", "--agent", "bob")
	seed(t, dev, "--ref", "pr1", "update", "token-refresh", "--title", "Token refresh policy", "--agent", "bob")
	seed(t, dev, "--ref", "pr1", "link", "token-refresh", "--to", "session-policy", "--kind", "related", "--agent", "bob")

	handEdit := func(branch string, edit func(wt string)) {
		wt := filepath.Join(t.TempDir(), branch)
		git(t, dev, "worktree", "add", "-q", wt, branch)
		edit(wt)
		git(t, wt, "commit", "-q", "-a", "-m", "hand edit")
		git(t, dev, "worktree", "remove", "--force", wt)
	}
	handEdit("pr2", func(wt string) { git(t, wt, "rm", "-q", "records/concept/5a/scratch.md") })
	handEdit("pr3", func(wt string) {
		matches, _ := filepath.Glob(filepath.Join(wt, "records", "concept", "*", "token-refresh.md"))
		require.Len(t, matches, 1)
		data, err := os.ReadFile(matches[0])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(matches[0], bytes.Replace(data, []byte("rotate on use"), []byte("never rotate"), 1), 0o644))
	})
	seed(t, dev, "create", "--id", "base-later", "--type", "concept", "--title", "After the fork", "--category", "misc",
		"--body", "later\n", "--agent", "carol")

	origin := filepath.Join(t.TempDir(), "origin.git")
	git(t, "", "init", "-q", "--bare", origin)
	git(t, dev, "push", "-q", origin, "main", "records", "pr1:refs/pull/1/head", "pr2:refs/pull/2/head", "pr3:refs/pull/3/head")
	return origin
}

// ghRun is one run of the workflow.
type ghRun struct {
	summary string
	failed  string // name of the step that failed, "" when the job passed
	output  string
	path    string // what the steps added to $GITHUB_PATH
}

// ciGoEnv points go at the user's build and module caches, offline, so the
// workflow's go install builds from source in seconds without a network.
// CGO_ENABLED=0 is make build's setting, and testenv's for binPath: the
// install shares that build's compiled packages (with cgo it would compile
// every package a second time after each change, about 20 s of CPU) and
// finds gopath/bin's copy of binPath up to date instead of linking it.
func ciGoEnv(t *testing.T, gopath string) []string {
	t.Helper()
	ciCaches.once.Do(func() {
		cmd := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE")
		cmd.Env = append(os.Environ(), "HOME="+ciUserHome, "XDG_CACHE_HOME="+ciUserCacheHome)
		var out []byte
		if out, ciCaches.err = cmd.Output(); ciCaches.err == nil {
			ciCaches.err = json.Unmarshal(out, &ciCaches.env)
		}
	})
	require.NoError(t, ciCaches.err)
	return []string{"GOCACHE=" + ciCaches.env["GOCACHE"], "GOMODCACHE=" + ciCaches.env["GOMODCACHE"], "GOPATH=" + gopath, "GOBIN=",
		"GOPROXY=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local", "GOSUMDB=off", "CGO_ENABLED=0"}
}

// ciCaches is the user's GOCACHE and GOMODCACHE, asked of go once.
var ciCaches struct {
	once sync.Once
	env  map[string]string
	err  error
}

// runWorkflow runs the job's steps in order in a fresh clone of origin, as
// a runner would for the pull_request_target event of PR number: uses:
// steps are stood in for (the workspace checkout is the clone, the
// git-records checkout is this source tree, setup-go is the Go on PATH),
// run: steps execute with bash -eo pipefail and GitHub's environment files.
// The PATH has no git-records on it: the job must install its own.
func runWorkflow(t *testing.T, wf ghWorkflow, origin string, pr, headSHA string, gopath string) ghRun {
	t.Helper()
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "workspace")
	git(t, "", "clone", "-q", origin, ws)
	summaryFile, pathFile := filepath.Join(tmp, "summary.md"), filepath.Join(tmp, "path")
	for _, f := range []string{summaryFile, pathFile} {
		require.NoError(t, os.WriteFile(f, nil, 0o644))
	}
	event := map[string]string{
		"github.event.pull_request.base.ref": "records",
		"github.event.pull_request.number":   pr,
		"github.event.pull_request.head.sha": headSHA,
	}
	expand := func(s string) string {
		return ciExpressionExpr.ReplaceAllStringFunc(s, func(m string) string {
			key := ciExpressionExpr.FindStringSubmatch(m)[1]
			v, ok := event[key]
			require.True(t, ok, "the workflow uses %s, which this test does not provide", key)
			return v
		})
	}
	var basePath []string
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if p != filepath.Dir(binPath) {
			basePath = append(basePath, p)
		}
	}
	job := wf.Jobs["records"]
	var run ghRun
	var out strings.Builder
	for i, s := range job.Steps {
		name := s.Name
		if name == "" {
			name = s.Uses
		}
		switch {
		case s.Uses == "actions/checkout@v4" && s.With["repository"] == nil:
			// the clone above
		case s.Uses == "actions/checkout@v4":
			path, _ := s.With["path"].(string)
			require.NotEmpty(t, path)
			require.NoError(t, os.Symlink(ciRepoRoot, filepath.Join(ws, path)))
		case s.Uses == "actions/setup-go@v5":
			f, _ := s.With["go-version-file"].(string)
			assert.FileExists(t, filepath.Join(ws, f), "setup-go reads the Go version from the source checked out before it")
		case s.Uses != "":
			t.Fatalf("step %d uses %s, which this test cannot stand in for", i, s.Uses)
		default:
			script := filepath.Join(tmp, "step.sh")
			require.NoError(t, os.WriteFile(script, []byte(s.Run), 0o644))
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Dir = filepath.Join(ws, s.WorkingDirectory)
			added, err := os.ReadFile(pathFile)
			require.NoError(t, err)
			var path []string
			for _, p := range strings.Split(strings.TrimSpace(string(added)), "\n") {
				if p != "" {
					path = append([]string{p}, path...) // GitHub prepends each addition
				}
			}
			cmd.Env = append(os.Environ(), ciGoEnv(t, gopath)...)
			cmd.Env = append(cmd.Env, "PATH="+strings.Join(append(path, basePath...), string(os.PathListSeparator)),
				"CI=true", "GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request_target", "GITHUB_WORKSPACE="+ws,
				"GITHUB_STEP_SUMMARY="+summaryFile, "GITHUB_PATH="+pathFile)
			for k, v := range job.Env {
				cmd.Env = append(cmd.Env, k+"="+expand(v))
			}
			for k, v := range s.Env {
				cmd.Env = append(cmd.Env, k+"="+expand(v))
			}
			b, err := cmd.CombinedOutput()
			out.WriteString("## " + name + "\n" + string(b))
			if err != nil {
				run.failed = name
			}
		}
		if run.failed != "" {
			break
		}
	}
	summary, err := os.ReadFile(summaryFile)
	require.NoError(t, err)
	added, err := os.ReadFile(pathFile)
	require.NoError(t, err)
	run.summary, run.output, run.path = string(summary), out.String(), string(added)
	return run
}

// summaryCounts are the violation count of a records summary's header, the
// one of its Verification block, and the violations it lists.
var (
	summaryHeaderCount = regexp.MustCompile(`\*\*\d+ added, \d+ changed, \d+ superseded, \d+ retired, (\d+) violations\*\*`)
	summaryVerifyCount = regexp.MustCompile(`(?m)^verify: \d+ commits, (\d+) violations`)
	summaryListed      = regexp.MustCompile(`(?m)^- \*\*[a-z-]+\*\* ` + "`" + `[0-9a-f]{12}` + "`")
	summaryReported    = regexp.MustCompile(`(?m)^✗ [0-9a-f]{12}`)
)

// summaryViolations checks that a summary's header counts the violations
// its Verification block reports and its list shows, and returns that one
// number.
func summaryViolations(t *testing.T, summary string) int {
	t.Helper()
	header := summaryHeaderCount.FindStringSubmatch(summary)
	verify := summaryVerifyCount.FindStringSubmatch(summary)
	require.NotNil(t, header, "no header count in\n%s", summary)
	require.NotNil(t, verify, "no Verification block in\n%s", summary)
	n, err := strconv.Atoi(header[1])
	require.NoError(t, err)
	assert.Equal(t, header[1], verify[1], "the header counts what the Verification block reports:\n%s", summary)
	assert.Len(t, summaryListed.FindAllString(summary, -1), n, "the header counts the violations listed:\n%s", summary)
	assert.Len(t, summaryReported.FindAllString(summary, -1), n, "the header counts the violations the block shows:\n%s", summary)
	return n
}

func TestWorkflowRunsOnPullRequests(t *testing.T) {
	t.Parallel()
	wf := loadWorkflow(t)
	origin := ciOrigin(t)
	gopath := t.TempDir()
	head := func(pr string) string { return strings.TrimSpace(git(t, origin, "rev-parse", "refs/pull/"+pr+"/head")) }
	// gopath/bin starts with the binary these tests run, built from the
	// same sources with the same flags: the job's go install finds it up to
	// date (its build ID matches) instead of linking it again, as make
	// install does in TestInstallManPages; a binary that differs is rebuilt.
	// The steps after the install find git-records only where the install
	// step said it put it (binPath's directory is not on their PATH).
	require.NoError(t, os.MkdirAll(filepath.Join(gopath, "bin"), 0o755))
	require.NoError(t, os.Link(binPath, filepath.Join(gopath, "bin", "git-records")))

	clean := runWorkflow(t, wf, origin, "1", head("1"), gopath)
	require.Empty(t, clean.failed, "a clean PR passes:\n%s", clean.output)
	assert.FileExists(t, filepath.Join(gopath, "bin", "git-records"), "the job installed git-records itself")
	assert.Equal(t, filepath.Join(gopath, "bin")+"\n", clean.path, "the install step puts its go install's directory on the job's PATH")
	assert.Contains(t, clean.summary, "## Record changes")
	assert.Contains(t, clean.summary, "#### `session-policy` Session policy\n\nconcept · auth.sessions · scope: none\n\n```\nSessions last 12 hours.\n```\n",
		"an added record shows its scope and the start of its body")
	assert.Contains(t, clean.summary, "- **title**: `Token refresh` → `Token refresh policy`")
	assert.Zero(t, summaryViolations(t, clean.summary))
	assert.NotContains(t, clean.summary, "base-later", "the record the base gained after the fork is not the PR's doing")
	assert.NotContains(t, clean.summary, "Violations")
	assert.Contains(t, clean.summary, "### Verification")
	assert.Contains(t, clean.summary, "verify: 3 commits, 0 violations")

	deletes := runWorkflow(t, wf, origin, "2", head("2"), gopath)
	assert.Equal(t, "Verify the new record commits", deletes.failed, "a PR that deletes a record fails the job:\n%s", deletes.output)
	assert.Contains(t, deletes.summary, "### ❌ Violations")
	assert.Regexp(t, "- \\*\\*no-delete\\*\\* `[0-9a-f]{12}` record `scratch`: record scratch is deleted", deletes.summary)
	assert.Contains(t, deletes.summary, "FAILED", "the summary carries the verify report too")
	assert.Contains(t, deletes.output, "::error::git records verify found violations")

	unsigned := runWorkflow(t, wf, origin, "3", head("3"), gopath)
	assert.Equal(t, "Verify the new record commits", unsigned.failed, "%s", unsigned.output)
	assert.Contains(t, unsigned.summary, "signature: commit is not signed")
	assert.Contains(t, unsigned.summary, "#### `token-refresh`", "the diff still shows what the hand edit changed")
	for _, r := range []ghRun{deletes, unsigned} {
		assert.Positive(t, summaryViolations(t, r.summary), "a failing PR's header counts its violations:\n%s", r.summary)
	}

	moved := runWorkflow(t, wf, origin, "1", strings.Repeat("ab", 20), gopath)
	assert.Equal(t, "Fetch the records branch and the pull request", moved.failed, "%s", moved.output)
	assert.Contains(t, moved.output, "::error::the pull request moved past")
}

func TestShellRecipe(t *testing.T) {
	t.Parallel()
	origin := ciOrigin(t)
	ws := filepath.Join(t.TempDir(), "ci")
	git(t, "", "clone", "-q", origin, ws)
	git(t, ws, "fetch", "-q", "origin", "records:refs/remotes/origin/records", "refs/pull/*/head:refs/remotes/pr/*")

	check := func(env []string, args ...string) result {
		t.Helper()
		cmd := exec.Command("sh", append([]string{ciRecipePath}, args...)...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		r := result{stdout: stdout.String(), stderr: stderr.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return r
	}

	summary := filepath.Join(t.TempDir(), "records.md")
	r := check([]string{"RECORDS_SUMMARY=" + summary}, "origin/records", "pr/1")
	assert.Equal(t, 0, r.code, "a clean PR passes:\n%s", r)
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(md), "#### `session-policy` Session policy")
	assert.Zero(t, summaryViolations(t, string(md)))
	assert.NotContains(t, string(md), "base-later")
	assert.Contains(t, string(md), "verify: 3 commits, 0 violations, 0 warnings: ok")
	assert.Contains(t, r.stdout, "verify: 3 commits")

	r = check(nil, "origin/records", "pr/2")
	assert.Equal(t, 1, r.code, "deleting a record is a violation:\n%s", r)
	assert.Contains(t, r.stdout, "## Record changes", "without RECORDS_SUMMARY the diff goes to stdout")
	assert.Contains(t, r.stdout, "no-delete")
	assert.Contains(t, r.stderr, "records-check: violations in origin/records..pr/2")

	r = check(nil, "origin/records", "pr/3")
	assert.Equal(t, 1, r.code, "an unsigned commit is a violation:\n%s", r)
	assert.Contains(t, r.stdout, "signature: commit is not signed")
	assert.Positive(t, summaryViolations(t, r.stdout))

	r = check(nil, "origin/records", "pr/99")
	assert.Equal(t, 2, r.code, "%s", r)
	assert.Contains(t, r.stderr, "unknown revision pr/99 (fetch it first)")

	r = check(nil, "origin/records")
	assert.Equal(t, 2, r.code, "%s", r)
	assert.Contains(t, r.stderr, "usage:")
}
