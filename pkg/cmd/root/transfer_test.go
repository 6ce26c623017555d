package root

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vaultSource is testdata/import/vault: an Obsidian-style vault with
// nested folders, aliases, [[Name|label]], [[Name#heading]], a GFM table
// link, an ![[embed]] of an image and of a note, a TOML-front-matter Hugo
// page, an empty note, a link to nothing and the app's .obsidian folder.
var vaultSource, _ = filepath.Abs(filepath.Join("..", "..", "..", "testdata", "import", "vault"))

type importReport struct {
	Source      string `json:"source"`
	Format      string `json:"format"`
	Digest      string `json:"digest"`
	Commit      string `json:"commit"`
	Created     []struct{ ID, Origin, Title string }
	Updated     []struct{ ID, Origin, Title string }
	Skipped     []struct{ Origin, ID, Reason, Code, Message string }
	Unresolved  []struct{ Origin, ID, Link, Reason string }
	Attachments []struct{ Origin, Path, ID, Payload string }
	Notices     []struct{ Origin, Message string }
}

// records lists the store's records by title (list --json).
func recordsByTitle(t testing.TB, dir string) map[string]obj {
	t.Helper()
	out := map[string]obj{}
	for _, r := range mustJSON[[]obj](t, dir, "list", "--include-retired") {
		out[r["title"].(string)] = r
	}
	return out
}

func TestImportVault(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	rep := mustJSON[importReport](t, dir, "import", vaultSource, "--agent", "alice")
	require.Regexp(t, `^[0-9a-f]{40}$`, rep.Commit)
	assert.Equal(t, "vault", rep.Format)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, rep.Digest)
	var origins []string
	for _, c := range rep.Created {
		origins = append(origins, c.Origin)
	}
	sort.Strings(origins)
	assert.Equal(t, []string{"Daily Notes/2026-11-01.md", "Empty.md", "Projects/Auth/Token refresh.md", "Projects/Auth/diagram.png", "Welcome.md", "content/posts/hugo-page.md"}, origins,
		"every note, the empty one too, the embedded image, nothing from .obsidian")

	byTitle := recordsByTitle(t, dir)
	require.Len(t, byTitle, 6)
	assert.Equal(t, "", byTitle["Empty"]["body"], "an empty note is a record with an empty body")
	welcome, policy, daily, hugo := byTitle["Welcome"], byTitle["Token refresh policy"], byTitle["2026-11-01"], byTitle["Hugo page"]
	require.NotNil(t, policy, "the title comes from the front matter")
	policyID := policy["id"].(string)

	// Front matter mapped: type, category, tags, aliases; folders make the
	// category of a note that names none.
	assert.Equal(t, "decision", policy["type"])
	assert.Equal(t, "auth.tokens", policy["category"])
	assert.Equal(t, []any{"security"}, policy["tags"])
	assert.Equal(t, []any{"refresh-policy", "token-refresh", "token-refresh-policy"}, policy["aliases"])
	assert.Equal(t, "notes.daily-notes", daily["category"])
	assert.Equal(t, "notes.content.posts", hugo["category"])
	assert.Equal(t, []any{"web", "hugo"}, hugo["tags"], "TOML front matter")
	assert.Equal(t, []any{"start", "vault"}, welcome["tags"], "a #tag loses its #")

	// The embedded image is a raw record whose payload is the file, stored
	// once by its hash.
	image := byTitle["diagram.png"]
	require.NotNil(t, image)
	imageID := image["id"].(string)
	png, err := os.ReadFile(filepath.Join(vaultSource, "Projects", "Auth", "diagram.png"))
	require.NoError(t, err)
	payload := image["source"].(map[string]any)["payload"].(string)
	assert.Equal(t, string(png), git(t, dir, "show", "records:payloads/"+strings.TrimPrefix(payload, "sha256:")))
	require.Len(t, rep.Attachments, 1)
	assert.Equal(t, "Projects/Auth/diagram.png", rep.Attachments[0].Path)
	assert.Equal(t, imageID, rep.Attachments[0].ID)
	assert.Equal(t, payload, rep.Attachments[0].Payload)

	// Links rewritten to ids, display text kept; code untouched; the table's
	// escaped pipe kept; the link to nothing as written.
	assert.Equal(t, "\n# Welcome\n\nStart with [["+policyID+"|the refresh policy]], and read\n[["+policyID+"#Rotation|Token refresh]] before changing anything.\n\n"+
		"![["+imageID+"|diagram.png]]\n\nStill to write: [[Missing note]].\n\n| note | link |\n|---|---|\n| daily | [[2026-11-01\\|first day]] |\n", welcome["body"])
	assert.Equal(t, "Met about [[home]].\n\n```\n[[not a link]] inside code\n```\n", daily["body"],
		"a label that is a handle of the target is written as that handle")
	assert.Contains(t, hugo["body"], "![["+policyID+"|Token refresh]]", "a note embed resolves like a link")
	assert.Contains(t, policy["body"], "[["+policyID+"|Refresh policy]]")

	links := mustJSON[obj](t, dir, "links", "token-refresh")
	assert.Len(t, links["reverse"], 3, "the welcome note, the Hugo page's embed and its own [[Refresh policy]] link to the policy")

	// What did not resolve is reported, not dropped.
	require.Len(t, rep.Unresolved, 1)
	assert.Equal(t, "Welcome.md", rep.Unresolved[0].Origin)
	assert.Equal(t, "[[Missing note]]", rep.Unresolved[0].Link)
	var notices []string
	for _, n := range rep.Notices {
		notices = append(notices, n.Origin+": "+n.Message)
	}
	assert.Equal(t, map[string]any{"aliases": []any{"Home"}, "tags": []any{"start", "#vault"}, "cssclasses": "wide"}, welcome["properties"],
		"the front matter is kept as written")

	// One signed commit, op import, with its evidence; verify and git agree.
	trailers := git(t, dir, "log", "-1", "--format=%(trailers:key=Record-Op,valueonly)%(trailers:key=Evidence-Count,valueonly)%(trailers:key=Evidence-Digest,valueonly)", "records")
	assert.Equal(t, "import\n6\n"+rep.Digest+"\n", strings.TrimRight(trailers, "\n")+"\n")
	assert.Equal(t, "2", strings.TrimSpace(git(t, dir, "rev-list", "--count", "records")), "init and one import commit")
	git(t, dir, "verify-commit", "records")
	v := rec(t, dir, "verify")
	assert.Equal(t, 0, v.Code, "%s", v)
	assert.Contains(t, v.Stdout, "0 violations")

	// Importing it again changes nothing, and says so.
	before := tip(t, dir)
	again := mustRec(t, dir, "import", vaultSource, "--agent", "bob")
	assert.Contains(t, again, "nothing to import")
	assert.Contains(t, again, "6 already in the store as they are; no commit")
	assert.Equal(t, before, tip(t, dir))
}

// A note that cannot be read or breaks a rule is skipped and named, the
// rest is imported, and import exits 6; with --strict nothing is written.
func TestImportSkipsANoteItCannotTakeOrRefusesWithStrict(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "good.md"), []byte("fine\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "long.md"), []byte("---\ntitle: "+strings.Repeat("t", 1025)+"\n---\nbody\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "open.md"), []byte("---\ntitle: never closed\n\nbody\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "dup.md"), []byte("---\ntitle: a\ntitle: b\n---\nbody\n"), 0o644))
	before := stateOf(t, dir)

	r := rec(t, dir, "--json", "import", src, "--agent", "alice", "--strict")
	e := requireError(t, r, "INVALID_RECORD", 1)
	assert.Contains(t, e["message"], "--strict: 2 notes cannot be imported, so nothing is")
	assert.Contains(t, e["message"], "dup.md: its front matter does not parse: ")
	assert.Equal(t, before, stateOf(t, dir), "--strict: nothing written")
	refused := t.TempDir()
	require.NoError(t, os.CopyFS(refused, os.DirFS(src)))
	require.NoError(t, os.Remove(filepath.Join(refused, "open.md")))
	require.NoError(t, os.Remove(filepath.Join(refused, "dup.md")))
	r = rec(t, dir, "--json", "import", refused, "--agent", "alice", "--strict")
	e = requireError(t, r, "INVALID_RECORD", 1)
	assert.Contains(t, e["message"], "long.md: title is 1025 bytes")
	assert.Equal(t, "long.md", e["origin"])
	assert.Equal(t, before, stateOf(t, dir), "--strict: a note the rules refuse fails it all")

	r = rec(t, dir, "--json", "import", src, "--agent", "alice")
	assert.Equal(t, 6, r.Code, "%s", r)
	var rep importReport
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rep))
	require.Len(t, rep.Created, 1)
	assert.Equal(t, "good.md", rep.Created[0].Origin)
	reasons := map[string]string{}
	for _, s := range rep.Skipped {
		reasons[s.Origin] = s.Reason + ": " + s.Message
	}
	assert.Equal(t, "unreadable: its front matter is never closed: end it with a line of ---", reasons["open.md"])
	assert.Contains(t, reasons["dup.md"], `unreadable: its front matter does not parse: yaml: unmarshal errors: line 2: mapping key "title" already defined at line 1`)
	assert.Contains(t, reasons["long.md"], "refused: title is 1025 bytes")
	assert.Equal(t, 0, rec(t, dir, "verify").Code)

	r = rec(t, dir, "import", src, "--agent", "alice")
	assert.Equal(t, 6, r.Code, "%s", r)
	assert.Contains(t, r.Stdout, "skipped, not imported (3):\n  dup.md: INVALID_RECORD: its front matter does not parse")

	r = rec(t, dir, "--json", "import", src, "--agent", "alice", "--category", "Not Valid")
	e = requireError(t, r, "USAGE", 2)
	assert.Contains(t, e["message"], "--category")

	r = rec(t, dir, "--json", "import", src)
	e = requireError(t, r, "MISSING_EVIDENCE", 1)
	assert.Equal(t, "--agent", e["flag"])
}

// Importing the same source again brings its changed notes in as updates
// and its new notes as records, in one commit whose evidence names the
// source and its digest; verify accepts it. A record changed here since
// the last import is a conflict: it is not overwritten, and import exits 6.
func TestReimportBringsChangedNotesInAsUpdates(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	src := t.TempDir()
	require.NoError(t, os.CopyFS(src, os.DirFS(vaultSource)))
	first := mustJSON[importReport](t, dir, "import", src, "--agent", "alice")
	require.Len(t, first.Created, 6)

	welcome := filepath.Join(src, "Welcome.md")
	data, err := os.ReadFile(welcome)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(welcome, append(data, "\nA line added in the vault.\n"...), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "New.md"), []byte("A new note, linking [[Welcome]].\n"), 0o644))
	before := tip(t, dir)
	rep := mustJSON[importReport](t, dir, "import", src, "--agent", "alice")
	require.Len(t, rep.Updated, 1)
	assert.Equal(t, "Welcome.md", rep.Updated[0].Origin)
	require.Len(t, rep.Created, 1)
	assert.Equal(t, "New.md", rep.Created[0].Origin)
	assert.Equal(t, "1", strings.TrimSpace(git(t, dir, "rev-list", "--count", before+"..records")), "one commit")
	trailers := git(t, dir, "log", "-1", "--format=%(trailers:key=Record-Op,valueonly)%(trailers:key=Evidence-Count,valueonly)%(trailers:key=Evidence-Source,valueonly)%(trailers:key=Evidence-Digest,valueonly)", "records")
	assert.Equal(t, "import\n2\n"+rep.Source+"\n"+rep.Digest+"\n", strings.TrimRight(trailers, "\n")+"\n")
	w := mustJSON[obj](t, dir, "show", "welcome")
	assert.Contains(t, w["body"], "A line added in the vault.")
	log := w["mutation_log"].([]any)
	assert.Equal(t, "import", log[len(log)-1].(map[string]any)["op"])
	assert.Equal(t, []any{"body"}, log[len(log)-1].(map[string]any)["evidence"].(map[string]any)["fields"])
	v := rec(t, dir, "verify")
	assert.Equal(t, 0, v.Code, "%s", v)

	mustRec(t, dir, "update", "welcome", "--body", "Rewritten here.", "--agent", "bob")
	require.NoError(t, os.WriteFile(welcome, append(data, "\nAnother line from the vault.\n"...), 0o644))
	before = tip(t, dir)
	r := rec(t, dir, "--json", "import", src, "--agent", "alice")
	assert.Equal(t, 6, r.Code, "%s", r)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rep))
	require.Len(t, rep.Skipped, 7)
	var conflict []string
	for _, s := range rep.Skipped {
		if s.Reason == "conflict" {
			conflict = append(conflict, s.Origin+": "+s.Message)
		}
	}
	require.Len(t, conflict, 1)
	assert.Contains(t, conflict[0], "Welcome.md: its note changed in the source, and its record was changed here since its last import (update by bob at ")
	assert.Equal(t, before, tip(t, dir), "nothing else changed: no commit")
	assert.Equal(t, "Rewritten here.", mustJSON[obj](t, dir, "show", "welcome")["body"])
}

// A Knowledge Kit default store: records/<id>.md with links in the front
// matter and graph-index.json beside them; and JSONL of contract records,
// whose links repeat the body's wikilinks (dropped: the body has them).
func TestImportKnowledgeKitStoreAndJSONL(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	kk := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(kk, "records"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(kk, "graph-index.json"), []byte(`{"schema_version":"1.0","forward":{},"reverse":{}}`), 0o644))
	kkRecord := func(id, title, extra string) {
		data := "---\nid: " + id + "\ntype: concept\ntitle: " + title + "\ncategory: kb.auth\ntags: [a]\naliases: [kb/" + id[:4] + "]\n" +
			"created_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\nprovenance:\n  agent: kk-agent\n" + extra +
			"mutation_log:\n  - op: create\n    at: 2026-01-01T00:00:00.000Z\n    agent: kk-agent\n    evidence: {}\nflow_state: x\n---\n\nBody of " + title + ".\n"
		require.NoError(t, os.WriteFile(filepath.Join(kk, "records", id+".md"), []byte(data), 0o644))
	}
	kkRecord("aaaaaaaa-1111-4111-8111-111111111111", "First", "links:\n  - target_id: bbbbbbbb-2222-4222-8222-222222222222\n    kind: depends_on\n")
	kkRecord("bbbbbbbb-2222-4222-8222-222222222222", "Second", "")
	rep := mustJSON[importReport](t, dir, "import", kk, "--agent", "alice")
	assert.Equal(t, "kk", rep.Format)
	require.Len(t, rep.Created, 2)
	first := mustJSON[obj](t, dir, "show", "aaaaaaaa-1111-4111-8111-111111111111")
	assert.Equal(t, "kb.auth", first["category"])
	assert.Equal(t, "kk-agent", first["provenance"].(map[string]any)["agent"], "a record's own provenance is kept")
	assert.Equal(t, []any{map[string]any{"target_id": "bbbbbbbb-2222-4222-8222-222222222222", "kind": "depends_on"}}, first["links"])
	assert.Equal(t, map[string]any{"flow_state": "x"}, first["properties"], "a key the record format lacks is kept")

	jsonl := filepath.Join(t.TempDir(), "records.jsonl")
	lines := []string{
		`{"id":"cccc0001","type":"raw","title":"Third","category":"kb.raw","body":"Cites [[aaaaaaaa-1111-4111-8111-111111111111|First]].","links":[{"target_id":"aaaaaaaa-1111-4111-8111-111111111111","kind":"related","label":"First"}]}`,
		``,
		`{"id":"cccc0002","type":"concept","title":"Fourth","category":"kb.c","body":"Points at [[kb/bbbb]] and [[cccc0001]]."}`,
	}
	require.NoError(t, os.WriteFile(jsonl, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	rep = mustJSON[importReport](t, dir, "import", jsonl, "--agent", "alice")
	assert.Equal(t, "jsonl", rep.Format)
	require.Len(t, rep.Created, 2)
	assert.Empty(t, rep.Unresolved)
	third := mustJSON[obj](t, dir, "show", "cccc0001")
	assert.Equal(t, "raw", third["type"])
	shard := sha256.Sum256([]byte("cccc0001")) // records/<type>/<first byte of sha256(id)>/<id>.md
	raw := git(t, dir, "show", fmt.Sprintf("records:records/raw/%02x/cccc0001.md", shard[0]))
	assert.NotContains(t, raw, "\nlinks:", "a body wikilink is not copied into the front matter")
	assert.Empty(t, rec(t, dir, "verify").Stderr)
	assert.Equal(t, 0, rec(t, dir, "verify").Code)
}

// An import's objects are written as one pack, not a loose object per
// record.
func TestImportWritesOnePack(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	src := t.TempDir()
	for i := range 150 {
		name := filepath.Join(src, "folder", "note "+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strconv.Itoa(i)+".md")
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, []byte("Note "+strconv.Itoa(i)+" links [[note a0]].\n"), 0o644))
	}
	loose := func() string {
		for _, l := range strings.Split(git(t, dir, "count-objects", "-v"), "\n") {
			if strings.HasPrefix(l, "count: ") {
				return l
			}
		}
		return ""
	}
	before := loose()
	rep := mustJSON[importReport](t, dir, "import", src, "--agent", "alice")
	require.Len(t, rep.Created, 150)
	assert.Equal(t, before, loose(), "no loose object written")
	packs, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	require.NoError(t, err)
	require.Len(t, packs, 1)
	git(t, dir, "fsck", "--strict", "--no-dangling")
	assert.Equal(t, 0, rec(t, dir, "verify").Code)
}

// Export as a vault and as JSONL, then import each into a new store: the
// same records come back (their history starts anew at the import).
func TestExportThenImportRoundTrips(t *testing.T) {
	t.Parallel()
	a := newRepo(t)
	std := []string{"--agent", "alice"}
	rfc := createID(t, a, append([]string{"--type", "raw", "--id", "rfc-6749", "--category", "auth.standards", "--title", "RFC 6749: OAuth 2.0", "--body", "Section 10.4."}, std...)...)
	policy := createID(t, a, append([]string{"--type", "concept", "--category", "auth.tokens", "--alias", "auth/token-refresh", "--tag", "security",
		"--title", "Token refresh", "--link", "depends_on:" + rfc,
		"--body", "Rotate, as [[rfc-6749|the RFC]] and [[" + rfc + "#Section 10]] allow.\n\n| a | b |\n|---|---|\n| x | [[auth/token-refresh\\|self]] |\n\nNot yet: [[nothing-here]]."}, std...)...)
	twin1 := createID(t, a, append([]string{"--type", "concept", "--category", "auth.tokens", "--title", "Token refresh", "--alias", "auth/twin", "--body", "Same title as [[" + policy[:8] + "]] and [[auth/token-refresh]]."}, std...)...)
	twin2 := createID(t, a, append([]string{"--type", "concept", "--category", "misc", "--title", "token REFRESH", "--body", "A third one, see [[" + twin1 + "]]."}, std...)...)
	same := createID(t, a, append([]string{"--type", "raw", "--category", "misc", "--title", "rfc 6749: oauth 2.0", "--body", "Another copy of [[rfc-6749]]."}, std...)...)
	mustRec(t, a, append([]string{"supersede", twin2, twin1, "--rationale", "merged"}, std...)...)
	mustRec(t, a, append([]string{"retire", rfc, "--rationale", "old"}, std...)...)

	original := map[string]obj{}
	for _, r := range mustJSON[[]obj](t, a, "list", "--include-retired") {
		original[r["id"].(string)] = r
	}
	require.Len(t, original, 5)
	content := func(r obj) obj {
		c := obj{}
		for k, v := range r {
			switch k {
			case "created_at", "updated_at", "mutation_log":
			default:
				c[k] = v
			}
		}
		return c
	}

	vault := filepath.Join(t.TempDir(), "vault")
	out := mustJSON[obj](t, a, "export", vault)
	assert.Equal(t, float64(5), out["records"])
	// Readable, unique names from titles (case-insensitively), folders by
	// category, links rewritten to the names with what they displayed.
	var files []string
	require.NoError(t, filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(vault, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	}))
	sort.Strings(files)
	assert.Equal(t, []string{"auth/standards/RFC 6749 OAuth 2.0 (rfc-6749).md", "auth/token-refresh.md", "auth/twin.md",
		"misc/rfc 6749 oauth 2.0 (" + same[:8] + ").md", "misc/token REFRESH.md"}, files,
		"named by alias, else by title in the category's folder, a title two share with the id's first characters")
	policyFile, err := os.ReadFile(filepath.Join(vault, "auth/token-refresh.md"))
	require.NoError(t, err)
	assert.Contains(t, string(policyFile), "\nid: "+policy+"\n", "the frontmatter is kept")
	assert.Contains(t, string(policyFile), "Rotate, as [[RFC 6749 OAuth 2.0 (rfc-6749)|the RFC]] and [[RFC 6749 OAuth 2.0 (rfc-6749)#Section 10|rfc-6749]] allow.")
	assert.Contains(t, string(policyFile), "[[auth/token-refresh\\|self]]")
	assert.Contains(t, string(policyFile), "[[nothing-here]]")

	b := newRepo(t)
	rep := mustJSON[importReport](t, b, "import", vault, "--agent", "bob")
	require.Len(t, rep.Created, 5)
	assert.Equal(t, []struct{ Origin, ID, Link, Reason string }{{"auth/token-refresh.md", policy, "[[nothing-here]]", "no note or record has that name"}}, rep.Unresolved)
	for _, r := range mustJSON[[]obj](t, b, "list", "--include-retired") {
		assert.Equal(t, content(original[r["id"].(string)]), content(r), "record %s after a vault round trip", r["id"])
	}
	assert.Equal(t, 0, rec(t, b, "verify").Code)
	assert.Contains(t, mustRec(t, b, "import", vault, "--agent", "bob"), "no commit", "and again: nothing")

	jsonl := filepath.Join(t.TempDir(), "records.jsonl")
	mustRec(t, a, "export", jsonl, "--format", "jsonl")
	c := newRepo(t)
	rep = mustJSON[importReport](t, c, "import", jsonl, "--agent", "carol")
	require.Len(t, rep.Created, 5)
	for _, r := range mustJSON[[]obj](t, c, "list", "--include-retired") {
		assert.Equal(t, content(original[r["id"].(string)]), content(r), "record %s after a JSONL round trip", r["id"])
	}
	stdout := rec(t, a, "export", "-", "--format", "jsonl")
	assert.Equal(t, 5, strings.Count(stdout.Stdout, "\n"))
}

// The vault of TestImportVault, imported, exported and imported into a
// new store: the notes and the image where the source had them, and the
// same records. A note read as its source wrote it is the import's, so
// its provenance names who imported it (bob), as its log does.
func TestImportedVaultRoundTrips(t *testing.T) {
	t.Parallel()
	a := newRepo(t)
	mustRec(t, a, "import", vaultSource, "--agent", "alice")
	vault := filepath.Join(t.TempDir(), "out")
	out := mustJSON[obj](t, a, "export", vault)
	assert.Equal(t, "obsidian", out["kind"])
	assert.EqualValues(t, 5, out["notes"])
	assert.EqualValues(t, 1, out["attachments"])
	image, err := os.ReadFile(filepath.Join(vault, "Projects", "Auth", "diagram.png"))
	require.NoError(t, err, "the attachment is written where the source had it")
	png, err := os.ReadFile(filepath.Join(vaultSource, "Projects", "Auth", "diagram.png"))
	require.NoError(t, err)
	assert.Equal(t, png, image)
	assert.FileExists(t, filepath.Join(vault, "Projects", "Auth", "Token refresh.md"))

	b := newRepo(t)
	rep := mustJSON[importReport](t, b, "import", vault, "--agent", "bob")
	require.Len(t, rep.Created, 6)
	want, got := recordsByTitle(t, a), recordsByTitle(t, b)
	for title, r := range want {
		for _, k := range []string{"created_at", "updated_at", "mutation_log", "provenance"} {
			delete(r, k)
			delete(got[title], k)
		}
		assert.Equal(t, r, got[title], "record %q", title)
	}
	assert.Equal(t, 0, rec(t, b, "verify").Code)
}
