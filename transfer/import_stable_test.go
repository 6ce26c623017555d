package transfer_test

import (
	"crypto/ed25519"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
	"github.com/git-records/git-records/transfer"
)

// The records an import writes are a function of the source, the clock and
// the key: a change to how the import is computed (in parallel, parsed
// once, written as one pack) must not change one byte of the commit. The
// oids below were taken before the import was made parallel; they change
// only with the record format itself (then take them again, and say why in
// the commit).
func TestImportWritesTheSameCommit(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	writeMixedVault(t, vault, 400)
	require.NoError(t, os.CopyFS(filepath.Join(vault, "obsidian"), os.DirFS(filepath.Join("..", "testdata", "import", "vault"))))
	dir, rep := importWithFixedClockAndKey(t, vault)
	require.NotEmpty(t, rep.Commit)
	assert.Equal(t, 407, len(rep.Created), "400 notes, the chart, the 5 notes of the Obsidian vault and its image")
	assert.Equal(t, 41, len(rep.Unresolved), "the links to missing notes, reported")
	assert.Equal(t, "67da17b85ea30708cc0d77d7ba46ecb3bd199669", gitOut(t, dir, "rev-parse", "refs/heads/records^{tree}"), "the branch's tree")
	assert.Equal(t, "dfa679738e900758f33fd7024edcd7e24c55afbf", rep.Commit, "the signed commit")
	// Importing again changes nothing.
	again, err := svcOf(t, dir).Import(vault, transfer.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
	require.NoError(t, err)
	assert.Empty(t, again.Commit)
	assert.Empty(t, again.Created)
	assert.Equal(t, 407, len(again.Skipped))
}

// writeMixedVault writes n notes in nested folders with YAML front matter
// (tags, aliases, a type, a category, keys the record has no field for),
// some with TOML or JSON front matter, links in every form ([[Name]],
// [[Name|label]], [[Name#heading]], ![[embed]], links to nothing) and an
// attachment, so every path of the mapping is taken.
func writeMixedVault(t *testing.T, dir string, n int) {
	t.Helper()
	name := func(i int) string { return fmt.Sprintf("Note %d about topic %d", i, i%13) }
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("Assets/chart.png", "\x89PNG not really an image")
	for i := range n {
		rel := fmt.Sprintf("Area %d/Project %d/%s.md", i%3, i%7, name(i))
		links := fmt.Sprintf("See [[%s]], [[%s|the earlier one]] and [[%s#Details]].", name((i+1)%n), name((i+7)%n), name((i*31)%n))
		if i%10 == 0 {
			links += fmt.Sprintf(" Also [[Missing %d]] and ![[chart.png]].", i)
		}
		var front string
		switch i % 5 {
		case 0:
			front = fmt.Sprintf("---\ntags: [bench, topic-%d]\naliases: [N%d]\n---\n", i%13, i)
		case 1:
			front = fmt.Sprintf("---\ntitle: \"Titled %d: a note\"\ntype: decision\ncategory: work.area-%d\ntags:\n  - '#t%d'\n  - x\nrating: %d\ncreated: 2026-01-0%dT00:00:00Z\n---\n", i, i%3, i, i, 1+i%9)
		case 2:
			front = fmt.Sprintf("+++\ntitle = \"TOML %d\"\ntags = [\"toml\"]\ndraft = true\n+++\n", i)
		case 3:
			front = fmt.Sprintf("---json\n{\"aliases\": [\"J%d\"], \"tag\": \"json\"}\n---\n", i)
		}
		write(rel, fmt.Sprintf("%s\n# %s\n\n## Details\n\n%s\nBody of note %d.\n", front, name(i), links, i))
	}
}

// importWithFixedClockAndKey inits a store with a key derived from a fixed
// seed and a clock that stands still, and imports vault into it.
func importWithFixedClockAndKey(t *testing.T, vault string) (string, *transfer.Report) {
	t.Helper()
	dir := storeWithFixedClockAndKey(t)
	rep, err := svcOf(t, dir).Import(vault, transfer.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
	require.NoError(t, err)
	return dir, rep
}

// storeWithFixedClockAndKey inits a store with a key derived from a fixed
// seed and a clock that stands still.
func storeWithFixedClockAndKey(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main", "."}, {"config", "user.name", "Alice"}, {"config", "user.email", "alice@example.com"}} {
		gitOut(t, dir, args...)
	}
	s := openFixed(t, dir)
	priv := ed25519.NewKeyFromSeed([]byte("git-records import stable test!!"))
	block, err := ssh.MarshalPrivateKey(priv, "alice@example.com")
	require.NoError(t, err)
	pub, err := ssh.NewPublicKey(priv.Public())
	require.NoError(t, err)
	keyPath := s.SigningKeyPath()
	require.NoError(t, os.MkdirAll(filepath.Dir(keyPath), 0o700))
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(block), 0o600))
	require.NoError(t, os.WriteFile(keyPath+".pub", ssh.MarshalAuthorizedKey(pub), 0o644))
	line, err := s.GenerateSigningKey("alice@example.com")
	require.NoError(t, err)
	_, err = s.Init("alice", line)
	require.NoError(t, err)
	return dir
}

var fixedNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

func openFixed(t *testing.T, dir string) *gitstore.Store {
	t.Helper()
	s, err := gitstore.Open(dir, gitstore.Options{Now: func() time.Time { return fixedNow }})
	require.NoError(t, err)
	return s
}

func svcOf(t *testing.T, dir string) *service.Service { return service.New(openFixed(t, dir), dir) }

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// A crafted vault gets nothing a create could not: checked in parallel, a
// large import is judged by the same rules in the same order. A note's
// front matter naming an id, a type, a history or a provenance is the
// note's data (kept in its properties), never a claim to be a record of
// ours: it cannot rewrite a record the store holds, name a path outside
// the layout, or set who made the record (the import's agent) or its
// mutation log; its dates are the record's times only up to the import.
// It never reads the trust files of a vault (hidden folders are
// skipped). A note that breaks a rule is skipped, naming the rule, and the
// others come in; with --strict nothing does.
func TestImportOfACraftedVault(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	writeMixedVault(t, vault, 150)
	dir, rep := importWithFixedClockAndKey(t, vault)
	require.NotEmpty(t, rep.Commit)
	first := rep.Created[0]
	before := gitOut(t, dir, "rev-parse", "refs/heads/records")
	stored := gitOut(t, dir, "show", "refs/heads/records:"+gitstore.RecordPath("concept", first.ID))
	crafted := filepath.Join(t.TempDir(), "crafted")
	writeMixedVault(t, filepath.Join(crafted, "more"), 100)
	write := func(rel, body string) {
		p := filepath.Join(crafted, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write(".records/allowed_signers", "mallory@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeFakeFakeFakeFakeFakeFakeFakeFakeFakeFake\n")
	write("zz/Takeover.md", "---\nid: "+first.ID+"\ntype: concept\ntitle: Owned\n---\nRewritten by mallory.\n")
	write("zz/Forged.md", "---\nid: forged-history\ntype: concept\ntitle: Forged\ncategory: notes\ncreated_at: 2020-01-01T00:00:00.000Z\nprovenance:\n  agent: mallory\nmutation_log:\n  - op: create\n    at: 2020-01-01T00:00:00.000Z\n    agent: mallory\n    evidence: {}\n---\nHistory from the file.\n")
	write("aa/Escape.md", "---\nid: ../.records/allowed_signers\ntype: concept\ntitle: Escape\ncategory: notes\n---\nTrust me.\n")
	write("zz/Long.md", "---\ntitle: "+strings.Repeat("x", kernel.MaxTitleBytes+1)+"\n---\nA title over the limit.\n")
	tip := gitOut(t, dir, "rev-parse", "refs/heads/records")
	_, err := svcOf(t, dir).Import(crafted, transfer.ImportOptions{Agent: "alice", Strict: true}, kernel.Approval{}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "zz/Long.md: ")
	assert.Equal(t, tip, gitOut(t, dir, "rev-parse", "refs/heads/records"), "--strict: nothing written")

	again, err := svcOf(t, dir).Import(crafted, transfer.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, again.Commit)
	assert.Equal(t, stored, gitOut(t, dir, "show", "refs/heads/records:"+gitstore.RecordPath("concept", first.ID)), "the stored record is not rewritten")
	left := again.LeftOut()
	require.Len(t, left, 1)
	assert.Equal(t, "zz/Long.md", left[0].Origin)
	assert.Equal(t, kernel.SkipRefused, left[0].Reason)
	assert.Contains(t, left[0].Message, "title is 1025 bytes")
	byOrigin := map[string]string{}
	for _, c := range again.Created {
		byOrigin[c.Origin] = c.ID
	}
	assert.Len(t, again.Created, 104, "the 100 notes, the chart and the three crafted notes that break no rule")
	for origin, claimed := range map[string]string{"zz/Takeover.md": first.ID, "zz/Forged.md": "forged-history", "aa/Escape.md": "../.records/allowed_signers"} {
		id := byOrigin[origin]
		require.NotEmpty(t, id, origin)
		assert.NotEqual(t, claimed, id, "%s: its id is derived from its path", origin)
		file := gitOut(t, dir, "show", "refs/heads/records:"+gitstore.RecordPath("concept", id))
		assert.Contains(t, file, "  id: "+claimed, "%s: the id it names is kept as a property", origin)
	}
	forged := gitOut(t, dir, "show", "refs/heads/records:"+gitstore.RecordPath("concept", byOrigin["zz/Forged.md"]))
	assert.Contains(t, forged, "\nprovenance:\n  agent: alice\n", "the record's provenance is the import's")
	assert.Contains(t, forged, "created_at: \"2020-01-01T00:00:00.000Z\"", "the note's date is the record's")
	assert.Contains(t, forged, "\nmutation_log:\n  - op: create\n    at: \""+kernel.At(fixedNow).String()+"\"\n    agent: alice\n", "the log is the import's")
	assert.Empty(t, gitOut(t, dir, "diff", "--name-only", before, "refs/heads/records", "--", ".records"), "the trust files are untouched")
}
