package root

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// formatReads are the reads each format fixture's golden answers hold.
var formatReads = [][]string{
	{"list", "--include-retired"}, {"log"}, {"proposals"}, {"verify"},
}

// TestFormatFixturesRead: a newer tool reads every older format. Each
// released format has a store in testdata/formats/v<N> (a git bundle of
// its records branch, made by the tool that wrote that format); this tool
// clones it, verifies its whole history and reads it exactly as the
// golden answers say. Write a new fixture with -update when a format is
// released; never rewrite an old one.
func TestFormatFixturesRead(t *testing.T) {
	for _, format := range kernel.Formats {
		t.Run("v"+format, func(t *testing.T) {
			fixture := filepath.Join("..", "..", "..", "testdata", "formats", "v"+format)
			bundle, err := filepath.Abs(filepath.Join(fixture, "records.bundle"))
			require.NoError(t, err)
			if *updateGolden && format == kernel.FormatVersion {
				if _, err := os.Stat(bundle); err == nil {
					t.Fatalf("%s exists: a released format's fixture is never rewritten", bundle)
				}
				writeFormatFixture(t, fixture, bundle)
			}
			dir := filepath.Join(t.TempDir(), "clone")
			git(t, "", "clone", "-q", "--no-checkout", bundle, dir)
			git(t, dir, "branch", "records", "origin/records")
			for _, args := range formatReads {
				name := strings.Join(args, "-") + ".json"
				want, err := os.ReadFile(filepath.Join(fixture, name))
				require.NoError(t, err, "run go test ./pkg/cmd/root -run TestFormatFixturesRead -update for the current format")
				got := mustRec(t, dir, append([]string{"--json"}, args...)...)
				assert.JSONEq(t, string(want), got, "git records %s on a format %s store", strings.Join(args, " "), format)
			}
			out := mustJSON[obj](t, dir, "migrate", "--agent", "upgrader")
			assert.Equal(t, float64(kernel.CurrentFormat()), out["format"], "migrate brings the store to the current format")
			mustRec(t, dir, "verify")
		})
	}
}

// writeFormatFixture builds the current format's fixture store with this
// tool: records of several types and axes, links, a proposal applied, a
// payload, a compaction; then bundles it and records the golden reads.
func writeFormatFixture(t *testing.T, fixture, bundle string) {
	dir := newRepo(t)
	a := createID(t, dir, "--type", "concept", "--title", "Token refresh", "--category", "auth.tokens", "--agent", "alice", "--alias", "auth/refresh", "--tag", "security", "--body", "Rotate on use.")
	f := createID(t, dir, "--type", "review.finding", "--title", "No rotation", "--category", "auth.tokens", "--agent", "bot", "--body", "See [[auth/refresh]].")
	mustRec(t, dir, "propose", a, "--proposer", f, "--proposal", "Rotate on every refresh.", "--agent", "bot")
	mustRec(t, dir, "apply", a, "--proposer", f, "--rationale", "right", "--agent", "alice", "--approve")
	createID(t, dir, "--type", "relation", "--from", f, "--to", a, "--relation", "references", "--title", "finding references policy", "--category", "auth.tokens", "--agent", "bot", "--body", "r")
	payload := filepath.Join(t.TempDir(), "pr.json")
	require.NoError(t, os.WriteFile(payload, []byte(`{"number":42}`), 0o644))
	mustRec(t, dir, "observe", "--extension", "github", "--external-id", "pull/42", "--payload-file", payload, "--title", "PR 42", "--category", "github.pulls", "--agent", "watcher")
	createID(t, dir, "--type", "raw", "--kind", "event", "--title", "heartbeat", "--category", "ops.log", "--agent", "bot", "--body", "tick")
	mustRec(t, dir, "compact", "--before", "2999-01-01", "--agent", "janitor", "--record", createID(t, dir, "--type", "raw", "--kind", "event", "--title", "tick 2", "--category", "ops.log", "--agent", "bot", "--body", "tick"), "--approve")
	require.NoError(t, os.MkdirAll(fixture, 0o755))
	git(t, dir, "bundle", "create", "-q", bundle, "records")
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, "", "clone", "-q", "--no-checkout", bundle, clone)
	git(t, clone, "branch", "records", "origin/records")
	for _, args := range formatReads {
		out := mustRec(t, clone, append([]string{"--json"}, args...)...)
		require.NoError(t, os.WriteFile(filepath.Join(fixture, strings.Join(args, "-")+".json"), []byte(out), 0o644))
	}
}

// TestFormatChecks: a store from a newer format is refused on every read
// and write with FORMAT_TOO_NEW (exit 5), naming the upgrade; migrate on a
// current store writes nothing.
func TestFormatChecks(t *testing.T) {
	dir := newRepo(t)
	createID(t, dir, "--type", "concept", "--title", "C", "--category", "eng", "--agent", "alice", "--body", "b")
	out := mustJSON[obj](t, dir, "migrate", "--agent", "alice")
	assert.Equal(t, true, out["unchanged"])
	assert.Equal(t, float64(1), out["format"])

	// Format 2, as a future git-records would write it.
	index := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + index}
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, append(os.Environ(), env...), strings.NewReader(stdin)
		out, err := cmd.Output()
		require.NoError(t, err, "git %q", args)
		return strings.TrimSpace(string(out))
	}
	run("", "read-tree", "refs/heads/records")
	blob := run("2\n", "hash-object", "-w", "--stdin")
	run("", "update-index", "--cacheinfo", "100644,"+blob+",.records/format")
	tree := run("", "write-tree")
	commit := run("init(store): format 2\n\nRecord-Op: init\nRecord-Agent: future\nRecord-Format: 2\n", "commit-tree", tree, "-p", "refs/heads/records")
	git(t, dir, "update-ref", "refs/heads/records", commit)

	for _, args := range [][]string{{"list"}, {"show", "C"}, {"create", "--type", "concept", "--title", "D", "--category", "eng", "--agent", "alice", "--body", "b"}, {"migrate", "--agent", "alice"}} {
		e := requireError(t, rec(t, dir, append([]string{"--json"}, args...)...), "FORMAT_TOO_NEW", 5)
		assert.Contains(t, e["message"], "upgrade git-records", "%v", args)
	}
	r := rec(t, dir, "--json", "verify", "refs/heads/records~1..refs/heads/records")
	assert.Equal(t, 1, r.Code, "%s", r)
	assert.Contains(t, r.Stdout, "newer than the formats this git-records reads")
}
