package gitstore

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/kernel"
)

// storeState is what a refused op must leave as it was: the records ref,
// its reflog and every file under objects/ (loose objects and packs).
type storeState struct {
	Tip, Reflog string
	Objects     []string
}

func stateOf(t testing.TB, s *Store) storeState {
	t.Helper()
	gd := s.repo.GitDir
	// The ref as git stores it, read without the code under test.
	tip := testenv.RefValue(gd, s.Ref())
	reflog, _ := os.ReadFile(filepath.Join(gd, "logs", filepath.FromSlash(s.Ref())))
	var objects []string
	root := filepath.Join(gd, "objects")
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			objects = append(objects, rel)
		}
		return err
	}))
	sort.Strings(objects)
	return storeState{Tip: tip, Reflog: string(reflog), Objects: objects}
}

// TestRefusedOpsWriteNothing: each bad input the front-ends can hand the
// write path is refused with its code by the gated write (policy gate,
// decision, postcondition, as every front-end calls it), and leaves the
// ref, its reflog and the object store as they were. A handle that names
// nothing (a missing id, a short or absent prefix, a path) is not found on
// reads either. The CLI's own part (flag parsing, exit codes, the JSON
// envelope and stderr) is pkg/cmd/root's TestRefusedOpsWriteNothing.
func TestRefusedOpsWriteNothing(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	for _, in := range []kernel.CreateInput{
		{ID: "seed-concept", Aliases: []string{"seed/alias"}},
		{ID: "seed-proposer"},
		{ID: "seed-raw", Type: "raw"},
		{ID: "seed-retired"},
	} {
		in.Title, in.Category, in.Body = "Seed", "seed", "seed body"
		create(t, s, in)
	}
	mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Retire(v, "seed-retired", kernel.StatusRetired, kernel.Evidence{Agent: "seeder", Rationale: "gone"}, env)
	})

	big := strings.Repeat("a", 1<<20+1)
	agent := kernel.Evidence{Agent: "a"}
	withEv := func(f func(*kernel.Evidence)) kernel.Evidence {
		e := agent
		f(&e)
		return e
	}
	// create is a valid create input but for what change does to it.
	create := func(change func(*kernel.CreateInput)) Decision {
		in := kernel.CreateInput{Type: "concept", Title: "T", Category: "c", Body: "b", Provenance: kernel.Provenance{Agent: "a"}}
		change(&in)
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }
	}
	update := func(handle string, f kernel.UpdateFields, ev kernel.Evidence) Decision {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, handle, f, ev, env)
		}
	}
	link := func(handle string, l kernel.Link, ev kernel.Evidence) Decision {
		if l.Kind == "" {
			l.Kind = kernel.LinkRelated
		}
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.LinkRecords(v, handle, []kernel.Link{l}, ev, env)
		}
	}
	retire := func(handle string, status kernel.Status, ev kernel.Evidence) Decision {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Retire(v, handle, status, ev, env)
		}
	}
	proposal := func(op func(kernel.View, string, string, kernel.Evidence, kernel.Env) (*kernel.Mutation, error), ev kernel.Evidence) Decision {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return op(v, "seed-concept", "seed-proposer", ev, env)
		}
	}
	supersede := func(newer, older string, ev kernel.Evidence) Decision {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Supersede(v, newer, []string{older}, ev, env)
		}
	}

	cases := []struct {
		name   string
		decide Decision
		code   kernel.Code
	}{
		{"create without an agent", create(func(in *kernel.CreateInput) { in.Provenance.Agent = "" }), kernel.CodeMissingEvidence},
		{"create with a blank agent", create(func(in *kernel.CreateInput) { in.Provenance.Agent = "  " }), kernel.CodeMissingEvidence},
		{"update without an agent", update("seed-concept", kernel.UpdateFields{Title: ptr("x")}, kernel.Evidence{}), kernel.CodeMissingEvidence},
		{"link without an agent", link("seed-raw", kernel.Link{TargetID: "seed-concept"}, kernel.Evidence{}), kernel.CodeMissingEvidence},
		{"retire without an agent", retire("seed-raw", kernel.StatusRetired, kernel.Evidence{Rationale: "r"}), kernel.CodeMissingEvidence},
		{"create without a title", create(func(in *kernel.CreateInput) { in.Title = "" }), kernel.CodeMissingEvidence},
		{"create without a body", create(func(in *kernel.CreateInput) { in.Body = "" }), kernel.CodeMissingEvidence},
		{"unknown type", create(func(in *kernel.CreateInput) { in.Type = "nope" }), kernel.CodeInvalidRecord},
		{"type with a path in it", create(func(in *kernel.CreateInput) { in.Type = "../concept" }), kernel.CodeInvalidRecord},
		{"invalid category: space", create(func(in *kernel.CreateInput) { in.Category = "Bad Category" }), kernel.CodeInvalidRecord},
		{"invalid category: empty segment", create(func(in *kernel.CreateInput) { in.Category = "a..b" }), kernel.CodeInvalidRecord},
		{"invalid alias: uppercase and space", create(func(in *kernel.CreateInput) { in.Aliases = []string{"Bad Alias"} }), kernel.CodeMissingEvidence},
		{"invalid alias: leading slash", create(func(in *kernel.CreateInput) { in.Aliases = []string{"/lead"} }), kernel.CodeMissingEvidence},
		{"invalid alias on update", update("seed-raw", kernel.UpdateFields{Aliases: []string{"bad alias"}}, agent), kernel.CodeMissingEvidence},
		{"alias held by another record", create(func(in *kernel.CreateInput) { in.Aliases = []string{"seed/alias"} }), kernel.CodeSlugConflict},
		{"alias held by another record, on update", update("seed-raw", kernel.UpdateFields{Aliases: []string{"seed/alias"}}, agent), kernel.CodeSlugConflict},
		{"id ../x", create(func(in *kernel.CreateInput) { in.ID = "../x" }), kernel.CodeInvalidID},
		{"id /x", create(func(in *kernel.CreateInput) { in.ID = "/x" }), kernel.CodeInvalidID},
		{"id a/b", create(func(in *kernel.CreateInput) { in.ID = "a/b" }), kernel.CodeInvalidID},
		{"id ..", create(func(in *kernel.CreateInput) { in.ID = ".." }), kernel.CodeInvalidID},
		{"id .hidden", create(func(in *kernel.CreateInput) { in.ID = ".hidden" }), kernel.CodeInvalidID},
		{"id with uppercase", create(func(in *kernel.CreateInput) { in.ID = "Seed-Raw" }), kernel.CodeInvalidID},
		{"id with a backslash", create(func(in *kernel.CreateInput) { in.ID = `a\b` }), kernel.CodeInvalidID},
		{"id that exists", create(func(in *kernel.CreateInput) { in.ID = "seed-raw" }), kernel.CodeIDConflict},
		{"agent with a newline", create(func(in *kernel.CreateInput) { in.Provenance.Agent = "bob\nRecord-Op: apply" }), kernel.CodeInvalidRecord},
		{"tag with a newline", create(func(in *kernel.CreateInput) { in.Tags = []string{"x\nRecord-Op: apply"} }), kernel.CodeInvalidRecord},
		{"link label with a newline", link("seed-raw", kernel.Link{TargetID: "seed-concept", Label: "x\nRecord-Op: apply"}, agent), kernel.CodeInvalidRecord},
		{"link kind that is not a word", link("seed-raw", kernel.Link{TargetID: "seed-concept", Kind: "a b"}, agent), kernel.CodeMissingEvidence},
		{"body over 1 MiB", create(func(in *kernel.CreateInput) { in.Body = big }), kernel.CodeInvalidRecord},
		{"body over 1 MiB on update", update("seed-concept", kernel.UpdateFields{Body: &big}, agent), kernel.CodeInvalidRecord},
		{"title over the limit", create(func(in *kernel.CreateInput) { in.Title = strings.Repeat("t", 1025) }), kernel.CodeInvalidRecord},
		{"negative ttl", create(func(in *kernel.CreateInput) { in.TTLSeconds = kernel.TTL(-5) }), kernel.CodeInvalidRecord},
		{"update of a path-like handle", update("../seed-raw", kernel.UpdateFields{Title: ptr("x")}, agent), kernel.CodeNotFound},
		{"update of a missing handle", update("no-such-record", kernel.UpdateFields{Title: ptr("x")}, agent), kernel.CodeNotFound},
		{"link to a missing target", link("seed-raw", kernel.Link{TargetID: "no-such-record"}, agent), kernel.CodeNotFound},
		{"update that changes nothing", update("seed-concept", kernel.UpdateFields{}, agent), kernel.CodeMissingEvidence},
		{"propose without a proposal", proposal(kernel.Propose, agent), kernel.CodeMissingEvidence},
		{"apply without a proposal", proposal(kernel.Apply, withEv(func(e *kernel.Evidence) { e.Rationale, e.NewBody = "r", "nb" })), kernel.CodeMissingEvidence},
		{"apply without a rationale", proposal(kernel.Apply, withEv(func(e *kernel.Evidence) { e.NewBody = "nb" })), kernel.CodeMissingEvidence},
		{"reject without a proposal", proposal(kernel.Reject, withEv(func(e *kernel.Evidence) { e.Reason = "r" })), kernel.CodeMissingEvidence},
		{"supersede itself", supersede("seed-concept", "seed-concept", withEv(func(e *kernel.Evidence) { e.Rationale = "r" })), kernel.CodeMissingEvidence},
		{"supersede without a rationale", supersede("seed-concept", "seed-raw", agent), kernel.CodeMissingEvidence},
		{"retire a retired record", retire("seed-retired", kernel.StatusRetired, withEv(func(e *kernel.Evidence) { e.Rationale = "r" })), kernel.CodeMissingEvidence},
		{"retired to implemented", retire("seed-retired", kernel.StatusImplemented, withEv(func(e *kernel.Evidence) { e.Rationale, e.ImplementedByRef = "r", "PR-1" })), kernel.CodeMissingEvidence},
		{"retire to active", retire("seed-raw", kernel.StatusActive, withEv(func(e *kernel.Evidence) { e.Rationale = "r" })), kernel.CodeMissingEvidence},
		{"implemented without a reference", retire("seed-raw", kernel.StatusImplemented, withEv(func(e *kernel.Evidence) { e.Rationale = "r" })), kernel.CodeMissingEvidence},
		{"retire without a rationale", retire("seed-raw", kernel.StatusRetired, agent), kernel.CodeMissingEvidence},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := stateOf(t, s)
			require.NotEmpty(t, before.Tip)
			w, err := s.MutateApproved(c.decide, kernel.Approval{})
			requireCode(t, err, c.code)
			assert.Nil(t, w, "a refused op reports no write")
			assert.Equal(t, before, stateOf(t, s), "a refused op writes nothing")
		})
	}

	// The state would show a write: a valid op changes the tip, the reflog
	// and the objects.
	before := stateOf(t, s)
	mutate(t, s, create(func(*kernel.CreateInput) {}))
	after := stateOf(t, s)
	assert.NotEqual(t, before.Tip, after.Tip)
	assert.NotEqual(t, before.Reflog, after.Reflog)
	assert.NotEqual(t, before.Objects, after.Objects)

	// Handles that name no record: nothing is read in their place (never a
	// path outside records/, never a guess from a prefix under 8 characters).
	for _, handle := range []string{"no-such-record", "zzzzzzzz", "seed-co", "../../../etc/passwd", "/etc/passwd", "../seed-raw"} {
		v, err := s.View()
		require.NoError(t, err)
		id, err := v.Resolve(handle)
		if err != nil {
			requireCode(t, err, kernel.CodeNotFound)
		}
		assert.Empty(t, id, "%q resolves to no id", handle)
		r, err := v.Get(handle)
		if err != nil {
			requireCode(t, err, kernel.CodeNotFound)
		}
		assert.Nil(t, r, "%q names no record", handle)
	}
}
