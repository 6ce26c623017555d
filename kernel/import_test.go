package kernel_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func importInput(items ...kernel.ImportItem) kernel.ImportInput {
	return kernel.ImportInput{Items: items, Source: "vault notes", Digest: "sha256:00", Agent: agent}
}

func note(origin, id, title, category string) kernel.ImportItem {
	return kernel.ImportItem{Origin: origin, Record: &kernel.Record{ID: id, Type: "concept", Title: title, Body: "Body of " + title, Category: category}}
}

// An import is one commit creating every new record, with its evidence,
// each record starting a history of its own; the commit passes the
// postcondition every commit is judged by.
func TestImportCreatesEveryRecordInOneMutation(t *testing.T) {
	v := fixture(t)
	a := note("a.md", "imp-a", "Note A", "notes")
	a.Record.Aliases = []string{"note-a"}
	a.Record.Links = []kernel.Link{{TargetID: "imp-b", Kind: kernel.LinkRelated}}
	m, skips, err := kernel.Import(v, importInput(a, note("sub/b.md", "imp-b", "Note B", "notes.sub")), opEnv())
	require.NoError(t, err)
	assert.Empty(t, skips)
	require.Len(t, m.Writes, 2)
	assert.Equal(t, kernel.OpImport, m.Op)
	assert.Equal(t, "import(records): 2 records from vault notes", m.Subject())
	assert.Equal(t, []string{"imp-a", "imp-b"}, kernel.TrailerValues(m.Trailers, kernel.TrailerID))
	assert.Equal(t, "2", kernel.TrailerValue(m.Trailers, kernel.TrailerCount))
	assert.Equal(t, "vault notes", kernel.TrailerValue(m.Trailers, kernel.TrailerSource))
	assert.Equal(t, "sha256:00", kernel.TrailerValue(m.Trailers, kernel.TrailerDigest))
	r := m.Writes[0]
	assert.Equal(t, kernel.StatusActive, r.Status)
	assert.Equal(t, kernel.KindEntity, r.Kind, "axes default from the type")
	assert.Equal(t, agent, r.Provenance.Agent)
	require.Len(t, r.MutationLog, 1)
	assert.Equal(t, "create", r.MutationLog[0].Op)
	assert.Equal(t, "a.md", r.MutationLog[0].Evidence["origin"])
	require.NoError(t, kernel.CheckWrite(v, m))

	// Importing the same again changes nothing.
	v.commit(m)
	again, skips, err := kernel.Import(v, importInput(a, note("sub/b.md", "imp-b", "Note B", "notes.sub")), opEnv())
	require.NoError(t, err)
	assert.Nil(t, again)
	assert.Equal(t, []kernel.ImportSkip{{Origin: "a.md", ID: "imp-a", Reason: "unchanged"}, {Origin: "sub/b.md", ID: "imp-b", Reason: "unchanged"}}, skips)

	// A changed note is reported, never rewritten by an import.
	changed := note("a.md", "imp-a", "Note A, renamed", "notes")
	changed.Record.Aliases, changed.Record.Links, changed.Record.Body = a.Record.Aliases, a.Record.Links, a.Record.Body
	again, skips, err = kernel.Import(v, importInput(changed), opEnv())
	require.NoError(t, err)
	assert.Nil(t, again)
	assert.Equal(t, []kernel.ImportSkip{{Origin: "a.md", ID: "imp-a", Reason: "differs", Fields: []string{"title"}}}, skips)
}

// A strict import writes nothing of an invalid import: the first record
// breaking a rule fails it all, and the error names the file. Without
// --strict the same record is skipped, naming the rule, and the others
// are imported.
func TestImportRefusesInvalidRecordsNamingTheOrigin(t *testing.T) {
	v := fixture(t)
	cases := map[string]struct {
		items []kernel.ImportItem
		code  kernel.Code
		msg   string
	}{
		"bad category": {[]kernel.ImportItem{note("ok.md", "imp-ok", "Fine", "notes"), note("bad.md", "imp-bad", "Bad", "Not A Category")},
			kernel.CodeInvalidRecord, "bad.md: "},
		"empty title": {[]kernel.ImportItem{{Origin: "empty.md", Record: &kernel.Record{ID: "imp-e", Type: "concept", Body: "b", Category: "notes"}}},
			kernel.CodeMissingEvidence, "empty.md: title is required"},
		"unknown type": {[]kernel.ImportItem{{Origin: "t.md", Record: &kernel.Record{ID: "imp-t", Type: "book", Title: "T", Body: "b", Category: "notes"}}},
			kernel.CodeInvalidRecord, "t.md: type \"book\" is unknown"},
		"same id twice": {[]kernel.ImportItem{note("one.md", "imp-x", "One", "notes"), note("two.md", "imp-x", "Two", "notes")},
			kernel.CodeIDConflict, "two.md: id imp-x is also the id of one.md"},
		"alias held by another record": {[]kernel.ImportItem{func() kernel.ImportItem {
			it := note("al.md", "imp-al", "Al", "notes")
			it.Record.Aliases = []string{conceptAlias}
			return it
		}()}, kernel.CodeSlugConflict, "al.md: alias \"" + conceptAlias + "\" already belongs to record " + conceptID},
		"id is another record's alias": {[]kernel.ImportItem{note("slug.md", "note-x", "X", "notes"), func() kernel.ImportItem {
			it := note("y.md", "imp-y", "Y", "notes")
			it.Record.Aliases = []string{"note-x"}
			return it
		}()}, kernel.CodeIDConflict, "slug.md: id \"note-x\" is also an alias of record imp-y"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			strict := importInput(c.items...)
			strict.Strict = true
			m, _, err := kernel.Import(v, strict, opEnv())
			assert.Nil(t, m)
			require.Error(t, err)
			assert.Equal(t, c.code, kernel.CodeOf(err))
			assert.Contains(t, err.Error(), c.msg)

			good := note("good.md", "imp-good", "Good", "notes")
			m, skips, err := kernel.Import(v, importInput(append([]kernel.ImportItem{good}, c.items...)...), opEnv())
			require.NoError(t, err)
			var refused []kernel.ImportSkip
			for _, s := range skips {
				if s.LeftOut() {
					refused = append(refused, s)
				}
			}
			require.Len(t, refused, 1, "one item breaks a rule")
			origin, message, _ := strings.Cut(c.msg, ": ")
			assert.Equal(t, origin, refused[0].Origin)
			assert.Equal(t, kernel.SkipRefused, refused[0].Reason)
			assert.Equal(t, c.code, refused[0].Code)
			assert.Contains(t, refused[0].Message, message)
			require.NotNil(t, m)
			assert.Equal(t, len(c.items), len(m.Writes), "the good note and every other are imported")
			assert.Equal(t, strconv.Itoa(len(m.Writes)), kernel.TrailerValue(m.Trailers, kernel.TrailerCount))
			require.NoError(t, kernel.CheckWrite(v, m), "what is imported passes the rules every commit is judged by")
		})
	}
}

// A note may be empty (a section page, a stub) and brings its own dates:
// they are the record's created_at and updated_at unless after the
// import; the log says when the import made it.
func TestImportTakesEmptyNotesAndTheirDates(t *testing.T) {
	v := fixture(t)
	env := opEnv()
	past := kernel.At(env.Now.AddDate(-2, 0, 0))
	later := kernel.At(env.Now.AddDate(-1, 0, 0))
	future := kernel.At(env.Now.AddDate(1, 0, 0))
	stub := kernel.ImportItem{Origin: "section/_index.md", Record: &kernel.Record{ID: "imp-stub", Type: "concept", Title: "Section", Category: "notes"}, Created: &past, Updated: &later}
	ahead := note("ahead.md", "imp-ahead", "Ahead", "notes")
	ahead.Created = &future
	m, skips, err := kernel.Import(v, importInput(stub, ahead), env)
	require.NoError(t, err)
	assert.Empty(t, skips)
	require.Len(t, m.Writes, 2)
	assert.Equal(t, "", m.Writes[0].Body)
	assert.Equal(t, past, m.Writes[0].CreatedAt)
	assert.Equal(t, later, m.Writes[0].UpdatedAt)
	assert.Equal(t, kernel.At(env.Now), m.Writes[0].MutationLog[0].At, "the log says when it was imported")
	assert.Equal(t, kernel.At(env.Now), m.Writes[1].CreatedAt, "a date after the import is not the record's")
	require.NoError(t, kernel.CheckWrite(v, m))
}

// An import needs the create right of every record it creates, and the
// lifecycle rights a create of it would need: it cannot create what a
// create could not.
func TestImportNeedsTheCreateRightOfEveryRecord(t *testing.T) {
	v := fixture(t)
	sec := note("sec.md", "imp-sec", "Keys", "security")
	sec.Record.Links = []kernel.Link{{TargetID: snapOldID, Kind: kernel.LinkSupersedes}}
	retired := note("old.md", "imp-old", "Old", "eng")
	retired.Record.Status = kernel.StatusRetired
	m, _, err := kernel.Import(v, importInput(note("eng.md", "imp-eng", "Eng", "eng"), sec, retired), opEnv())
	require.NoError(t, err)
	rights := rightsOf(t, v, m)
	assert.Contains(t, rights, kernel.Right{Op: kernel.OpCreate, Type: "concept", Category: "eng", Record: "imp-eng"})
	assert.Contains(t, rights, kernel.Right{Op: kernel.OpCreate, Type: "concept", Category: "security", Record: "imp-sec"})
	assert.Contains(t, rights, kernel.Right{Op: kernel.OpSupersede, Type: "snapshot", Category: "engineering.auth", Record: snapOldID})
	assert.Contains(t, rights, kernel.Right{Op: kernel.OpRetire, Type: "concept", Category: "eng", Record: "imp-old"})
	assert.NotContains(t, rights, kernel.Right{Op: kernel.OpImport}, "no right of its own: what it creates decides")
	// carol contributes outside security: she may create there, and
	// neither supersede nor retire anywhere.
	assert.Equal(t, []string{"create concept imp-sec in security", "supersede concept imp-sec in security",
		"supersede snapshot snp00001 in engineering.auth", "retire concept imp-old in eng"}, denied(readOnlySecurity(t), "carol", rights))
}

// verify's side: an import commit may only add records, and says how many.
func TestCheckCommitHoldsAnImportToItsEvidence(t *testing.T) {
	v := fixture(t)
	m, _, err := kernel.Import(v, importInput(note("a.md", "imp-a", "A", "notes")), opEnv())
	require.NoError(t, err)
	changes, err := kernel.MutationChanges(v, m)
	require.NoError(t, err)
	assert.Empty(t, kernel.CheckCommit(kernel.OpImport, m.Trailers, changes, v))

	lying := append([]kernel.Trailer(nil), m.Trailers...)
	for i := range lying {
		if lying[i].Key == kernel.TrailerCount {
			lying[i].Value = "5"
		}
	}
	vs := kernel.CheckCommit(kernel.OpImport, lying, changes, v)
	require.Len(t, vs, 1)
	assert.Equal(t, kernel.RuleTrailers, vs[0].Rule)

	// Rewriting an existing record under an import is refused.
	cur := get(t, v, conceptID).Clone()
	cur.Title = "Rewritten by an import"
	cur.MutationLog = append(cur.MutationLog, kernel.MutationEntry{Op: "import", At: kernel.At(opAt), Agent: agent})
	rewrite := []kernel.RecordChange{{Type: cur.Type, ID: cur.ID, Old: get(t, v, conceptID), New: cur}}
	trailers := []kernel.Trailer{{Key: kernel.TrailerOp, Value: "import"}, {Key: kernel.TrailerID, Value: cur.ID}, {Key: kernel.TrailerCount, Value: "1"}}
	var rules []string
	for _, x := range kernel.CheckCommit(kernel.OpImport, trailers, rewrite, v) {
		rules = append(rules, x.Rule+" "+x.Message)
	}
	assert.Contains(t, rules, "op-matches import commit changes record "+conceptID+", which no import of the same note made")
}

// importedNote is an item as transfer makes it of a foreign note: its
// source the import and the note's path.
func importedNote(origin, id, title, body string) kernel.ImportItem {
	return kernel.ImportItem{Origin: origin, Record: &kernel.Record{ID: id, Type: "concept", Title: title, Body: body, Category: "notes",
		Source: &kernel.Source{Extension: "import", ExternalID: origin}}}
}

// Importing the same source again brings a note's new version in as an
// update of its record: one import entry naming the source and the
// fields, the update right needed, the commit judged as any. A record
// changed here since its last import is a conflict, never overwritten,
// and a commit that overwrites one anyway is refused.
func TestReimportUpdatesWhatChangedAndRefusesToOverwriteLocalChanges(t *testing.T) {
	v := fixture(t)
	env := opEnv()
	m, _, err := kernel.Import(v, importInput(importedNote("a.md", "imp-a", "A", "First."), importedNote("b.md", "imp-b", "B", "Bee.")), env)
	require.NoError(t, err)
	v.commit(m)

	changed := importedNote("a.md", "imp-a", "A, renamed", "First, edited.")
	changed.Record.Aliases = []string{"a-renamed"}
	in := importInput(changed, importedNote("b.md", "imp-b", "B", "Bee."), importedNote("c.md", "imp-c", "C", "New."))
	in.Source, in.Digest = "obsidian vault notes", "sha256:11"
	m, skips, err := kernel.Import(v, in, env)
	require.NoError(t, err)
	assert.Equal(t, []kernel.ImportSkip{{Origin: "b.md", ID: "imp-b", Reason: kernel.SkipUnchanged}}, skips)
	require.Len(t, m.Writes, 2, "the changed note and the new one")
	u := m.Writes[0]
	assert.Equal(t, "A, renamed", u.Title)
	assert.Equal(t, "First, edited.", u.Body)
	require.Len(t, u.MutationLog, 2)
	last := u.MutationLog[1]
	assert.Equal(t, "import", last.Op)
	assert.Equal(t, map[string]any{"import": "obsidian vault notes", "origin": "a.md", "fields": []string{"title", "body", "aliases"}}, last.Evidence)
	assert.Equal(t, "2", kernel.TrailerValue(m.Trailers, kernel.TrailerCount), "records the import writes")
	assert.Equal(t, "sha256:11", kernel.TrailerValue(m.Trailers, kernel.TrailerDigest))
	require.NoError(t, kernel.CheckWrite(v, m))
	rights := rightsOf(t, v, m)
	assert.Contains(t, rights, kernel.Right{Op: kernel.OpUpdate, Type: "concept", Category: "notes", Record: "imp-a"})
	assert.Contains(t, rights, kernel.Right{Op: kernel.OpCreate, Type: "concept", Category: "notes", Record: "imp-c"})
	v.commit(m)

	// Changed here, then in the source: a conflict, nothing written.
	local, err := kernel.Update(v, "imp-a", kernel.UpdateFields{Body: ptr("Edited here.")}, kernel.Evidence{Agent: "bob"}, env)
	require.NoError(t, err)
	v.commit(local)
	again := importedNote("a.md", "imp-a", "A, renamed", "First, edited twice.")
	again.Record.Aliases = []string{"a-renamed"}
	m, skips, err = kernel.Import(v, importInput(again), env)
	require.NoError(t, err)
	assert.Nil(t, m)
	require.Len(t, skips, 1)
	assert.Equal(t, kernel.SkipConflict, skips[0].Reason)
	assert.True(t, skips[0].LeftOut())
	assert.Contains(t, skips[0].Message, "changed here since its last import (update by bob at ")
	assert.Equal(t, "Edited here.", get(t, v, "imp-a").Body)

	// An import commit overwriting it anyway is refused by the judge.
	cur := get(t, v, "imp-a")
	forced := cur.Clone()
	forced.Body = "Overwritten."
	forced.MutationLog = append(forced.MutationLog, kernel.MutationEntry{Op: "import", At: kernel.At(opAt), Agent: agent})
	trailers := []kernel.Trailer{{Key: kernel.TrailerOp, Value: "import"}, {Key: kernel.TrailerID, Value: cur.ID}, {Key: kernel.TrailerCount, Value: "1"}}
	var rules []string
	for _, x := range kernel.CheckCommit(kernel.OpImport, trailers, []kernel.RecordChange{{Type: cur.Type, ID: cur.ID, Old: cur, New: forced}}, v) {
		rules = append(rules, x.Rule+" "+x.Message)
	}
	require.Len(t, rules, 1)
	assert.Contains(t, rules[0], "op-matches import commit changes record imp-a, changed since its last import (update by bob at ")

	// A record of the store with the same id but made otherwise is never
	// rewritten by an import.
	m, skips, err = kernel.Import(v, importInput(importedNote("con.md", conceptID, "Taken", "x")), env)
	require.NoError(t, err)
	assert.Nil(t, m)
	assert.Equal(t, kernel.SkipDiffers, skips[0].Reason)
}
