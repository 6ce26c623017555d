package transfer_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/transfer"
)

// markerOf is the file an export writes at the root of a vault for each
// tool, by which the tool and the import know it.
var markerOf = map[string]string{
	"obsidian": ".obsidian/app.json", "zk": ".zk/config.toml", "foam": ".vscode/extensions.json",
	"dendron": "dendron.yml", "hugo": "hugo.toml", "jekyll": "_config.yml",
}

// Each small vault, imported and exported, comes back as its source wrote
// it: the same files at the same paths (the notes the import read and the
// attachments they embed), each body byte for byte, each front matter
// with the same keys and values (read apart from the importer: YAML or
// TOML by its delimiter), each attachment byte for byte, and the file the
// tool keeps at its root. The export imported into a new store gives the
// same records: ids, fields, bodies, links, properties, written_as; and
// their export is the same vault.
func TestExportGivesEachVaultBack(t *testing.T) {
	for _, kind := range []string{"obsidian", "zk", "foam", "dendron", "hugo-yaml", "hugo-toml", "jekyll"} {
		t.Run(kind, func(t *testing.T) {
			source := filepath.Join("..", "testdata", "import", "kinds", kind)
			tool := strings.TrimSuffix(strings.TrimSuffix(kind, "-yaml"), "-toml")
			dir, rep := importWithFixedClockAndKey(t, source)
			vault := filepath.Join(t.TempDir(), "vault")
			out, err := svcOf(t, dir).Export(vault, transfer.ExportVault, nil)
			require.NoError(t, err)
			assert.Equal(t, tool, out.Kind, "written for the tool the notes came from")
			assert.Empty(t, out.AsRecords, "every note as its source wrote it")
			assert.Equal(t, len(rep.Created), out.Records)

			var want []string
			for _, c := range rep.Created {
				want = append(want, c.Origin)
			}
			written := filesUnder(t, vault)
			assert.Contains(t, written, markerOf[tool])
			var got []string
			for _, f := range written {
				if f != markerOf[tool] {
					got = append(got, f)
				}
			}
			sort.Strings(want)
			assert.Equal(t, want, got, "the source's paths")
			for _, f := range got {
				was, err := os.ReadFile(filepath.Join(source, filepath.FromSlash(f)))
				require.NoError(t, err)
				is, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(f)))
				require.NoError(t, err)
				if ext := strings.ToLower(path.Ext(f)); ext != ".md" && ext != ".markdown" {
					assert.Equal(t, was, is, "%s: the attachment byte for byte", f)
					continue
				}
				assert.Equal(t, string(stripFrontMatter(was)), string(stripFrontMatter(is)), "%s: the body byte for byte", f)
				assert.Equal(t, frontMatterOf(t, was), frontMatterOf(t, is), "%s: the front matter's keys and values", f)
			}

			again, rep2 := importWithFixedClockAndKey(t, vault)
			assert.Equal(t, tool, rep2.Kind, "the import tells the vault's tool by its marker")
			assert.Equal(t, len(rep.Created), len(rep2.Created))
			assert.Equal(t, recordsOf(t, dir, rep), recordsOf(t, again, rep2), "the same records")

			// And the export of those is the same vault, file for file.
			vault2 := filepath.Join(t.TempDir(), "vault")
			_, err = svcOf(t, again).Export(vault2, transfer.ExportVault, nil)
			require.NoError(t, err)
			require.Equal(t, written, filesUnder(t, vault2))
			for _, f := range written {
				was, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(f)))
				require.NoError(t, err)
				is, err := os.ReadFile(filepath.Join(vault2, filepath.FromSlash(f)))
				require.NoError(t, err)
				assert.Equal(t, string(was), string(is), "%s exported again", f)
			}
		})
	}
}

// filesUnder lists the files under root, slash-separated, sorted.
func filesUnder(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	}))
	sort.Strings(out)
	return out
}

// frontMatterOf reads a note's front matter block by its delimiter (YAML
// between --- lines, TOML between +++ lines) as properties are compared:
// normalized; nil when there is none or it is empty.
func frontMatterOf(t *testing.T, data []byte) kernel.Properties {
	t.Helper()
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	for delim, decode := range map[string]func([]byte, any) error{"---": yaml.Unmarshal, "+++": toml.Unmarshal} {
		if !strings.HasPrefix(s, delim+"\n") {
			continue
		}
		rest := s[len(delim)+1:]
		if !strings.HasSuffix(rest, "\n") {
			rest += "\n" // a block closed by the end of the file
		}
		block, _, ok := strings.Cut("\n"+rest, "\n"+delim+"\n")
		require.True(t, ok, "a closed front matter block")
		var m map[string]any
		require.NoError(t, decode([]byte(strings.TrimPrefix(block+"\n", "\n")), &m))
		return kernel.NormalizeProperties(m)
	}
	return nil
}

// recordsOf are the records an import created, by id, without their
// history (when the import ran and its log).
func recordsOf(t *testing.T, dir string, rep *transfer.Report) map[string]*kernel.Record {
	t.Helper()
	svc := svcOf(t, dir)
	out := map[string]*kernel.Record{}
	for _, c := range append(append([]transfer.Created(nil), rep.Created...), rep.Updated...) {
		r, err := svc.Show(c.ID)
		require.NoError(t, err)
		r.MutationLog = nil
		out[c.ID] = r
	}
	return out
}

// TestRealVaultsComeBackFromExport imports each folder under $VAULTS_DIR
// (see TestRealVaultsKeepEveryLink), exports it and compares the export
// with the source as TestExportGivesEachVaultBack does, then imports the
// export into a new store and compares the records. It logs the counts of
// each vault and is skipped without VAULTS_DIR.
func TestRealVaultsComeBackFromExport(t *testing.T) {
	root := os.Getenv("VAULTS_DIR")
	if root == "" {
		t.Skip("VAULTS_DIR is not set: put real vaults under it to export them")
	}
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		source := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			dir, rep := importWithFixedClockAndKey(t, source)
			vault := filepath.Join(t.TempDir(), "vault")
			out, err := svcOf(t, dir).Export(vault, transfer.ExportVault, nil)
			require.NoError(t, err)
			for i, a := range out.AsRecords {
				if i == 10 {
					t.Logf("  … %d more as record files", len(out.AsRecords)-10)
					break
				}
				t.Logf("  as a record file: %s: %s", a.Path, a.Reason)
			}
			want := map[string]bool{}
			for _, c := range rep.Created {
				want[c.Origin] = true
			}
			written := map[string]bool{}
			for _, f := range filesUnder(t, vault) {
				written[f] = true
			}
			var missing, bodies, fronts, attachments, notes, files []string
			for f := range want {
				is, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(f)))
				if err != nil {
					missing = append(missing, f)
					continue
				}
				was, err := os.ReadFile(filepath.Join(source, filepath.FromSlash(f)))
				require.NoError(t, err)
				files = append(files, f)
				if ext := strings.ToLower(path.Ext(f)); ext != ".md" && ext != ".markdown" {
					if string(was) != string(is) {
						attachments = append(attachments, f)
					}
					continue
				}
				notes = append(notes, f)
				if string(stripFrontMatter(was)) != string(stripFrontMatter(is)) {
					bodies = append(bodies, f)
				}
				if !assert.ObjectsAreEqual(frontMatterOf(t, was), frontMatterOf(t, is)) {
					fronts = append(fronts, f)
				}
			}
			again, rep2 := importWithFixedClockAndKey(t, vault)
			before, after := recordsOf(t, dir, rep), recordsOf(t, again, rep2)
			same := 0
			var differ []string
			for id, r := range before {
				if assert.ObjectsAreEqual(r, after[id]) {
					same++
				} else {
					differ = append(differ, r.Source.ExternalID)
				}
			}
			sort.Strings(differ)
			t.Logf("%s (%s): %d records; export: %d notes as written, %d attachments, %d record files; %d of %d files at the source's path, %d bodies and %d front matters differ, %d attachments differ; re-import: %d records, %d the same, %d differ %v",
				e.Name(), out.Kind, len(before), out.Notes, out.Attachments, len(out.AsRecords), len(files), len(want), len(bodies), len(fronts), len(attachments),
				len(after), same, len(differ), differ[:min(len(differ), 10)])
			assert.Empty(t, missing, "every note and attachment where its source had it")
			assert.Empty(t, bodies, "every body byte for byte")
			assert.Empty(t, fronts, "every front matter's keys and values")
			assert.Empty(t, attachments, "every attachment byte for byte")
			assert.Equal(t, len(before), len(after))
			assert.Empty(t, differ, "the same records")
		})
	}
}

// An imported note changed here in a way its front matter cannot say (a
// new title, a link made here by id, a retirement), or whose handles an
// import would no longer give it, is written as a record file at its
// source's path, and reported; the notes unchanged since still go back as
// their source wrote them; a record made here is named apart from the
// source's names, its links by theirs. The export imported into a new
// store gives every record back.
func TestExportWritesANoteChangedHereAsARecordFile(t *testing.T) {
	dir, rep := importWithFixedClockAndKey(t, filepath.Join("..", "testdata", "import", "kinds", "obsidian"))
	byOrigin := map[string]string{}
	for _, c := range rep.Created {
		byOrigin[c.Origin] = c.ID
	}
	svc := svcOf(t, dir)
	alice := kernel.Evidence{Agent: "alice", Rationale: "edited here"}
	renamed := "Home, renamed"
	_, err := svc.Update(byOrigin["Home.md"], kernel.UpdateFields{Title: &renamed}, alice, kernel.Approval{})
	require.NoError(t, err)
	// Note With Spaces.md, unchanged, links to Home.md by an alias as
	// written ([[Start here]]): it still reaches Home's record file.
	linker, err := svc.Show(byOrigin["Folder B/Linker.md"])
	require.NoError(t, err)
	linked := linker.Body + "Made here: [[" + byOrigin["Backlinks.md"] + "|the backlinks]].\n"
	_, err = svc.Update(linker.ID, kernel.UpdateFields{Body: &linked}, alice, kernel.Approval{})
	require.NoError(t, err)
	_, err = svc.Retire(byOrigin["Folder A/Same.md"], kernel.StatusRetired, alice, kernel.Approval{})
	require.NoError(t, err)
	made, err := svc.Create(kernel.CreateInput{Type: "concept", Title: "Same", Category: "notes", Provenance: kernel.Provenance{Agent: "alice"},
		Body: "Links to [[" + byOrigin["Home.md"] + "|the home]], [[start-here]] and ![[" + byOrigin["attachments/Backlinks.png"] + "|Backlinks.png]].\n"}, kernel.Approval{})
	require.NoError(t, err)

	vault := filepath.Join(t.TempDir(), "vault")
	out, err := svc.Export(vault, transfer.ExportVault, nil)
	require.NoError(t, err)
	why := map[string]string{}
	for _, a := range out.AsRecords {
		why[a.Path] = a.Reason
	}
	assert.Equal(t, map[string]string{
		"Home.md":            "not what an import of the note gives (title)",
		"Folder B/Linker.md": "a link made here names a record by its id",
		"Folder A/Same.md":   "not what an import of the note gives (status)",
		// Read as a note, Folder A/Same.md would no longer share the
		// handle "same", which went to neither.
		"Folder B/Same.md": `an import would give it the handles "same", not ""`,
	}, why)
	assert.Equal(t, 4, out.Notes, "the notes unchanged since, as their source wrote them")
	assert.Equal(t, 1, out.Attachments)
	home, err := os.ReadFile(filepath.Join(vault, "Home.md"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(home), "---\nid: "+byOrigin["Home.md"]+"\n"), "a record file, where the note was")
	mine, err := os.ReadFile(filepath.Join(vault, "notes", "Same ("+made.ID+").md"))
	require.NoError(t, err, "named apart from the source's Same.md")
	assert.Contains(t, string(mine), "Links to [[Home|the home]], [[start-here]] and ![[Backlinks.png]].",
		"links by the names of the source's files; a handle the import gave kept")

	again, rep2 := importWithFixedClockAndKey(t, vault)
	before, after := recordsOf(t, dir, &transfer.Report{Created: append(rep.Created, transfer.Created{ID: made.ID})}), recordsOf(t, again, rep2)
	require.Len(t, after, len(before))
	for id, r := range before {
		require.Contains(t, after, id)
		for _, x := range []*kernel.Record{r, after[id]} {
			x.CreatedAt, x.UpdatedAt = kernel.Timestamp{}, kernel.Timestamp{}
		}
		assert.Equal(t, r, after[id], "record %s (%s)", id, r.Title)
	}
}
