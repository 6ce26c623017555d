// Package storetest is the one conformance suite of the kernel's store port
// (kernel.Store), in the manner of git-bug's repository/repo_testing.go:
// every implementation runs Run from its own tests, so what the CLI, the
// hooks and the contract rely on is shown once and holds for each store.
package storetest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/git-records/git-records/kernel"
)

// Run holds a store to the port's contract. open returns a new store for
// each case, set up (holding its format file) and without records. Racing
// writers share the store's handle.
func Run(t *testing.T, open func(t *testing.T) kernel.Store) { Suite{Open: open}.Run(t) }

// Suite is Run with more say over how the store is used.
type Suite struct {
	Open func(t *testing.T) kernel.Store
	// Rival opens s a second time, as another process would: the writer
	// that wins a race writes through it, so nothing a handle keeps in
	// memory can stand in for reading the tip. Nil races through s itself.
	Rival func(t *testing.T, s kernel.Store) kernel.Store
}

// Run runs every case.
func (st Suite) Run(t *testing.T) {
	t.Run("Handles", func(t *testing.T) { testHandles(t, st.Open(t)) })
	t.Run("SnapshotIsOneTip", func(t *testing.T) { testSnapshotIsOneTip(t, st.Open(t)) })
	t.Run("LostRaceRedecides", func(t *testing.T) { s := st.Open(t); testLostRaceRedecides(t, s, st.rival(t, s)) })
	t.Run("LostRaceLosesNothing", func(t *testing.T) { s := st.Open(t); testLostRaceLosesNothing(t, s, st.rival(t, s)) })
	t.Run("NoOpWrites", func(t *testing.T) { testNoOpWrites(t, st.Open(t)) })
	t.Run("StoreFiles", func(t *testing.T) { testStoreFiles(t, st.Open(t)) })
	t.Run("PostconditionChecked", func(t *testing.T) { testPostconditionChecked(t, st.Open(t)) })
}

func (st Suite) rival(t *testing.T, s kernel.Store) kernel.Store {
	if st.Rival == nil {
		return s
	}
	return st.Rival(t, s)
}

// Ids chosen so that the first two share their first MinIDPrefix (8)
// characters and the third does not.
const (
	idA = "abcdefghaaaaaaaaaaaaaaaaaa"
	idB = "abcdefghbbbbbbbbbbbbbbbbbb"
	idC = "zyxwvutsaaaaaaaaaaaaaaaaaa"
)

const agent = "storetest"

// A key that is nobody's, for an allowed_signers line.
const otherSignerKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDnGTK/sfRu5yBNB+lK/FW+F34Z+xXlgjO4/Sxp1Mf9A"

func testHandles(t *testing.T, s kernel.Store) {
	mustWrite(t, s, create(idA, "A"))
	mustWrite(t, s, create(idB, "B"))
	mustWrite(t, s, create(idC, "C", "the-c"))
	v := snapshot(t, s)

	for _, c := range []struct{ handle, want string }{
		{idA, idA},            // exact id
		{"the-c", idC},        // alias
		{idC[:8], idC},        // unique prefix of the minimum length
		{idA[:9], idA},        // a longer prefix tells A from B
		{idC[:7], ""},         // shorter than the minimum: no match
		{"qqqqqqqqq", ""},     // no id starts so
		{"no-such-alias", ""}, // no record holds it
		{"", ""},
	} {
		got, err := v.Resolve(c.handle)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.handle, got, err, c.want)
		}
	}

	_, err := v.Resolve(idA[:8])
	requireCode(t, err, kernel.CodeAmbiguousID)
	var ke *kernel.Error
	if errors.As(err, &ke) && !reflect.DeepEqual(ke.Extra["matches"], []string{idA, idB}) {
		t.Errorf("AMBIGUOUS_ID matches = %v, want [%s %s]", ke.Extra["matches"], idA, idB)
	}

	if owner, err := v.AliasOwner("the-c"); err != nil || owner != idC {
		t.Errorf("AliasOwner(the-c) = %q, %v; want %s", owner, err, idC)
	}
	if owner, err := v.AliasOwner("no-such-alias"); err != nil || owner != "" {
		t.Errorf("AliasOwner(no-such-alias) = %q, %v; want none", owner, err)
	}
	if r, err := v.Record(idC); err != nil || r == nil || r.Title != "C" || !reflect.DeepEqual(r.Aliases, []string{"the-c"}) {
		t.Errorf("Record(%s) = %+v, %v; want C with alias the-c", idC, r, err)
	}
	// Record takes an exact id only.
	for _, h := range []string{"the-c", idC[:8], "qqqqqqqqq"} {
		if r, err := v.Record(h); err != nil || r != nil {
			t.Errorf("Record(%q) = %v, %v; want none", h, r, err)
		}
	}
	if ids, err := v.IDs(); err != nil || !reflect.DeepEqual(ids, []string{idA, idB, idC}) {
		t.Errorf("IDs() = %v, %v; want [%s %s %s]", ids, err, idA, idB, idC)
	}

	// Ops see the same handles: a missing one is NOT_FOUND, an ambiguous one
	// AMBIGUOUS_ID, and neither writes.
	before := revision(t, s)
	_, err = s.Write(update("qqqqqqqqq", kernel.UpdateFields{Title: ptr("x")}))
	requireCode(t, err, kernel.CodeNotFound)
	_, err = s.Write(update(idA[:8], kernel.UpdateFields{Title: ptr("x")}))
	requireCode(t, err, kernel.CodeAmbiguousID)
	// No new record takes a handle another holds: its id under another
	// type, its id as an alias, or an id as an alias.
	raw := func(id string, aliases ...string) kernel.DecideFunc {
		in := kernel.CreateInput{ID: id, Type: "raw", Title: "impostor", Body: "x", Category: "engineering", Aliases: aliases, Provenance: kernel.Provenance{Agent: agent}}
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }
	}
	_, err = s.Write(raw(idA))
	requireCode(t, err, kernel.CodeIDConflict)
	_, err = s.Write(raw("the-c"))
	requireCode(t, err, kernel.CodeIDConflict)
	_, err = s.Write(raw("impostor00000000", idB))
	requireCode(t, err, kernel.CodeSlugConflict)
	_, err = s.Write(raw("impostor00000000", "the-c"))
	requireCode(t, err, kernel.CodeSlugConflict)
	if after := revision(t, s); after != before {
		t.Errorf("a refused op moved the tip from %q to %q", before, after)
	}
	// An op on an alias acts on the record that holds it.
	mustWrite(t, s, update("the-c", kernel.UpdateFields{Title: ptr("C2")}))
	if r := record(t, s, idC); r.Title != "C2" {
		t.Errorf("update the-c changed %s's title to %q, want C2", idC, r.Title)
	}
}

func testSnapshotIsOneTip(t *testing.T, s kernel.Store) {
	first := mustWrite(t, s, create(idA, "A", "alias-a"))
	old := snapshot(t, s)
	if old.Revision() != first.Revision {
		t.Errorf("snapshot revision %q, want the write's %q", old.Revision(), first.Revision)
	}
	second := mustWrite(t, s, create(idB, "B", "alias-b"))
	mustWrite(t, s, update(idA, kernel.UpdateFields{Title: ptr("A2")}))
	if second.Revision == first.Revision || second.Revision == "" {
		t.Errorf("second write landed revision %q after %q", second.Revision, first.Revision)
	}
	// The old snapshot still answers as of its tip.
	if r, err := old.Record(idB); err != nil || r != nil {
		t.Errorf("old snapshot sees a later record: %v, %v", r, err)
	}
	if id, err := old.Resolve("alias-b"); err != nil || id != "" {
		t.Errorf("old snapshot resolves a later alias to %q, %v", id, err)
	}
	if r, err := old.Record(idA); err != nil || r == nil || r.Title != "A" {
		t.Errorf("old snapshot reads %v, %v; want A as it was", r, err)
	}
	if ids, err := old.IDs(); err != nil || !reflect.DeepEqual(ids, []string{idA}) {
		t.Errorf("old snapshot IDs() = %v, %v; want [%s]", ids, err, idA)
	}
	// A record read from a snapshot is the reader's: editing it changes nothing stored.
	r := record(t, s, idA)
	r.Title = "edited in memory"
	if again := record(t, s, idA); again.Title != "A2" {
		t.Errorf("editing a read record changed the store: title %q", again.Title)
	}
}

// Two writers claim the same alias. The second decides on a tip where the
// alias is free, loses the race to the first, decides again on the new tip
// and is refused there: exactly one wins.
func testLostRaceRedecides(t *testing.T, s, rival kernel.Store) {
	mustWrite(t, s, create(idC, "C", "the-c"))
	for _, h := range []kernel.Store{s, rival} { // both have resolved a handle before they race
		if id, err := snapshot(t, h).Resolve("the-c"); err != nil || id != idC {
			t.Fatalf("the-c resolves to %q, %v", id, err)
		}
	}
	var winner kernel.Written
	runs := 0
	loser := func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		runs++
		if runs == 1 {
			winner = mustWrite(t, rival, create(idB, "B", "shared")) // lands while we decide
		}
		return create(idA, "A", "shared")(v, env)
	}
	w, err := s.Write(loser)
	requireCode(t, err, kernel.CodeSlugConflict)
	if runs != 2 {
		t.Fatalf("the losing decision ran %d times, want 2 (once per tip)", runs)
	}
	if w.Revision != "" || w.Mutation != nil {
		t.Errorf("a refused write reports %+v", w)
	}
	if rev := revision(t, s); rev != winner.Revision {
		t.Errorf("tip %q, want the winner's %q", rev, winner.Revision)
	}
	for _, h := range []kernel.Store{s, rival} {
		v := snapshot(t, h)
		if id, err := v.Resolve("shared"); err != nil || id != idB {
			t.Errorf("shared resolves to %q, %v; want the winner %s", id, err, idB)
		}
		if r, err := v.Record(idA); err != nil || r != nil {
			t.Errorf("the loser's record landed: %v, %v", r, err)
		}
		if ids, err := v.IDs(); err != nil || !reflect.DeepEqual(ids, []string{idB, idC}) {
			t.Errorf("IDs() = %v, %v; want [%s %s]", ids, err, idB, idC)
		}
	}
}

// Two writers change different fields of one record, and a third creates
// another record, all racing: each loser re-reads, so every change lands.
func testLostRaceLosesNothing(t *testing.T, s, rival kernel.Store) {
	mustWrite(t, s, create(idA, "A"))
	record(t, rival, idA) // the rival has read the store before it races
	runs := 0
	body := func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		runs++
		if runs == 1 {
			mustWrite(t, rival, update(idA, kernel.UpdateFields{Title: ptr("new title")}))
			mustWrite(t, rival, create(idB, "B"))
		}
		return update(idA, kernel.UpdateFields{Body: ptr("new body\n")})(v, env)
	}
	w := mustWrite(t, s, body)
	if runs != 2 || w.Attempts != 2 {
		t.Errorf("decision ran %d times, Written.Attempts %d; want 2 and 2", runs, w.Attempts)
	}
	r := record(t, s, idA)
	if r.Title != "new title" || r.Body != "new body\n" {
		t.Errorf("record has title %q body %q: a racing change was lost", r.Title, r.Body)
	}
	if len(r.MutationLog) != 3 {
		t.Errorf("mutation log has %d entries, want create and two updates: %+v", len(r.MutationLog), r.MutationLog)
	}
	for _, h := range []kernel.Store{s, rival} {
		if ids, err := snapshot(t, h).IDs(); err != nil || !reflect.DeepEqual(ids, []string{idA, idB}) {
			t.Errorf("IDs() = %v, %v; want both records", ids, err)
		}
	}
}

func testNoOpWrites(t *testing.T, s kernel.Store) {
	mustWrite(t, s, create(idA, "A"))
	mustWrite(t, s, create(idB, "B"))
	before := revision(t, s)

	w, err := s.Write(func(kernel.View, kernel.Env) (*kernel.Mutation, error) { return nil, nil })
	if err != nil || w.Revision != "" || w.Mutation != nil || w.Attempts != 1 {
		t.Errorf("a nil decision: %+v, %v; want nothing written after one attempt", w, err)
	}
	refusal := kernel.Errorf(kernel.CodeMissingEvidence, "no")
	if _, err := s.Write(func(kernel.View, kernel.Env) (*kernel.Mutation, error) { return nil, refusal }); err != refusal {
		t.Errorf("a refusing decision returned %v, want its own error", err)
	}
	if after := revision(t, s); after != before {
		t.Fatalf("writing nothing moved the tip from %q to %q", before, after)
	}

	linked := mustWrite(t, s, link(idA, idB))
	w, err = s.Write(link(idA, idB)) // already there: idempotent
	if err != nil || w.Revision != "" || w.Mutation != nil {
		t.Errorf("an existing link: %+v, %v; want nothing written", w, err)
	}
	if after := revision(t, s); after != linked.Revision {
		t.Errorf("an idempotent link moved the tip from %q to %q", linked.Revision, after)
	}
	if r := record(t, s, idA); len(r.Links) != 1 {
		t.Errorf("links %+v, want the one link once", r.Links)
	}
}

func testStoreFiles(t *testing.T, s kernel.Store) {
	if data, err := snapshot(t, s).ReadFile(kernel.FormatPath); err != nil || string(data) != kernel.FormatVersion+"\n" {
		t.Errorf("a set-up store's %s = %q, %v; want %q", kernel.FormatPath, data, err, kernel.FormatVersion+"\n")
	}
	if rev := revision(t, s); rev == "" {
		t.Errorf("a set-up store has no revision")
	}
	mustWrite(t, s, create(idA, "A"))
	v := snapshot(t, s)
	if data, err := v.ReadFile(kernel.FormatPath); err != nil || string(data) != kernel.FormatVersion+"\n" {
		t.Errorf("%s = %q, %v; want %q", kernel.FormatPath, data, err, kernel.FormatVersion+"\n")
	}
	if data, err := v.ReadFile(".records/absent"); err != nil || data != nil {
		t.Errorf("an absent file reads %q, %v; want nil", data, err)
	}

	oldPolicy, err := v.ReadFile(kernel.PolicyPath)
	if err != nil {
		t.Fatal(err)
	}
	oldSigners, err := v.ReadFile(kernel.AllowedSignersPath)
	if err != nil {
		t.Fatal(err)
	}
	// Everyone stays a maintainer, and the signers only gain a line, so a
	// store that gates its writes keeps accepting this suite's.
	policy := []byte("version: 1\nrules:\n  - profile: maintainer\n  - principal: other@example.com\n    profile: contributor\n")
	signers := append(append([]byte(nil), oldSigners...), []byte("other@example.com "+otherSignerKey+"\n")...)
	mustWrite(t, s, func(kernel.View, kernel.Env) (*kernel.Mutation, error) {
		return kernel.ChangePolicy(map[string][]byte{kernel.PolicyPath: policy, kernel.AllowedSignersPath: signers},
			kernel.Evidence{Agent: agent, Rationale: "storetest reads the store's files back"})
	})

	now := snapshot(t, s)
	for path, want := range map[string][]byte{kernel.PolicyPath: policy, kernel.AllowedSignersPath: signers} {
		if got, err := now.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s = %q, %v; want %q", path, got, err, want)
		}
	}
	if data, _ := now.ReadFile(kernel.PolicyPath); data != nil {
		if _, err := kernel.ParsePolicy(data); err != nil {
			t.Errorf("the policy read back does not parse: %v", err)
		}
	}
	// The earlier snapshot still reads the files as they were.
	if got, err := v.ReadFile(kernel.PolicyPath); err != nil || !bytes.Equal(got, oldPolicy) {
		t.Errorf("old snapshot's %s = %q, %v; want %q", kernel.PolicyPath, got, err, oldPolicy)
	}
	if got, err := v.ReadFile(kernel.AllowedSignersPath); err != nil || !bytes.Equal(got, oldSigners) {
		t.Errorf("old snapshot's %s = %q, %v; want %q", kernel.AllowedSignersPath, got, err, oldSigners)
	}
	// An empty file is there: only an absent one reads as nil (an empty
	// allowed_signers trusts no one; an absent one is a store without a list).
	const empty = kernel.AttributesPath
	mustWrite(t, s, func(kernel.View, kernel.Env) (*kernel.Mutation, error) {
		return kernel.ChangePolicy(map[string][]byte{empty: {}}, kernel.Evidence{Agent: agent, Rationale: "an empty file is not an absent one"})
	})
	if data, err := snapshot(t, s).ReadFile(empty); err != nil || data == nil || len(data) != 0 {
		t.Errorf("an empty file reads %#v, %v; want empty and not nil", data, err)
	}
	// Files are not records.
	if ids, err := now.IDs(); err != nil || !reflect.DeepEqual(ids, []string{idA}) {
		t.Errorf("IDs() = %v, %v; want [%s]", ids, err, idA)
	}
}

// A store lands only what passes its op's own rules (kernel.CheckCommit),
// whoever built the mutation: an update whose evidence names the title but
// which also flips the authority (field drift) is refused, nothing moves.
func testPostconditionChecked(t *testing.T, s kernel.Store) {
	mustWrite(t, s, create(idA, "A"))
	before := revision(t, s)
	drift := func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, err := update(idA, kernel.UpdateFields{Title: ptr("A2")})(v, env)
		if err != nil {
			return nil, err
		}
		r := m.Writes[0]
		if r.Authority == kernel.AuthorityComputed {
			r.Authority = kernel.AuthorityExternal
		} else {
			r.Authority = kernel.AuthorityComputed
		}
		return m, nil
	}
	w, err := s.Write(drift)
	requireCode(t, err, kernel.CodeInternal)
	if w.Revision != "" || w.Mutation != nil {
		t.Errorf("a refused write reports %+v", w)
	}
	if after := revision(t, s); after != before {
		t.Errorf("a write that breaks its op's rules moved the tip from %q to %q", before, after)
	}
	if r := record(t, s, idA); r.Title != "A" {
		t.Errorf("the drifting update landed: title %q", r.Title)
	}
}

func create(id, title string, aliases ...string) kernel.DecideFunc {
	in := kernel.CreateInput{ID: id, Type: "concept", Title: title, Body: "About " + title + ".\n", Category: "engineering",
		Aliases: aliases, Provenance: kernel.Provenance{Agent: agent}}
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }
}

func update(handle string, f kernel.UpdateFields) kernel.DecideFunc {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, handle, f, kernel.Evidence{Agent: agent}, env)
	}
}

func link(from, to string) kernel.DecideFunc {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.LinkRecords(v, from, []kernel.Link{{TargetID: to, Kind: kernel.LinkRelated}}, kernel.Evidence{Agent: agent}, env)
	}
}

// mustWrite writes and requires that something landed.
func mustWrite(t *testing.T, s kernel.Store, decide kernel.DecideFunc) kernel.Written {
	t.Helper()
	w, err := s.Write(decide)
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	if w.Revision == "" || w.Mutation == nil {
		t.Fatalf("write landed nothing: %+v", w)
	}
	if rev := revision(t, s); rev != w.Revision {
		t.Fatalf("write reports revision %q, the tip is %q", w.Revision, rev)
	}
	return w
}

func snapshot(t *testing.T, s kernel.Store) kernel.Snapshot {
	t.Helper()
	v, err := s.Snapshot()
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return v
}

func revision(t *testing.T, s kernel.Store) string {
	t.Helper()
	rev, err := s.Revision()
	if err != nil {
		t.Fatalf("revision: %v", err)
	}
	if v := snapshot(t, s); v.Revision() != rev {
		t.Fatalf("store revision %q, its snapshot's %q", rev, v.Revision())
	}
	return rev
}

func record(t *testing.T, s kernel.Store, id string) *kernel.Record {
	t.Helper()
	r, err := snapshot(t, s).Record(id)
	if err != nil || r == nil {
		t.Fatalf("record %s: %v, %v", id, r, err)
	}
	return r
}

func requireCode(t *testing.T, err error, code kernel.Code) {
	t.Helper()
	if !kernel.IsCode(err, code) {
		t.Fatalf("error %v, want %s", err, code)
	}
}

func ptr[T any](v T) *T { return &v }
