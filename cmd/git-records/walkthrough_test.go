package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/storetest"
)

// createIDIn is createID with stdin.
func createIDIn(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	r := recIn(t, dir, stdin, append([]string{"--json", "create"}, args...)...)
	require.Equal(t, 0, r.code, "%s", r)
	id, _ := jsonOf[obj](t, r)["id"].(string)
	require.NotEmpty(t, id, "%s", r)
	return id
}

// ids picks the ids of a JSON list of records.
func ids(rs []obj) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r["id"].(string))
	}
	slices.Sort(out)
	return out
}

func recordPath(typ, id string) string {
	sum := sha256.Sum256([]byte(id))
	return "records/" + typ + "/" + hex.EncodeToString(sum[:])[:2] + "/" + id + ".md"
}

// TestWalkthrough drives every command the way a user would, in one
// repository, with --json on each, and then checks the branch with git.
func TestWalkthrough(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", dir)
	var ops []string // Record-Op of every commit, oldest first
	mutated := func(op string, out obj, wantID string) {
		t.Helper()
		ops = append(ops, op)
		assert.Equal(t, wantID, out["id"], "%s reports the record it changed", op)
		assert.Regexp(t, `^[0-9a-f]{40}$`, out["commit"], "%s names its commit", op)
		assert.Equal(t, out["commit"], tip(t, dir), "%s: the branch is at the commit it printed", op)
	}

	// init
	in := mustJSON[obj](t, dir, "init", "--generate-key")
	ops = append(ops, "init")
	assert.Equal(t, "refs/heads/records", in["ref"])
	assert.Equal(t, true, in["created"])
	assert.Equal(t, in["commit"], tip(t, dir))
	require.FileExists(t, in["signing_key"].(string))
	require.FileExists(t, in["allowed_signers"].(string))
	assert.Equal(t, in["allowed_signers"], strings.TrimSpace(git(t, dir, "config", "gpg.ssh.allowedSignersFile")),
		"init points git at the allowed signers, so verify-commit works")
	again := mustJSON[obj](t, dir, "init", "--generate-key")
	assert.Equal(t, false, again["created"], "a second init changes nothing")
	assert.Equal(t, in["commit"], tip(t, dir))

	// create: --body-file and a chosen id
	rfcFile := filepath.Join(t.TempDir(), "rfc.md")
	rfcBody := "# OAuth 2.0\n\nSection 6: refreshing an access token.\n"
	require.NoError(t, os.WriteFile(rfcFile, []byte(rfcBody), 0o644))
	rfc := createID(t, dir, "--type", "raw", "--id", "rfc-6749", "--title", "RFC 6749", "--category", "standards.oauth",
		"--agent", "alice", "--body-file", rfcFile)
	ops = append(ops, "create")
	assert.Equal(t, "rfc-6749", rfc)

	// create: tags, alias, --link KIND:TARGET and a wikilink in --body
	conceptBody := "Refresh tokens rotate on use. See [[rfc-6749|the RFC]].\n"
	concept := createID(t, dir, "--type", "concept", "--title", "Token refresh", "--category", "auth.tokens",
		"--tag", "auth", "--tag", "tokens", "--alias", "auth/token-refresh", "--link", "source:rfc-6749",
		"--body", conceptBody, "--agent", "alice", "--note", "from the review of PR 42")
	ops = append(ops, "create")
	assert.Regexp(t, `^[a-z2-7]{26}$`, concept, "generated ids are 26 base32 characters")

	// create: the body from stdin, with "-" and with --body-file -; a body
	// full of things a codec could get wrong comes back byte for byte.
	trickyBody := "---\ntitle: not frontmatter\n---\r\nCRLF line\r\ntrailing spaces   \n\tTab, ünïcödé, [[rfc-6749]]\n\n\nno final newline"
	review := createIDIn(t, dir, trickyBody, "--type", "review.finding", "--title", "Refresh token reuse", "--category", "auth.tokens",
		"--link", "rfc-6749", "--agent", "bob", "-")
	ops = append(ops, "create")
	note := createIDIn(t, dir, "A note.\n", "--type", "concept", "--title", "Scratch note", "--category", "scratch",
		"--agent", "bob", "--body-file", "-")
	ops = append(ops, "create")

	// create prints the bare id for people
	plain := mustRec(t, dir, "create", "--type", "concept", "--id", "token-refresh-v2", "--title", "Token refresh v2",
		"--category", "auth", "--body", "Rotate weekly.", "--agent", "alice")
	ops = append(ops, "create")
	assert.Equal(t, "token-refresh-v2\n", plain)
	v2 := "token-refresh-v2"

	// show: by id, alias and 8-character prefix give the same record
	byID := mustJSON[obj](t, dir, "show", concept)
	assert.Equal(t, byID, mustJSON[obj](t, dir, "show", "auth/token-refresh"), "show by alias")
	assert.Equal(t, byID, mustJSON[obj](t, dir, "show", concept[:8]), "show by 8-character prefix")
	assert.Equal(t, concept, byID["id"])
	assert.Equal(t, "concept", byID["type"])
	assert.Equal(t, "Token refresh", byID["title"])
	assert.Equal(t, "auth.tokens", byID["category"])
	assert.Equal(t, "active", byID["status"])
	assert.Equal(t, []any{"auth", "tokens"}, byID["tags"], "tags keep their order")
	assert.Equal(t, []any{"auth/token-refresh"}, byID["aliases"])
	assert.Equal(t, conceptBody, byID["body"])
	assert.Equal(t, "alice", byID["provenance"].(map[string]any)["agent"])
	assert.Regexp(t, timestampRE, byID["created_at"])
	assert.Equal(t, byID["created_at"], byID["updated_at"])
	assert.True(t, storetest.HasLink(byID["links"], obj{"target_id": "rfc-6749", "kind": "source"}), "--link source:rfc-6749: %v", byID["links"])
	assert.True(t, storetest.HasLink(byID["links"], obj{"target_id": "rfc-6749", "kind": "related", "label": "the RFC"}),
		"the body's wikilink is a related link with its label: %v", byID["links"])
	log0 := byID["mutation_log"].([]any)[0].(map[string]any)
	assert.Equal(t, "create", log0["op"])
	assert.Equal(t, rfcBody, mustJSON[obj](t, dir, "show", rfc)["body"], "--body-file")
	rv := mustJSON[obj](t, dir, "show", review)
	assert.Equal(t, trickyBody, rv["body"], "the body comes back byte for byte")
	assert.True(t, storetest.HasLink(rv["links"], obj{"target_id": "rfc-6749", "kind": "related"}), "--link TARGET alone is related")
	assert.Equal(t, "A note.\n", mustJSON[obj](t, dir, "show", note)["body"], "--body-file -")

	// show for people
	human := mustRec(t, dir, "show", "auth/token-refresh")
	assert.Contains(t, human, "Token refresh")
	assert.Contains(t, human, "auth/token-refresh")
	assert.True(t, strings.HasSuffix(human, "\n"+conceptBody), "show ends with the body:\n%s", human)

	// update: title, tags (replaced), one more alias
	mutated("update", mustJSON[obj](t, dir, "update", "auth/token-refresh", "--title", "Token refresh policy",
		"--tag", "auth", "--tag", "rotation", "--alias", "auth/refresh", "--agent", "bob", "--note", "renamed"), concept)
	up := mustJSON[obj](t, dir, "show", "auth/refresh")
	assert.Equal(t, concept, up["id"], "the new alias resolves")
	assert.Equal(t, "Token refresh policy", up["title"])
	assert.Equal(t, []any{"auth", "rotation"}, up["tags"])
	assert.Equal(t, []any{"auth/token-refresh", "auth/refresh"}, up["aliases"])
	assert.Equal(t, byID["created_at"], up["created_at"], "created_at never changes")
	assert.Equal(t, conceptBody, up["body"], "update leaves the body alone")

	// link, and links both ways
	mutated("link", mustJSON[obj](t, dir, "link", review, "--to", "auth/token-refresh", "--kind", "example",
		"--label", "see also", "--agent", "bob"), review)
	relink := mustJSON[obj](t, dir, "link", review, "--to", concept[:8], "--kind", "example", "--agent", "bob")
	assert.Equal(t, obj{"id": review, "unchanged": true}, relink, "an existing link writes nothing")
	assert.Equal(t, review+" unchanged\n", mustRec(t, dir, "link", review, "--to", concept, "--kind", "example", "--agent", "bob"))
	links := mustJSON[obj](t, dir, "links", concept)
	require.Contains(t, links, "forward")
	require.Contains(t, links, "reverse")
	assert.True(t, storetest.HasLink(links["forward"], obj{"target_id": "rfc-6749", "kind": "source"}), "forward: %v", links)
	assert.True(t, storetest.HasLink(links["reverse"], obj{"source_id": review, "kind": "example"}), "reverse: %v", links)
	humanLinks := mustRec(t, dir, "links", concept)
	assert.Contains(t, humanLinks, "→ source")
	assert.Contains(t, humanLinks, "← example")
	assert.Contains(t, humanLinks, review)

	// propose, apply; propose, reject
	mutated("propose", mustJSON[obj](t, dir, "propose", "auth/token-refresh", "--proposer", review[:8],
		"--proposal", "rotate weekly, not on use", "--agent", "carol"), concept)
	assert.True(t, storetest.HasLink(mustJSON[obj](t, dir, "show", review)["links"], obj{"target_id": concept, "kind": "proposes"}),
		"the proposer gets a proposes link")
	newBody := "Refresh tokens rotate weekly.\n"
	mutated("apply", mustJSON[obj](t, dir, "apply", concept, "--proposer", review, "--rationale", "matches the RFC",
		"--body", newBody, "--agent", "carol"), concept)
	assert.Equal(t, newBody, mustJSON[obj](t, dir, "show", concept)["body"], "apply replaces the body")
	mutated("propose", mustJSON[obj](t, dir, "propose", concept, "--proposer", review,
		"--proposal", "rotate daily", "--agent", "carol"), concept)
	mutated("reject", mustJSON[obj](t, dir, "reject", concept, "--proposer", review, "--reason", "too strict",
		"--agent", "carol"), concept)
	afterReject := mustJSON[obj](t, dir, "show", concept)
	assert.Equal(t, newBody, afterReject["body"], "reject leaves the concept's content alone")
	var logOps []string
	for _, e := range afterReject["mutation_log"].([]any) {
		logOps = append(logOps, e.(map[string]any)["op"].(string))
	}
	assert.Equal(t, []string{"create", "update", "propose", "apply", "propose", "reject"}, logOps)

	// update: expiry and ttl, set and cleared; --body-file
	mutated("update", mustJSON[obj](t, dir, "update", note, "--expires-at", "2030-01-01T00:00:00.000Z", "--agent", "bob"), note)
	assert.Equal(t, "2030-01-01T00:00:00.000Z", mustJSON[obj](t, dir, "show", note)["expires_at"])
	mutated("update", mustJSON[obj](t, dir, "update", note, "--expires-at", "", "--ttl-seconds", "0.001", "--agent", "bob"), note)
	shown := mustJSON[obj](t, dir, "show", note)
	assert.NotContains(t, shown, "expires_at", "--expires-at \"\" clears it")
	assert.Equal(t, 0.001, shown["ttl_seconds"])
	assert.Equal(t, []string{note}, ids(mustJSON[[]obj](t, dir, "list", "--stale")), "past its ttl")
	newNote := filepath.Join(t.TempDir(), "note.md")
	require.NoError(t, os.WriteFile(newNote, []byte("A longer note.\n"), 0o644))
	mutated("update", mustJSON[obj](t, dir, "update", note, "--ttl-seconds", "", "--body-file", newNote, "--agent", "bob"), note)
	shown = mustJSON[obj](t, dir, "show", note)
	assert.NotContains(t, shown, "ttl_seconds", "--ttl-seconds \"\" clears it")
	assert.Equal(t, "A longer note.\n", shown["body"])
	assert.Empty(t, mustJSON[[]obj](t, dir, "list", "--stale"))

	// supersede
	mutated("supersede", mustJSON[obj](t, dir, "supersede", v2, concept, "--rationale", "v2 replaces it", "--agent", "dave"), v2)
	assert.True(t, storetest.HasLink(mustJSON[obj](t, dir, "links", concept)["reverse"], obj{"source_id": v2, "kind": "supersedes"}))
	assert.True(t, storetest.HasLink(mustJSON[obj](t, dir, "show", v2)["links"], obj{"target_id": concept, "kind": "supersedes"}))

	// retire, and implemented
	mutated("retire", mustJSON[obj](t, dir, "retire", note, "--rationale", "obsolete", "--agent", "dave"), note)
	assert.Equal(t, "retired", mustJSON[obj](t, dir, "show", note)["status"], "a retired record still shows")
	mutated("retire", mustJSON[obj](t, dir, "retire", review, "--status", "implemented", "--implemented-by", "PR-43",
		"--rationale", "fixed", "--agent", "dave"), review)
	assert.Equal(t, "implemented", mustJSON[obj](t, dir, "show", review)["status"])

	// list and its filters
	all := []string{rfc, concept, review, v2}
	assert.Equal(t, storetest.Sorted(all...), ids(mustJSON[[]obj](t, dir, "list")), "list leaves retired records out")
	assert.Equal(t, storetest.Sorted(append(all, note)...), ids(mustJSON[[]obj](t, dir, "list", "--include-retired")))
	assert.Equal(t, storetest.Sorted(concept, v2), ids(mustJSON[[]obj](t, dir, "list", "--type", "concept")))
	assert.Equal(t, []string{v2}, ids(mustJSON[[]obj](t, dir, "list", "--category", "auth")))
	assert.Equal(t, storetest.Sorted(concept, review, v2), ids(mustJSON[[]obj](t, dir, "list", "--category", "auth", "--prefix")))
	assert.Equal(t, []string{concept}, ids(mustJSON[[]obj](t, dir, "list", "--tag", "rotation")))
	assert.Equal(t, []string{review}, ids(mustJSON[[]obj](t, dir, "list", "--status", "implemented")))
	assert.Equal(t, []string{note}, ids(mustJSON[[]obj](t, dir, "list", "--status", "retired", "--include-retired")))
	assert.Empty(t, mustJSON[[]obj](t, dir, "list", "--type", "person"), "an empty list is [] in JSON")
	assert.Equal(t, "[]\n", mustRec(t, dir, "--json", "list", "--type", "person"))
	listed := strings.Split(strings.TrimSpace(mustRec(t, dir, "list")), "\n")
	assert.Len(t, listed, len(all), "one line per record:\n%s", strings.Join(listed, "\n"))
	for _, l := range listed {
		assert.Contains(t, []string{rfc, concept[:8], review[:8], v2[:8]}, strings.Fields(l)[0], "list shows short ids: %q", l)
	}

	// log of one record: newest first, signed, with op and agent
	hist := mustJSON[[]obj](t, dir, "log", concept)
	var histOps []string
	for _, e := range hist {
		histOps = append(histOps, e["op"].(string))
		assert.Equal(t, true, e["signed"], "%v", e)
		assert.Regexp(t, `^[0-9a-f]{40}$`, e["commit"])
		assert.NotEmpty(t, e["agent"])
	}
	assert.Equal(t, []string{"supersede", "reject", "propose", "apply", "propose", "update", "create"}, histOps)
	assert.Len(t, strings.Split(strings.TrimSpace(mustRec(t, dir, "log", "auth/refresh")), "\n"), len(histOps))
	assert.Len(t, mustJSON[[]obj](t, dir, "log"), len(ops), "log without a record is the whole branch")
	assert.Len(t, mustJSON[[]obj](t, dir, "log", "-n", "2"), 2)

	// reindex finds no drift in an index this process kept up
	ri := mustJSON[obj](t, dir, "reindex")
	assert.Equal(t, false, ri["changed"], "%v", ri)
	assert.EqualValues(t, 5, ri["records"])
	assert.NotContains(t, ri, "broken")
	assert.Equal(t, "current", ri["state"], "%v", ri)
	assert.Contains(t, mustRec(t, dir, "reindex"), "5 records")

	// git's view of the branch
	verifyAll(t, dir, len(ops))
	assert.Contains(t, git(t, dir, "log", "-1", "--show-signature", "refs/heads/records"), `Good "git" signature for `+userEmail)
	slices.Reverse(ops)
	assert.Equal(t, ops, opsOnBranch(t, dir), "git log --format=%%(trailers:key=Record-Op) lists every op")
	assert.Empty(t, strings.TrimSpace(git(t, dir, "rev-list", "--merges", "refs/heads/records")))
	assert.Equal(t, "1", strings.TrimSpace(git(t, dir, "rev-list", "--count", "--max-parents=0", "refs/heads/records")))
	fsckClean(t, dir)

	files := strings.Split(strings.TrimSpace(git(t, dir, "ls-tree", "-r", "--name-only", "refs/heads/records")), "\n")
	for _, want := range []string{".records/format", ".records/allowed_signers", recordPath("raw", rfc),
		recordPath("concept", concept), recordPath("review.finding", review), recordPath("concept", v2)} {
		assert.Contains(t, files, want)
	}
	file := git(t, dir, "show", "refs/heads/records:"+recordPath("raw", rfc))
	assert.True(t, strings.HasPrefix(file, "---\n"), "a record file starts with frontmatter:\n%s", file)
	assert.Contains(t, file, "id: rfc-6749\n")
	assert.True(t, strings.HasSuffix(file, rfcBody), "and ends with the body:\n%s", file)

	// The user's own branch and working tree are untouched.
	assert.Empty(t, git(t, dir, "status", "--porcelain"))
	assert.NotEqual(t, 0, execIn(t, dir, "", "git", "rev-parse", "-q", "--verify", "HEAD").code, "HEAD is still unborn")
}

// TestWhereItRuns runs the CLI from a subdirectory, a linked worktree and
// bare repositories, as git runs its own commands.
func TestWhereItRuns(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	git(t, "", "init", "-q", repo)
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "code")
	mustRec(t, repo, "init", "--generate-key")

	// a subdirectory, through git's own dispatch
	sub := filepath.Join(repo, "a", "b")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	fromSub := createID(t, sub, "--type", "concept", "--title", "From a subdirectory", "--category", "c", "--body", "b", "--agent", "a")
	r := execIn(t, sub, "", "git", "records", "--json", "show", fromSub)
	require.Equal(t, 0, r.code, "%s", r)
	assert.Equal(t, fromSub, jsonOf[obj](t, r)["id"])

	// a linked worktree shares the branch
	wt := filepath.Join(root, "wt")
	git(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	fromWT := strings.TrimSpace(execIn(t, wt, "", "git", "records", "create", "--type", "concept", "--title", "From a worktree",
		"--category", "c", "--body", "b", "--agent", "a").stdout)
	require.NotEmpty(t, fromWT)
	assert.Equal(t, storetest.Sorted(fromSub, fromWT), ids(mustJSON[[]obj](t, repo, "list")), "the main worktree sees it")
	assert.Equal(t, storetest.Sorted(fromSub, fromWT), ids(mustJSON[[]obj](t, wt, "list")))
	verifyAll(t, repo, 3)
	verifyAll(t, wt, 3)
	_, err := os.Stat(filepath.Join(repo, ".git", "worktrees", "wt", "refs", "heads", "records"))
	assert.True(t, os.IsNotExist(err), "the branch is shared, not per worktree")

	// a bare repository: `cd bare.git && git records …`
	bare := filepath.Join(root, "bare.git")
	git(t, "", "init", "-q", "--bare", bare)
	r = execIn(t, bare, "", "git", "records", "init", "--generate-key")
	require.Equal(t, 0, r.code, "%s", r)
	inBare := strings.TrimSpace(execIn(t, bare, "", "git", "records", "create", "--type", "concept", "--title", "In a bare repository",
		"--category", "c", "--body", "b", "--agent", "a").stdout)
	require.NotEmpty(t, inBare)
	verifyAll(t, bare, 2)
	// and `git --git-dir=bare.git records …` from outside it
	r = execIn(t, root, "", "git", "--git-dir=bare.git", "records", "--json", "list")
	require.Equal(t, 0, r.code, "%s", r)
	assert.Equal(t, []string{inBare}, ids(jsonOf[[]obj](t, r)))
	r = execIn(t, root, "", "git", "--git-dir=bare.git", "records", "--json", "create", "--type", "concept",
		"--title", "Through --git-dir", "--category", "c", "--body", "b", "--agent", "a")
	require.Equal(t, 0, r.code, "%s", r)
	viaGitDir := jsonOf[obj](t, r)["id"].(string)
	assert.Equal(t, storetest.Sorted(inBare, viaGitDir), ids(mustJSON[[]obj](t, bare, "list")))
	fsckClean(t, bare)

	// records travel with plain git: push the branch to a second bare
	// repository and read it there
	mirror := filepath.Join(root, "mirror.git")
	git(t, "", "init", "-q", "--bare", mirror)
	git(t, repo, "push", "-q", mirror, "records")
	r = execIn(t, root, "", "git", "--git-dir=mirror.git", "records", "--json", "list")
	require.Equal(t, 0, r.code, "%s", r)
	assert.Equal(t, storetest.Sorted(fromSub, fromWT), ids(jsonOf[[]obj](t, r)))

	// --ref and records.ref choose the branch; only init creates one
	mustRec(t, repo, "--ref", "team-notes", "init")
	other := createID(t, repo, "--ref", "team-notes", "--type", "concept", "--title", "On another branch",
		"--category", "c", "--body", "b", "--agent", "a")
	assert.NotEmpty(t, strings.TrimSpace(git(t, repo, "rev-parse", "--verify", "refs/heads/team-notes")))
	assert.Equal(t, storetest.Sorted(fromSub, fromWT), ids(mustJSON[[]obj](t, repo, "list")), "the default branch does not see it")
	git(t, repo, "config", "records.ref", "team-notes")
	assert.Equal(t, []string{other}, ids(mustJSON[[]obj](t, repo, "list")))
	git(t, repo, "config", "--unset", "records.ref")

	// outside any repository
	outside := t.TempDir()
	requireError(t, rec(t, outside, "--json", "list"), "NOT_A_STORE", exitSetup)
}
