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
	assert.Equal(t, 406, len(rep.Created), "400 notes, the chart, 4 of the Obsidian vault and its image")
	assert.Equal(t, 41, len(rep.Unresolved), "the links to missing notes, reported")
	assert.Equal(t, "913de9e40c3b55b8f84059d27bbefea0eacc1553", gitOut(t, dir, "rev-parse", "refs/heads/records^{tree}"), "the branch's tree")
	assert.Equal(t, "ff5833f609726ae784176c2e3877a0a4ededbbac", rep.Commit, "the signed commit")
	// Importing again changes nothing.
	again, err := svcOf(t, dir).Import(vault, transfer.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
	require.NoError(t, err)
	assert.Empty(t, again.Commit)
	assert.Empty(t, again.Created)
	assert.Equal(t, 406, len(again.Skipped))
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
	rep, err := svcOf(t, dir).Import(vault, transfer.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
	require.NoError(t, err)
	return dir, rep
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
// large import is judged by the same rules in the same order. It cannot
// rewrite a record the store holds (same id, other content: skipped),
// cannot set a record's history (created_at, mutation_log are the
// import's, its agent the importer), never reads the trust files of a
// vault (hidden folders are skipped), and an id that would escape the
// layout fails the whole import, naming the first bad file in walk order.
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
	again, err := svcOf(t, dir).Import(crafted, transfer.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, again.Commit)
	assert.Equal(t, stored, gitOut(t, dir, "show", "refs/heads/records:"+gitstore.RecordPath("concept", first.ID)), "the stored record is not rewritten")
	var takeover *kernel.ImportSkip
	for i, s := range again.Skipped {
		if s.Origin == "zz/Takeover.md" {
			takeover = &again.Skipped[i]
		}
	}
	require.NotNil(t, takeover)
	assert.Equal(t, "differs", takeover.Reason)
	forged := gitOut(t, dir, "show", "refs/heads/records:"+gitstore.RecordPath("concept", "forged-history"))
	assert.NotContains(t, forged, "2020-01-01", "created_at and the log are the import's")
	assert.Contains(t, forged, "agent: alice")
	assert.Empty(t, gitOut(t, dir, "diff", "--name-only", before, "refs/heads/records", "--", ".records"), "the trust files are untouched")

	// Bad ids among good notes: nothing is written, and the error names the
	// first bad file, as a one-at-a-time check would.
	tip := gitOut(t, dir, "rev-parse", "refs/heads/records")
	write("aa/Escape.md", "---\nid: ../.records/allowed_signers\ntype: concept\ntitle: Escape\ncategory: notes\n---\nTrust me.\n")
	write("zz/Later.md", "---\nid: Not/An/Id\ntype: concept\ntitle: Later\ncategory: notes\n---\nAlso bad.\n")
	_, err = svcOf(t, dir).Import(crafted, transfer.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
	require.Error(t, err)
	assert.Equal(t, kernel.CodeInvalidID, kernel.CodeOf(err))
	assert.Contains(t, err.Error(), "aa/Escape.md: ")
	assert.Equal(t, tip, gitOut(t, dir, "rev-parse", "refs/heads/records"), "nothing written")
}
