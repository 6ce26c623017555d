package hooks_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/hooks"
)

// verifyJSON runs `git records --json verify args…` and decodes the report.
func verifyJSON(t testing.TB, dir string, wantExit int, args ...string) hooks.Report {
	t.Helper()
	r := rec(t, dir, append([]string{"--json", "verify"}, args...)...)
	require.Equal(t, wantExit, r.code, "%s", r)
	var rep hooks.Report
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), "%s", r)
	return rep
}

// humanFinding is one finding as the human output prints it:
// "✗ <commit12> [record <id>|<path>]: <rule>: <message>\n    fix: <fix>".
var humanFinding = regexp.MustCompile(`(?m)^([✗!]) ([0-9a-f]{12})(?: record (\S+)| (\S+))?: ([a-z-]+): (.*)\n    fix: (.+)$`)

// findingKeys are the findings of a report as comparable strings.
func findingKeys(fs []hooks.Finding, mark string) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strings.Join([]string{mark, f.Commit[:12], f.Record, f.Rule, f.Message, f.Fix}, "|"))
	}
	return out
}

// TestVerifyCLI runs `git records verify` as a person and as CI does: exit
// status, human findings naming commit, record, rule and fix, the same
// findings as JSON, ranges, --strict and the pinned trust root.
func TestVerifyCLI(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)

	t.Run("clean branch", func(t *testing.T) {
		r := rec(t, w.origin, "verify")
		require.Equal(t, 0, r.code, "%s", r)
		assert.Equal(t, "verify: 6 commits, 0 violations, 0 warnings: ok\n", r.stdout)
		rep := verifyJSON(t, w.origin, 0)
		assert.True(t, rep.OK)
		assert.Equal(t, 6, rep.Commits)
		assert.Empty(t, rep.Violations)
	})

	// A bad commit (created_at rewritten) between two good ones.
	w.editBody(t, dir)
	good1 := commit(t, dir, w.key, w.updateMsg())
	edit(t, recordFile(t, dir, w.concept), func(s string) string {
		i := strings.Index(s, "created_at: ")
		s = s[:i] + `created_at: "2001-01-01T00:00:00.000Z"` + s[i+strings.Index(s[i:], "\n"):]
		return appendLog(t, s, updateEntry) + "\nAgain."
	})
	bad := commit(t, dir, w.key, w.updateMsg())
	w.editBody(t, dir)
	good2 := commit(t, dir, w.key, w.updateMsg())

	t.Run("bad branch: human output names commit, record, rule and fix", func(t *testing.T) {
		r := rec(t, dir, "verify")
		require.Equal(t, 1, r.code, "%s", r)
		m := humanFinding.FindAllStringSubmatch(r.stdout, -1)
		require.Len(t, m, 1, "one finding:\n%s", r.stdout)
		assert.Equal(t, "✗", m[0][1])
		assert.Equal(t, bad[:12], m[0][2], "the commit")
		assert.Equal(t, w.concept, m[0][3], "the record")
		assert.Equal(t, "immutable", m[0][5], "the rule")
		assert.Equal(t, "created_at of record "+w.concept+" changed", m[0][6])
		assert.NotEmpty(t, m[0][7], "the fix")
		assert.Contains(t, r.stdout, "verify: 9 commits, 1 violations, 0 warnings: FAILED\n")

		rep := verifyJSON(t, dir, 1)
		assert.False(t, rep.OK)
		assert.Equal(t, 9, rep.Commits)
		require.Len(t, rep.Violations, 1)
		v := rep.Violations[0]
		assert.Equal(t, bad, v.Commit, "JSON carries the full commit id")
		assert.Equal(t, "error", v.Severity)
		assert.Equal(t, recordFileRel(t, dir, w.concept), v.Path)
		var human []string
		for _, f := range m {
			human = append(human, strings.Join([]string{f[1], f[2], f[3], f[5], f[6], f[7]}, "|"))
		}
		assert.Equal(t, human, findingKeys(rep.Violations, "✗"), "human and JSON output report the same findings")
	})

	t.Run("range verifies only its commits", func(t *testing.T) {
		rep := verifyJSON(t, dir, 0, bad+"..records")
		assert.Equal(t, 1, rep.Commits, "only %s", good2[:12])
		rep = verifyJSON(t, dir, 0, good1+"~1.."+good1)
		assert.Equal(t, 1, rep.Commits)
		rep = verifyJSON(t, dir, 1, good1+".."+bad)
		assert.Equal(t, 1, rep.Commits)
		require.Len(t, rep.Violations, 1)
		assert.Equal(t, bad, rep.Violations[0].Commit)
		rep = verifyJSON(t, dir, 1, bad)
		assert.Equal(t, 8, rep.Commits, "a single rev means its whole history")
	})

	t.Run("dangling links warn, and fail with --strict", func(t *testing.T) {
		d := w.cliClone(t)
		mustRec(t, d, "update", w.finding, "--body", "Also see [[no-such-record]].", "--agent", "alice")
		git(t, d, "checkout", "-q", "records")
		edit(t, recordFile(t, d, w.concept), func(s string) string {
			s = replace(t, s, "mutation_log:", "links:\n  - target_id: gone-record\n    kind: example\nmutation_log:")
			return appendLog(t, s, "  - op: update\n    at: \"2030-01-02T03:04:05.000Z\"\n    agent: hand-editor\n    evidence:\n      fields: [links]")
		})
		commit(t, d, w.key, handMsg("update(concept): Token refresh",
			"Record-Op: update", "Record-Id: "+w.concept, "Record-Agent: hand-editor", "Record-Format: 1", "Evidence-Fields: links"))

		r := rec(t, d, "verify", "HEAD~2..HEAD")
		require.Equal(t, 0, r.code, "dangling links are warnings:\n%s", r)
		assert.Contains(t, r.stdout, "links: related link from "+w.finding+" to no-such-record points at no record")
		assert.Contains(t, r.stdout, "links: example link from "+w.concept+" to gone-record points at no record")
		assert.Contains(t, r.stdout, "verify: 2 commits, 0 violations, 2 warnings: ok")
		rep := verifyJSON(t, d, 0, "HEAD~2..HEAD")
		require.Len(t, rep.Warnings, 2)
		for _, f := range rep.Warnings {
			assert.Equal(t, "warning", f.Severity)
			assert.Equal(t, hooks.RuleLinks, f.Rule)
		}

		// A link that dangles through several commits is one warning.
		mustRec(t, d, "update", w.finding, "--title", "Still dangling", "--agent", "alice")
		rep = verifyJSON(t, d, 0, "records~3..records")
		assert.Len(t, rep.Warnings, 2, "one warning per dangling link, not one per commit: %+v", rep.Warnings)
		git(t, d, "checkout", "-q", "records")

		rep = verifyJSON(t, d, 1, "--strict", "HEAD~3..HEAD~1")
		assert.Len(t, rep.Violations, 2)
		assert.Empty(t, rep.Warnings)
		r = rec(t, d, "verify", "--strict", "HEAD~3..HEAD~1")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, "✗ ")

		// Creating the target clears the warning for later commits.
		git(t, d, "checkout", "-q", "--detach")
		create(t, d, "--id", "no-such-record", "--type", "concept", "--title", "Now it exists", "--category", "eng", "--agent", "alice", "--body", "b")
		mustRec(t, d, "update", w.finding, "--title", "Retitled", "--agent", "alice")
		rep = verifyJSON(t, d, 0, "--strict", "records~1..records")
		assert.Empty(t, rep.Warnings)
	})

	t.Run("each commit is judged by its parent's policy", func(t *testing.T) {
		// The maintainer demotes themself: allowed, under the policy
		// before it. Their next apply is judged by the new policy.
		d := w.cliClone(t)
		mustRec(t, d, "policy", "set", fixturePath(t, "policy-demoted.yaml"), "--rationale", "step back", "--agent", userEmail)
		apply := mutateAs(t, d, w.apply(userEmail))
		rep := verifyJSON(t, d, 1, "origin/records..records")
		assert.Equal(t, 2, rep.Commits)
		require.Len(t, rep.Violations, 1, "%+v", rep.Violations)
		v := rep.Violations[0]
		assert.Equal(t, apply, v.Commit)
		assert.Equal(t, hooks.RulePolicy, v.Rule)
		assert.Contains(t, v.Message, "(rule: principal test@example.com → contributor)")

		// Promotion works the same way: carol may apply from the commit
		// after the one that makes her maintainer.
		m := w.cliClone(t)
		mustRec(t, m, "policy", "set", fixturePath(t, "policy-carol-maintainer.yaml"), "--rationale", "carol maintains auth", "--agent", userEmail)
		require.Equal(t, 0, push(t, m, "records").code)
		c := w.carolClone(t)
		mustRec(t, c, "apply", w.concept, "--proposer", w.finding, "--rationale", "agreed", "--body", "Rotate always.", "--agent", "carol")
		mustRec(t, c, "verify", "origin/records..records")
		r := push(t, c, "records")
		require.Equal(t, 0, r.code, "%s", r)
	})

	t.Run("records.trustRoot mismatch", func(t *testing.T) {
		root := strings.TrimSpace(git(t, w.origin, "config", "records.trustRoot"))
		require.Equal(t, strings.TrimSpace(git(t, w.origin, "rev-list", "--max-parents=0", "records")), root, "init pins the root")
		mustRec(t, w.origin, "verify")

		other := initStore(t)
		otherRoot := strings.TrimSpace(git(t, other, "rev-parse", "records"))
		git(t, w.origin, "config", "records.trustRoot", otherRoot)
		r := rec(t, w.origin, "verify")
		require.Equal(t, 1, r.code, "%s", r)
		root12 := root[:12]
		assert.Contains(t, r.stdout, "✗ "+root12+": trust-root: root commit "+root12+" is not the pinned trust root "+otherRoot)
		assert.Contains(t, r.stdout, "fix: if this history is the one you trust, pin it: git config records.trustRoot "+root)
		rep := verifyJSON(t, w.origin, 1)
		require.Len(t, rep.Violations, 1)
		assert.Equal(t, hooks.RuleTrustRoot, rep.Violations[0].Rule)

		// A range that does not reach the root trusts its base instead.
		verifyJSON(t, w.origin, 0, "records~1..records")
		git(t, w.origin, "config", "records.trustRoot", root)
		mustRec(t, w.origin, "verify")
	})
}

// recordFileRel is a record's path on the branch.
func recordFileRel(t testing.TB, dir, id string) string {
	t.Helper()
	out := strings.Fields(git(t, dir, "ls-tree", "-r", "--name-only", "records", "--", "records"))
	for _, p := range out {
		if strings.HasSuffix(p, "/"+id+".md") {
			return p
		}
	}
	t.Fatalf("no file for %s", id)
	return ""
}

// TestOpMatches: a commit's changes must be what its op claims. Each case
// is the valid hand update with one thing changed, judged by verify.
func TestOpMatches(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	base := revParse(t, dir, "HEAD")
	newRecord := func(t *testing.T, id, entryOp string) {
		path := filepath.Join(dir, "records", "concept", idShard(id), id+".md")
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		src, err := os.ReadFile(recordFile(t, dir, w.concept))
		require.NoError(t, err)
		s := strings.ReplaceAll(string(src), w.concept, id)
		i := strings.Index(s, "mutation_log:")
		s = s[:i] + "mutation_log:\n  - op: " + entryOp + "\n    at: \"2030-01-01T00:00:00.000Z\"\n    agent: hand-editor\n---\n\nNew.\n"
		require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	}
	for _, c := range []struct {
		name    string
		change  func(t *testing.T)
		msg     func() string
		rule    string
		message string
	}{
		{"an update that also changes the policy", func(t *testing.T) {
			w.editBody(t, dir)
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".records", "policy.yaml"), []byte(fixture(t, "policy-carol-maintainer.yaml")), 0o644))
		}, func() string { return w.updateMsg() }, hooks.RuleOpMatches, "update commit changes .records/policy.yaml"},
		{"an update whose log entry says apply", func(t *testing.T) {
			edit(t, recordFile(t, dir, w.concept), func(s string) string {
				return appendLog(t, s, strings.Replace(handEntry, "op: update", "op: apply", 1)) + "\nx"
			})
		}, func() string { return w.updateMsg() }, hooks.RuleOpMatches, `update commit appends a "apply" entry to ` + w.concept},
		{"an update that adds a record", func(t *testing.T) {
			w.editBody(t, dir)
			newRecord(t, "smuggled", "create")
		}, func() string { return w.updateMsg("Record-Id: smuggled") }, hooks.RuleOpMatches, "update commit adds record smuggled"},
		{"a record changed but not named", func(t *testing.T) {
			w.editBody(t, dir)
			edit(t, recordFile(t, dir, w.finding), func(s string) string { return appendLog(t, s, updateEntry) + "\ny" })
		}, func() string { return w.updateMsg() }, hooks.RuleOpMatches, "update commit changes record " + w.finding + " without naming it in Record-Id"},
		{"an update that retires", func(t *testing.T) {
			edit(t, recordFile(t, dir, w.concept), func(s string) string {
				return appendLog(t, replace(t, s, "status: active", "status: retired"), updateEntry)
			})
		}, func() string { return w.updateMsg() }, hooks.RuleOpMatches, "update commit changes the status of " + w.concept},
		{"a reject that changes the body", func(t *testing.T) {
			edit(t, recordFile(t, dir, w.concept), func(s string) string {
				return appendLog(t, s, "  - op: reject\n    at: \"2030-01-02T03:04:05.000Z\"\n    agent: hand-editor") + "\nz"
			})
		}, func() string {
			return handMsg("reject(concept): Token refresh", "Record-Op: reject", "Record-Id: "+w.concept, "Record-Agent: hand-editor",
				"Record-Format: 1", "Evidence-Proposer: "+w.finding, "Evidence-Reason: no")
		}, hooks.RuleOpMatches, "reject commit changes the body of " + w.concept},
		{"a stray file", func(t *testing.T) {
			w.editBody(t, dir)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("hi\n"), 0o644))
		}, func() string { return w.updateMsg() }, hooks.RuleLayout, "README.md is not a record path"},
		{"a file named for another id", func(t *testing.T) {
			w.editBody(t, dir)
			from := recordFile(t, dir, w.concept)
			data, err := os.ReadFile(from)
			require.NoError(t, err)
			path := filepath.Join(dir, "records", "concept", idShard("other-id"), "other-id.md")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}, func() string {
			return handMsg("create(concept): copy", "Record-Op: create", "Record-Id: "+w.concept, "Record-Id: other-id", "Record-Agent: a", "Record-Format: 1")
		},
			hooks.RuleLayout, "file holds record " + w.concept + " of type concept"},
		{"a new record without its create entry", func(t *testing.T) {
			newRecord(t, "no-create-entry", "update")
		}, func() string {
			return handMsg("create(concept): x", "Record-Op: create", "Record-Id: no-create-entry", "Record-Agent: a", "Record-Format: 1")
		}, hooks.RuleMutationLog, "new record no-create-entry has no create entry in its mutation log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			git(t, dir, "reset", "-q", "--hard", base)
			git(t, dir, "clean", "-qfd")
			c.change(t)
			commit(t, dir, w.key, c.msg())
			rep := verifyJSON(t, dir, 1, "HEAD~1..HEAD")
			var got []string
			for _, v := range rep.Violations {
				got = append(got, v.Rule+": "+v.Message)
			}
			assert.Contains(t, got, c.rule+": "+c.message)
		})
	}
}

// idShard is the two hex digits of sha256(id) a record's file sits under.
func idShard(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:1])
}
