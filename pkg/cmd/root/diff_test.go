package root

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/pkg/cmdutil"
)

// diffTestdata is testdata/diff at the repository root.
var diffTestdata = filepath.Join("..", "..", "..", "testdata", "diff")

var (
	diffTimePattern   = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	diffCommitPattern = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	diffShortPattern  = regexp.MustCompile(`\b[0-9a-f]{12}\b`) // verify's findings name commits so
)

// maskDiff hides what changes from run to run: timestamps and commit ids.
func maskDiff(s string) string {
	s = diffCommitPattern.ReplaceAllString(diffTimePattern.ReplaceAllString(s, "<TIME>"), "<COMMIT>")
	return diffShortPattern.ReplaceAllString(s, "<SHORT>")
}

// recordsPR builds a realistic records pull request: branch feature forks
// from records and adds two records, changes one (title, body, tags, a
// link: new log entries), supersedes one, marks one implemented, retires
// one and deletes one by hand (a violation). Afterwards records moves on
// with a record of its own, so that records...feature and records feature
// differ. Ids are fixed; only the clock and the commit ids vary.
func recordsPR(t testing.TB) string {
	t.Helper()
	dir := newRepo(t)
	mustRec(t, dir, "create", "--id", "token-refresh", "--type", "concept", "--title", "Token refresh", "--category", "auth.tokens",
		"--tag", "auth", "--tag", "tokens", "--body", "# Token refresh\n\nRefresh tokens rotate on use.\nThey expire after 30 days.\n", "--agent", "alice")
	mustRec(t, dir, "create", "--id", "session-note", "--type", "concept", "--title", "Session cookies", "--category", "auth.sessions",
		"--body", "Cookies are HttpOnly.\n", "--agent", "alice")
	mustRec(t, dir, "create", "--id", "weekly-rotation", "--type", "decision", "--title", "Rotate keys weekly", "--category", "auth",
		"--body", "Decided.\n", "--agent", "alice")
	mustRec(t, dir, "create", "--id", "legacy-flow", "--type", "concept", "--title", "Implicit grant flow", "--category", "auth.flows",
		"--body", "Do not use.\n", "--agent", "alice")
	mustRec(t, dir, "create", "--id", "scratch", "--type", "concept", "--title", "Scratch", "--category", "scratch",
		"--body", "temp\n", "--agent", "alice")
	git(t, dir, "branch", "feature", "records")

	// The code the new session policy speaks about (its scope).
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "auth"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "auth", "session.go"), []byte("package auth\n"), 0o644))
	git(t, dir, "add", "auth/session.go")
	git(t, dir, "commit", "-q", "-m", "session code")

	pr := func(args ...string) { mustRec(t, dir, append([]string{"--ref", "feature"}, args...)...) }
	pr("create", "--id", "session-policy", "--type", "concept", "--title", "Session policy", "--category", "auth.sessions",
		"--body", "Sessions last 12 hours; cookies are HttpOnly and SameSite=Lax.\n", "--scope", "auth/session.go", "--agent", "bob")
	pr("supersede", "session-policy", "session-note", "--rationale", "merged into the session policy", "--agent", "bob")
	pr("update", "token-refresh", "--title", "Token refresh policy", "--tag", "auth", "--tag", "rotation",
		"--body", "# Token refresh\n\nRefresh tokens rotate on every use.\nThey expire after 30 days.\nA reused token revokes the family.\n",
		"--note", "reuse detection", "--agent", "bob")
	pr("link", "token-refresh", "--to", "session-policy", "--kind", "related", "--agent", "bob")
	pr("retire", "weekly-rotation", "--status", "implemented", "--implemented-by", "PR-43", "--rationale", "shipped in PR 43", "--agent", "bob")
	pr("retire", "legacy-flow", "--rationale", "OAuth 2.1 drops the implicit grant", "--agent", "bob")
	// A long body: the summary shows its first lines, each bounded.
	rfc := "# The OAuth 2.0 Authorization Framework\n\n" + strings.Repeat("The client obtains an access token from the authorization server. ", 4) + "\n"
	for i := 1; i <= 9; i++ {
		rfc += fmt.Sprintf("%d. Section %d\n", i, i)
	}
	pr("create", "--id", "rfc-6749", "--type", "raw", "--title", "RFC 6749", "--category", "standards.oauth", "--body", rfc, "--agent", "importer")
	// A hand edit no op would make: the record file is removed.
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", wt, "feature")
	git(t, wt, "rm", "-q", "records/concept/5a/scratch.md")
	git(t, wt, "commit", "-q", "-m", "drop scratch")
	git(t, dir, "worktree", "remove", wt)

	// The base moves on after the fork.
	mustRec(t, dir, "create", "--id", "base-later", "--type", "concept", "--title", "Written on records after the fork",
		"--category", "misc", "--body", "later\n", "--agent", "carol")
	return dir
}

// TestDiffGolden pins the three renderings of a records pull request with
// testdata/diff/*.golden (timestamps and commit ids masked). Refresh with
//
//	go test ./pkg/cmd/root -run TestDiffGolden -update
func TestDiffGolden(t *testing.T) {
	t.Parallel()
	dir := recordsPR(t)
	for _, g := range []struct {
		file string
		args []string
		code int
	}{
		{"pr.golden", []string{"diff", "--color", "never", "records...feature"}, 0},
		{"pr.json.golden", []string{"--json", "diff", "records...feature"}, 0},
		{"pr.md.golden", []string{"diff", "--format", "markdown", "records...feature"}, 0},
		// The hand-made commit that deletes scratch is unsigned and has no
		// trailers: the header counts what the Verification block lists.
		{"pr.verify.md.golden", []string{"diff", "--format", "markdown", "--verify", "records...feature"}, 1},
		{"empty.golden", []string{"diff", "records", "records"}, 0},
		{"empty.md.golden", []string{"diff", "--format", "markdown", "feature", "feature"}, 0},
	} {
		t.Run(g.file, func(t *testing.T) {
			r := rec(t, dir, g.args...)
			require.Equal(t, g.code, r.Code, "git-records %q:\n%s", g.args, r)
			got := maskDiff(r.Stdout)
			path := filepath.Join(diffTestdata, g.file)
			if *updateGolden {
				require.NoError(t, os.MkdirAll(diffTestdata, 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./pkg/cmd/root -run TestDiffGolden -update to create it")
			assert.Equal(t, string(want), got, "git-records %q differs from %s (refresh with -update if the change is intended)", g.args, path)
		})
	}

	t.Run("json says what the text says", func(t *testing.T) {
		d := mustJSON[obj](t, dir, "diff", "records...feature")
		ids := func(key string) []string {
			var out []string
			for _, e := range d[key].([]any) {
				out = append(out, e.(map[string]any)["id"].(string))
			}
			return out
		}
		assert.Equal(t, []string{"rfc-6749", "session-policy"}, ids("added"))
		assert.Equal(t, []string{"legacy-flow", "session-note", "token-refresh", "weekly-rotation"}, ids("changed"))
		assert.Equal(t, []string{"session-note"}, ids("superseded"))
		assert.Equal(t, []string{"legacy-flow", "weekly-rotation"}, ids("retired"))
		require.Len(t, d["violations"], 1)
		v := d["violations"].([]any)[0].(map[string]any)
		assert.Equal(t, "no-delete", v["rule"])
		assert.Equal(t, "scratch", v["id"])
		assert.Equal(t, strings.TrimSpace(git(t, dir, "merge-base", "records", "feature")), d["from"], "a...b starts at the merge base")
		assert.Equal(t, strings.TrimSpace(git(t, dir, "rev-parse", "feature")), d["to"])
	})
}

// TestDiffMergeBase: a...b compares b with its merge base with a, as git
// diff does, so what a gained after the fork is not read as b deleting it;
// a b and a..b compare the two tips.
func TestDiffMergeBase(t *testing.T) {
	t.Parallel()
	dir := recordsPR(t)
	threeDot := mustJSON[obj](t, dir, "diff", "records...feature")
	for _, args := range [][]string{{"records", "feature"}, {"records..feature"}} {
		twoTips := mustJSON[obj](t, dir, append([]string{"diff"}, args...)...)
		assert.Equal(t, strings.TrimSpace(git(t, dir, "rev-parse", "records")), twoTips["from"], "%q", args)
		var deleted []string
		for _, v := range twoTips["violations"].([]any) {
			deleted = append(deleted, v.(map[string]any)["id"].(string))
		}
		assert.ElementsMatch(t, []string{"scratch", "base-later"}, deleted, "%q: the tip of records has base-later, feature does not", args)
	}
	for _, v := range threeDot["violations"].([]any) {
		assert.NotEqual(t, "base-later", v.(map[string]any)["id"], "records...feature must not blame feature for base-later")
	}
	// The other way round, only base-later is new.
	back := mustJSON[obj](t, dir, "diff", "feature...records")
	require.Len(t, back["added"], 1)
	assert.Equal(t, "base-later", back["added"].([]any)[0].(map[string]any)["id"])
	assert.Empty(t, back["changed"])
	assert.Empty(t, back["violations"])
}

// TestDiffExitCode: --exit-code exits 1 on differences and 0 when the
// sides hold the same records, as git diff --exit-code does; without it a
// diff exits 0 either way.
func TestDiffExitCode(t *testing.T) {
	t.Parallel()
	dir := recordsPR(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"diff", "--exit-code", "records", "records"}, 0},
		{[]string{"diff", "--exit-code", "feature...feature"}, 0},
		{[]string{"diff", "--exit-code", "records...feature"}, 1},
		{[]string{"diff", "--exit-code", "--format", "markdown", "records...feature"}, 1},
		{[]string{"--json", "diff", "--exit-code", "records...feature"}, 1},
		{[]string{"diff", "records...feature"}, 0},
	} {
		r := rec(t, dir, tc.args...)
		assert.Equal(t, tc.code, r.Code, "%q:\n%s", tc.args, r)
		assert.NotEmpty(t, r.Stdout, "%q prints the diff whatever the exit code", tc.args)
		assert.Empty(t, r.Stderr, "%q: differences are not an error message", tc.args)
	}
	// Records equal but commits different: an op that changed nothing
	// record-wise (a policy commit) is no difference.
	git(t, dir, "branch", "same", "records")
	mustRec(t, dir, "--ref", "same", "signers", "add", "carol@example.com",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl", "--rationale", "carol joins", "--agent", "alice")
	r := rec(t, dir, "diff", "--exit-code", "records", "same")
	assert.Equal(t, 0, r.Code, "%s", r)
	assert.Equal(t, "no record differences\n", r.Stdout)

	r = rec(t, dir, "--json", "diff", "records...no-such-branch")
	requireError(t, r, "NOT_FOUND", cmdutil.ExitRefused)
}
