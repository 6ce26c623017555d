package hooks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// manifestHook is one hook of .pre-commit-hooks.yaml, with the keys of
// pre-commit's manifest schema (pre-commit/clientlib.py MANIFEST_HOOK_DICT):
// decoding with KnownFields refuses any other key.
type manifestHook struct {
	ID                      string   `yaml:"id"`
	Name                    string   `yaml:"name"`
	Entry                   string   `yaml:"entry"`
	Language                string   `yaml:"language"`
	Alias                   string   `yaml:"alias"`
	Files                   string   `yaml:"files"`
	Exclude                 string   `yaml:"exclude"`
	Types                   []string `yaml:"types"`
	TypesOr                 []string `yaml:"types_or"`
	ExcludeTypes            []string `yaml:"exclude_types"`
	AdditionalDependencies  []string `yaml:"additional_dependencies"`
	Args                    []string `yaml:"args"`
	AlwaysRun               bool     `yaml:"always_run"`
	FailFast                bool     `yaml:"fail_fast"`
	PassFilenames           *bool    `yaml:"pass_filenames"`
	Description             string   `yaml:"description"`
	LanguageVersion         string   `yaml:"language_version"`
	LogFile                 string   `yaml:"log_file"`
	MinimumPreCommitVersion string   `yaml:"minimum_pre_commit_version"`
	RequireSerial           bool     `yaml:"require_serial"`
	Stages                  []string `yaml:"stages"`
	Verbose                 bool     `yaml:"verbose"`
}

// preCommitStages are the stage names of pre-commit ≥ 3.2 (its hook types
// and manual); the old names commit, push and merge-commit are deprecated.
var preCommitStages = map[string]bool{"pre-commit": true, "pre-merge-commit": true, "pre-push": true, "prepare-commit-msg": true,
	"commit-msg": true, "post-checkout": true, "post-commit": true, "post-merge": true, "post-rewrite": true, "pre-rebase": true, "manual": true}

func readManifest(t *testing.T) []manifestHook {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", ".pre-commit-hooks.yaml"))
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var hooks []manifestHook
	require.NoError(t, dec.Decode(&hooks))
	return hooks
}

// preCommitRun runs a manifest hook the way the pre-commit framework does:
// its entry split on spaces, then the hook's args and (when it passes
// filenames) the files; no standard input; PRE_COMMIT=1 and the stage's
// variables in the environment.
func preCommitRun(t *testing.T, h manifestHook, dir string, files []string, env ...string) result {
	t.Helper()
	argv := append(strings.Fields(h.Entry), h.Args...)
	if h.PassFilenames == nil || *h.PassFilenames {
		argv = append(argv, files...)
	}
	env = append([]string{"PRE_COMMIT=1", "PRE_COMMIT_HOOK_STAGE=" + h.Stages[0]}, env...)
	return run(t, dir, "", env, argv[0], argv[1:]...)
}

// TestPreCommitManifest checks .pre-commit-hooks.yaml against pre-commit's
// schema and runs each hook as pre-commit would run it.
func TestPreCommitManifest(t *testing.T) {
	t.Parallel()
	manifest := readManifest(t)
	byStage := map[string]manifestHook{}
	for _, h := range manifest {
		assert.NotEmpty(t, h.ID)
		assert.NotEmpty(t, h.Name)
		assert.Contains(t, []string{"golang", "system"}, h.Language, "%s: golang builds git-records from this repository (go install ./...)", h.ID)
		assert.True(t, strings.HasPrefix(h.ID, "git-records-"), h.ID)
		assert.True(t, h.AlwaysRun, "%s must run whatever files are staged", h.ID)
		require.Len(t, h.Stages, 1, h.ID)
		assert.True(t, preCommitStages[h.Stages[0]], "%s: stage %q", h.ID, h.Stages[0])
		assert.Equal(t, "git-records hook "+h.Stages[0], h.Entry, "%s runs the git hook of its stage", h.ID)
		assert.Equal(t, "3.2.0", h.MinimumPreCommitVersion, "stage names like pre-push need pre-commit 3.2")
		_, dup := byStage[h.Stages[0]]
		assert.False(t, dup, "one hook per stage")
		byStage[h.Stages[0]] = h
	}
	require.Contains(t, byStage, "pre-commit")
	require.Contains(t, byStage, "commit-msg")
	require.Contains(t, byStage, "pre-push")
	assert.Equal(t, "git-records-verify", byStage["pre-commit"].ID)
	assert.False(t, *byStage["pre-commit"].PassFilenames)
	assert.False(t, *byStage["pre-push"].PassFilenames)
	assert.Nil(t, byStage["commit-msg"].PassFilenames, "commit-msg gets the message file")

	w := newWorld(t)
	dir := w.clone(t)

	t.Run("pre-commit stage", func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, replace(t, s, "agent: reviewer-bot", "agent: someone-else"), handEntry)
		})
		git(t, dir, "add", "-A")
		r := preCommitRun(t, byStage["pre-commit"], dir, []string{recordFileRel(t, dir, w.concept)})
		assert.Equal(t, 1, r.code, "%s", r)
		assert.Contains(t, r.stderr, "✗ [mutation-log] staged")
		git(t, dir, "reset", "-q", "--hard")

		// Elsewhere than on a records branch it has nothing to say.
		r = preCommitRun(t, byStage["pre-commit"], w.origin, nil)
		assert.Equal(t, 0, r.code, "%s", r)
	})

	t.Run("valid edit through pre-commit and commit-msg", func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\nThrough pre-commit."
		})
		git(t, dir, "add", "-A")
		r := preCommitRun(t, byStage["pre-commit"], dir, nil)
		require.Equal(t, 0, r.code, "%s", r)
		msgFile := filepath.Join(t.TempDir(), "COMMIT_EDITMSG")
		require.NoError(t, os.WriteFile(msgFile, []byte("Edit through pre-commit\n"), 0o644))
		r = preCommitRun(t, byStage["commit-msg"], dir, []string{msgFile})
		require.Equal(t, 0, r.code, "%s", r)
		msg, err := os.ReadFile(msgFile)
		require.NoError(t, err)
		assert.Equal(t, "Edit through pre-commit\n\nRecord-Op: update\nRecord-Id: "+w.concept+
			"\nRecord-Agent: hand-editor\nRecord-Format: 1\nEvidence-Fields: body\n", string(msg))
		commit(t, dir, w.key, string(msg))
		mustRec(t, dir, "verify", "HEAD~1..HEAD")
	})

	t.Run("pre-push stage", func(t *testing.T) {
		remote := revParse(t, dir, "refs/remotes/origin/records")
		valid := revParse(t, dir, "HEAD")
		env := func(from, to string) []string {
			e := []string{"PRE_COMMIT_LOCAL_BRANCH=refs/heads/records", "PRE_COMMIT_REMOTE_BRANCH=refs/heads/records",
				"PRE_COMMIT_REMOTE_NAME=origin", "PRE_COMMIT_REMOTE_URL=" + w.server}
			if from != "" {
				e = append(e, "PRE_COMMIT_FROM_REF="+from, "PRE_COMMIT_TO_REF="+to)
			}
			return e
		}
		r := preCommitRun(t, byStage["pre-push"], dir, nil, env(remote, valid)...)
		require.Equal(t, 0, r.code, "%s", r)

		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, s, handEntry) + "\nUnsigned."
		})
		unsigned := commit(t, dir, "", w.updateMsg())
		r = preCommitRun(t, byStage["pre-push"], dir, nil, env(remote, unsigned)...)
		assert.Equal(t, 1, r.code, "pre-commit gives the refs in the environment, not on stdin:\n%s", r)
		assert.Contains(t, r.stderr, "✗ [signature] "+unsigned[:12]+": commit is not signed")

		// A push of the whole history (a new remote branch): pre-commit
		// sets no FROM/TO, only the local branch.
		r = preCommitRun(t, byStage["pre-push"], dir, nil, env("", "")...)
		assert.Equal(t, 1, r.code, "%s", r)
		assert.Contains(t, r.stderr, "commit is not signed")
		assert.Contains(t, r.stderr, "violations in 8 commits", "the whole history")

		// Pushing only the valid part passes.
		r = preCommitRun(t, byStage["pre-push"], dir, nil, env(remote, valid)...)
		assert.Equal(t, 0, r.code, "%s", r)
	})
}
