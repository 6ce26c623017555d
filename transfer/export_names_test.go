package transfer

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/gitstore"
)

// A record's source path is only where export writes it when it is a
// plain relative path no other record has: never one that climbs out, is
// absolute or hidden (an import reads no hidden file, so a record naming
// .obsidian/plugins/… as its source did not come from one), and never a
// tool's root file an attachment already has. Those records are named as
// records made here are, and every name still goes through confinedDir.
func TestExportPlacesSourcesOnlyAtPlainPaths(t *testing.T) {
	entries := []*gitstore.IndexEntry{
		{ID: "aaaaaaaaaaaaaaaaaaaaaaaaaa", Title: "Escape", Category: "notes"},
		{ID: "bbbbbbbbbbbbbbbbbbbbbbbbbb", Title: "main.js", Category: "notes"},
		{ID: "cccccccccccccccccccccccccc", Title: "Ok", Category: "notes"},
		{ID: "dddddddddddddddddddddddddd", Title: "x.png", Category: "notes.attachments"},
		{ID: "eeeeeeeeeeeeeeeeeeeeeeeeee", Title: "OK", Category: "notes"},
		{ID: "ffffffffffffffffffffffffff", Title: "dendron.yml", Category: "notes"},
		{ID: "gggggggggggggggggggggggggg", Title: "Absolute", Category: "notes"},
		{ID: "hhhhhhhhhhhhhhhhhhhhhhhhhh", Title: "Ok", Category: "notes"},
	}
	names := newExportNames(entries)
	sv := newSurvey(names)
	note := func(id, p string) { sv.sources[id], sv.notes[id] = p, true }
	attachment := func(id, p string) { sv.sources[id], sv.fits[id], sv.linked[id] = p, true, true }
	note("aaaaaaaaaaaaaaaaaaaaaaaaaa", "../escape.md")
	attachment("bbbbbbbbbbbbbbbbbbbbbbbbbb", ".obsidian/plugins/evil/main.js")
	note("cccccccccccccccccccccccccc", "notes/Ok.md")
	attachment("dddddddddddddddddddddddddd", "attachments/x.png")
	note("eeeeeeeeeeeeeeeeeeeeeeeeee", "Notes/OK.md")
	attachment("ffffffffffffffffffffffffff", "dendron.yml")
	note("gggggggggggggggggggggggggg", "/etc/absolute.md")
	why := names.place(entries, sv, []marker{{path: "dendron.yml"}, {path: ".obsidian/app.json"}})

	assert.Equal(t, "notes/Ok.md", names.file["cccccccccccccccccccccccccc"])
	assert.Equal(t, "attachments/x.png", names.file["dddddddddddddddddddddddddd"])
	assert.Equal(t, "dendron.yml", names.file["ffffffffffffffffffffffffff"], "the source's own file, kept")
	assert.Equal(t, map[string]bool{".obsidian/app.json": true}, names.marked, "no marker over a file of the source")
	assert.Equal(t, map[string]string{
		"aaaaaaaaaaaaaaaaaaaaaaaaaa": `its source path "../escape.md" is not a plain path inside the vault`,
		"bbbbbbbbbbbbbbbbbbbbbbbbbb": `its source path ".obsidian/plugins/evil/main.js" is not a plain path inside the vault`,
		"eeeeeeeeeeeeeeeeeeeeeeeeee": `another record has its source path "Notes/OK.md"`,
		"gggggggggggggggggggggggggg": `its source path "/etc/absolute.md" is not a plain path inside the vault`,
	}, why)
	for id, want := range map[string]string{
		"aaaaaaaaaaaaaaaaaaaaaaaaaa": "notes/Escape.md",
		"bbbbbbbbbbbbbbbbbbbbbbbbbb": "notes/main.js.md",
		"gggggggggggggggggggggggggg": "notes/Absolute.md",
		// Two records titled Ok without regard to case, and the source's
		// Ok.md: named apart from it.
		"eeeeeeeeeeeeeeeeeeeeeeeeee": "notes/OK (eeeeeeee).md",
		"hhhhhhhhhhhhhhhhhhhhhhhhhh": "notes/Ok (hhhhhhhh).md",
	} {
		assert.Equal(t, want, names.file[id], id)
		assert.False(t, names.sourced[id], id)
	}
	assert.Equal(t, "Ok", names.name["cccccccccccccccccccccccccc"], "linked by its file name, which is unique")
	assert.Equal(t, "x.png", names.name["dddddddddddddddddddddddddd"])
}
