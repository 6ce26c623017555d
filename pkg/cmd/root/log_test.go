package root

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/pkg/cmdutil"
)

// logLines decodes `log --format jsonl`: one JSON object per line.
func logLines(t *testing.T, out string) []obj {
	t.Helper()
	var lines []obj
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var o obj
		require.NoError(t, json.Unmarshal(sc.Bytes(), &o), "not one JSON object per line: %q", sc.Text())
		lines = append(lines, o)
	}
	return lines
}

func TestLogAudit(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte("version: 1\nrequire_approval: external_mutation\nrules:\n  - profile: maintainer\n"), 0o644))
	mustRec(t, dir, "create", "--id", "token-refresh", "--type", "concept", "--title", "Token refresh", "--category", "auth.tokens",
		"--body", "Rotate on use.\n", "--agent", "alice", "--note", "from the incident review")
	mustRec(t, dir, "create", "--id", "session-policy", "--type", "concept", "--title", "Session policy", "--category", "auth",
		"--body", "12 hours.\n", "--agent", "alice")
	seen := tip(t, dir)
	mustRec(t, dir, "link", "token-refresh", "--to", "session-policy", "--kind", "related", "--agent", "bob")
	mustRec(t, dir, "policy", "set", policy, "--rationale", "risky ops need a second pair of eyes", "--agent", "alice")
	mustRec(t, dir, "retire", "session-policy", "--status", "implemented", "--implemented-by", "PR-43",
		"--rationale", "shipped", "--agent", "bob", "--approve")

	all := logLines(t, mustRec(t, dir, "log", "--format", "jsonl"))
	require.Len(t, all, 6, "one line per commit of the store")
	ops := []string{}
	for _, e := range all {
		ops = append(ops, e["op"].(string))
		assert.Regexp(t, `^[0-9a-f]{40}$`, e["commit"])
		assert.Equal(t, "good", e["signature"], "%v", e)
		assert.Equal(t, "G", e["signature_code"])
		assert.Equal(t, userEmail, e["signer"], "the principal allowed_signers names, not the committer")
		assert.Regexp(t, `^SHA256:`, e["signature_key"])
		assert.Regexp(t, timestampRE, e["time"])
		assert.IsType(t, map[string]any{}, e["evidence"], "evidence is always an object")
		assert.IsType(t, []any{}, e["records"], "records is always a list")
	}
	assert.Equal(t, []string{"retire", "policy", "link", "create", "create", "init"}, ops)

	retire, pol, link, create := all[0], all[1], all[2], all[4]
	assert.Equal(t, []any{"session-policy"}, retire["records"])
	assert.Equal(t, "bob", retire["agent"])
	assert.Equal(t, map[string]any{"Target-Status": "implemented", "Rationale": "shipped", "Implemented-By": "PR-43"}, retire["evidence"])
	assert.Equal(t, userEmail, retire["approved_by"])
	assert.Equal(t, "retire(concept): Session policy", retire["subject"])
	assert.Equal(t, map[string]any{"Rationale": "risky ops need a second pair of eyes"}, pol["evidence"])
	assert.Empty(t, pol["records"])
	assert.Equal(t, map[string]any{"Link": []any{"related session-policy"}}, link["evidence"], "a per-item trailer is always a list")
	assert.NotContains(t, link, "approved_by")
	assert.Equal(t, map[string]any{"Note": "from the incident review"}, create["evidence"])

	// --json is the same objects as one array; a record's log is its commits only.
	arr := mustJSON[[]obj](t, dir, "log", "--max-count", "3")
	require.Len(t, arr, 3)
	assert.Equal(t, all[0], arr[0])
	mine := logLines(t, mustRec(t, dir, "log", "session-policy", "--format", "jsonl"))
	require.Len(t, mine, 2, "the link changed token-refresh, not its target")
	assert.Equal(t, "retire", mine[0]["op"])
	assert.Equal(t, "create", mine[1]["op"])

	// Polling: what changed since a tip the reader saw.
	since := logLines(t, mustRec(t, dir, "log", "--format", "jsonl", "--since-commit", seen))
	assert.Len(t, since, 3)
	assert.Empty(t, strings.TrimSpace(mustRec(t, dir, "log", "--format", "jsonl", "--since-commit", "records")), "nothing new since the tip")
	requireError(t, rec(t, dir, "--json", "log", "--since-commit", "no-such-rev"), "NOT_FOUND", cmdutil.ExitRefused)
	requireError(t, rec(t, dir, "--json", "log", "--format", "xml"), "USAGE", cmdutil.ExitUsage)

	// People get one line per commit with the same facts.
	text := strings.Split(strings.TrimSpace(mustRec(t, dir, "log")), "\n")
	require.Len(t, text, 6)
	assert.Regexp(t, `^[0-9a-f]{12}\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+retire\s+good\s+`+regexpQuote(userEmail)+`\s+bob\s+retire\(concept\): Session policy\s+\{Implemented-By: PR-43; Rationale: shipped; Target-Status: implemented; Approved-By: `+regexpQuote(userEmail)+`\}$`, text[0])
}

var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func regexpQuote(s string) string {
	return strings.NewReplacer(".", `\.`, "+", `\+`, "(", `\(`, ")", `\)`).Replace(s)
}

// TestLogSignatureStatus: log says what git's %G? says, G B U N (and E
// where git-records cannot check), computed in-process.
func TestLogSignatureStatus(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	mustRec(t, dir, "create", "--id", "note", "--type", "concept", "--title", "Note", "--category", "misc", "--body", "b\n", "--agent", "a")
	good := tip(t, dir)
	git(t, dir, "branch", "audit", "records")

	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", wt, "audit")
	// N: a hand edit, unsigned.
	matches, _ := filepath.Glob(filepath.Join(wt, "records", "concept", "*", "note.md"))
	require.Len(t, matches, 1)
	f, err := os.OpenFile(matches[0], os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, _ = f.WriteString("more\n")
	require.NoError(t, f.Close())
	git(t, wt, "commit", "-q", "-a", "-m", "hand edit")
	unsigned := strings.TrimSpace(git(t, wt, "rev-parse", "HEAD"))
	// U: a good signature by a key allowed_signers does not list.
	key := filepath.Join(t.TempDir(), "stranger")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "stranger", "-f", key).CombinedOutput()
	require.NoError(t, err, "ssh-keygen: %s", out)
	git(t, wt, "-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "commit", "-q", "-S", "--allow-empty", "-m", "signed by a stranger")
	stranger := strings.TrimSpace(git(t, wt, "rev-parse", "HEAD"))
	git(t, dir, "worktree", "remove", "--force", wt)
	// B: a signed commit whose content no longer matches its signature.
	raw := git(t, dir, "cat-file", "commit", good)
	forged := strings.Replace(raw, "create(concept): Note", "create(concept): Forged", 1)
	forged = regexpReplaceParent(forged, stranger)
	bad := strings.TrimSpace(gitIn(t, dir, forged, "hash-object", "-t", "commit", "-w", "--stdin"))
	// E: an OpenPGP signature, which git-records does not check in-process.
	tree := strings.TrimSpace(git(t, dir, "rev-parse", bad+"^{tree}"))
	pgp := "tree " + tree + "\nparent " + bad + "\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nopenpgp signed\n"
	openpgp := strings.TrimSpace(gitIn(t, dir, pgp, "hash-object", "-t", "commit", "-w", "--stdin"))
	git(t, dir, "update-ref", "refs/heads/audit", openpgp)

	got := map[string]obj{}
	for _, e := range logLines(t, mustRec(t, dir, "--ref", "audit", "log", "--format", "jsonl")) {
		got[e["commit"].(string)] = e
	}
	for _, c := range []struct {
		commit, status, code string
	}{
		{good, "good", "G"}, {unsigned, "unsigned", "N"}, {stranger, "unknown_key", "U"}, {bad, "bad", "B"}, {openpgp, "unverifiable", "E"},
	} {
		e := got[c.commit]
		require.NotNil(t, e, "commit %s is in the log", c.commit)
		assert.Equal(t, c.status, e["signature"], "%s: %v", c.status, e)
		assert.Equal(t, c.code, e["signature_code"], "%s", c.status)
		if c.status == "good" {
			assert.Equal(t, userEmail, e["signer"])
			assert.NotContains(t, e, "signature_detail")
		} else {
			assert.Empty(t, e["signer"], "%s: only a good signature names a signer", c.status)
			assert.NotEmpty(t, e["signature_detail"], "%s says why", c.status)
		}
	}
	// The same judgement as git's own, where git can judge (allowed signers exported by init).
	for commit, want := range map[string]string{good: "G", unsigned: "N", bad: "B"} {
		assert.Equal(t, want, strings.TrimSpace(git(t, dir, "log", "-1", "--format=%G?", commit)), "git %%G? of %s", commit)
	}
	// verify agrees: every non-good signature is a violation.
	r := rec(t, dir, "--json", "verify", "records..audit")
	assert.Equal(t, cmdutil.ExitRefused, r.Code)
	rep := jsonOf[obj](t, r)
	sigViolations := 0
	for _, v := range rep["violations"].([]any) {
		if v.(map[string]any)["rule"] == "signature" {
			sigViolations++
		}
	}
	assert.Equal(t, 4, sigViolations, "%v", rep["violations"])
}

func regexpReplaceParent(raw, parent string) string {
	lines := strings.Split(raw, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "parent ") {
			lines[i] = "parent " + parent
		}
	}
	return strings.Join(lines, "\n")
}
