package service_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/kernel/memstore"
	"github.com/git-records/git-records/service"
)

// The service's ops and its reads of records run over any store behind the
// kernel's port: these tests run them over the in-memory store, with no git.

func memService(t *testing.T) (*service.Service, *memstore.Store) {
	t.Helper()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := memstore.New(memstore.Options{Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	return service.Over(st, t.TempDir()), st
}

func agent(ev kernel.Evidence) kernel.Evidence { ev.Agent = "alice"; return ev }

// TestOpsOverThePort: create, update, link, supersede and retire write
// through the port, each one revision; reads by id, alias and prefix see
// each write; a write the rules refuse leaves the store where it was.
func TestOpsOverThePort(t *testing.T) {
	svc, st := memService(t)
	rev := func() string { r, err := st.Revision(); require.NoError(t, err); return r }

	first, err := svc.Create(kernel.CreateInput{ID: "rfc-6749-oauth", Type: "raw", Category: "auth.standards", Title: "RFC 6749",
		Body: "refresh tokens may rotate", Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{})
	require.NoError(t, err)
	assert.Equal(t, "rfc-6749-oauth", first.ID)
	assert.Equal(t, rev(), first.Commit, "the write names the revision it landed")
	assert.False(t, first.Unchanged)
	require.NotNil(t, first.Mutation)
	assert.Equal(t, kernel.OpCreate, first.Mutation.Op)

	policy, err := svc.Create(kernel.CreateInput{Type: "concept", Category: "auth.tokens", Aliases: []string{"auth/token-refresh"},
		Title: "Token refresh", Body: "Rotate on every use, as [[rfc-6749-oauth|the RFC]] allows.", Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{})
	require.NoError(t, err)
	r, err := svc.Show(policy.ID)
	require.NoError(t, err)
	assert.Contains(t, r.Links, kernel.Link{TargetID: first.ID, Kind: "related", Label: "the RFC"}, "a body wikilink is among the links get answers")
	for _, handle := range []string{policy.ID, "auth/token-refresh", policy.ID[:kernel.MinIDPrefix]} {
		r, err := svc.Show(handle)
		require.NoError(t, err, handle)
		assert.Equal(t, policy.ID, r.ID, handle)
	}
	_, err = svc.Show("no-such-record")
	assert.True(t, kernel.IsCode(err, kernel.CodeNotFound), "%v", err)

	title := "Token refresh and reuse"
	res, err := svc.Update("auth/token-refresh", kernel.UpdateFields{Title: &title}, agent(kernel.Evidence{Note: "review"}), kernel.Approval{})
	require.NoError(t, err)
	assert.Equal(t, policy.ID, res.ID)
	r, err = svc.Show(policy.ID)
	require.NoError(t, err)
	assert.Equal(t, title, r.Title)

	res, err = svc.Update(policy.ID, kernel.UpdateFields{Title: &title}, agent(kernel.Evidence{}), kernel.Approval{})
	require.NoError(t, err)
	assert.True(t, res.Unchanged, "the same title again writes nothing")
	assert.Empty(t, res.Commit)

	_, err = svc.Link(policy.ID, []kernel.Link{{TargetID: first.ID, Kind: "source"}}, agent(kernel.Evidence{}), kernel.Approval{})
	require.NoError(t, err)
	r, err = svc.Show(policy.ID)
	require.NoError(t, err)
	assert.Contains(t, r.Links, kernel.Link{TargetID: first.ID, Kind: "source"})

	newer, err := svc.Create(kernel.CreateInput{Type: "concept", Category: "auth.tokens", Title: "Token refresh, v2", Body: "b",
		Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{})
	require.NoError(t, err)
	_, err = svc.Supersede(newer.ID, []string{policy.ID}, agent(kernel.Evidence{Rationale: "v2"}), kernel.Approval{})
	require.NoError(t, err)
	_, err = svc.Retire(first.ID, kernel.StatusRetired, agent(kernel.Evidence{Rationale: "gone"}), kernel.Approval{})
	require.NoError(t, err)
	r, err = svc.Show(first.ID)
	require.NoError(t, err)
	assert.Equal(t, kernel.StatusRetired, r.EffectiveStatus())

	before := rev()
	_, err = svc.Retire(newer.ID, kernel.StatusRetired, agent(kernel.Evidence{}), kernel.Approval{})
	assert.True(t, kernel.IsCode(err, kernel.CodeMissingEvidence), "a retire without a rationale: %v", err)
	_, err = svc.Create(kernel.CreateInput{ID: first.ID, Type: "raw", Category: "c", Title: "again", Body: "b",
		Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{})
	assert.Error(t, err, "an id that is taken")
	assert.Equal(t, before, rev(), "nothing refused was written")
}

// TestProposalsOverThePort: a proposal is listed pending, applied with its
// own text, and then listed applied; an edited record file is written as
// the op it amounts to.
func TestProposalsOverThePort(t *testing.T) {
	svc, _ := memService(t)
	concept, err := svc.Create(kernel.CreateInput{Type: "concept", Category: "c", Title: "Concept", Body: "old",
		Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{})
	require.NoError(t, err)
	proposer, err := svc.Create(kernel.CreateInput{Type: "person", Category: "people", Title: "Bob", Body: "b",
		Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{})
	require.NoError(t, err)

	_, err = svc.Propose(service.ProposalInput{Concept: concept.ID, Proposer: proposer.ID, Evidence: agent(kernel.Evidence{Proposal: "new text"})}, kernel.Approval{})
	require.NoError(t, err)
	ps, _, err := svc.Proposals(concept.ID, kernel.ProposalPending)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, "new text", ps[0].Text)

	_, err = svc.Apply(service.ProposalInput{Concept: concept.ID, Proposer: proposer.ID, Evidence: agent(kernel.Evidence{Rationale: "agreed"}), UseProposedText: true}, kernel.Approval{})
	require.NoError(t, err)
	r, err := svc.Show(concept.ID)
	require.NoError(t, err)
	assert.Equal(t, "new text", r.Body, "apply took the proposed text")
	ps, _, err = svc.Proposals("", kernel.ProposalApplied)
	require.NoError(t, err)
	require.Len(t, ps, 1)

	orig, file, err := svc.RecordFile(concept.ID)
	require.NoError(t, err)
	edited, err := service.DecodeRecord(file)
	require.NoError(t, err)
	edited.Links = append(edited.Links, kernel.Link{TargetID: proposer.ID, Kind: "related"})
	data, err := service.EncodeRecord(edited)
	require.NoError(t, err)
	e, err := service.EditOf(orig, data)
	require.NoError(t, err)
	assert.Equal(t, []string{"links"}, e.Changed)
	require.NotNil(t, e.AddLinks, "an edit that only appends links is the link op")
	res, err := svc.ApplyEdit(e, agent(kernel.Evidence{}), kernel.Approval{})
	require.NoError(t, err)
	assert.Equal(t, kernel.OpLink, res.Mutation.Op)

	e, err = service.EditOf(orig, file)
	require.NoError(t, err)
	assert.Empty(t, e.Changed, "the file as it was opened changes nothing")
}

// TestPolicyOverThePort: the policy ops write the store's own files, which
// the trust in force is read from.
func TestPolicyOverThePort(t *testing.T) {
	svc, _ := memService(t)
	line, err := service.AllowedSignersLine("alice@example.com", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl")
	require.NoError(t, err)
	ev := agent(kernel.Evidence{Rationale: "joins"})
	res, err := svc.AddSigner(line, ev, kernel.Approval{})
	require.NoError(t, err)
	assert.False(t, res.Unchanged)
	res, err = svc.AddSigner(line, ev, kernel.Approval{})
	require.NoError(t, err)
	assert.True(t, res.Unchanged, "a signer the store has already")

	_, err = svc.SetPolicy([]byte("not: [a policy"), ev, kernel.Approval{})
	assert.Error(t, err, "a policy that does not parse is refused before it is written")

	tr, err := svc.TrustInForce()
	require.NoError(t, err)
	require.Len(t, tr.Signers(), 1, "the store's allowed signers are the trust's")
	assert.Equal(t, []string{"alice@example.com"}, tr.Signers()[0].Principals)
}

// TestGitOnlyOverThePort: what only git has answers that it needs a git
// store, a usage error, rather than failing somewhere below.
func TestGitOnlyOverThePort(t *testing.T) {
	svc, _ := memService(t)
	_, err := svc.Log(service.LogQuery{})
	assert.True(t, kernel.IsCode(err, kernel.CodeUsage), "%v", err)
	assert.Contains(t, kernel.MessageOf(err), "git store")
	_, err = svc.List(service.ListQuery{})
	assert.True(t, kernel.IsCode(err, kernel.CodeUsage), "%v", err)
	_, err = svc.Verify("", service.VerifyOptions{})
	assert.True(t, kernel.IsCode(err, kernel.CodeUsage), "%v", err)
}

// An import is a streamed op: over a store that cannot stream (the
// in-memory one) the same decision is gathered into one mutation, the
// records it writes and the payloads they stand for.
func TestImportOverAStoreThatCannotStream(t *testing.T) {
	svc, st := memService(t)
	vault := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(vault, name), []byte(body), 0o644))
	}
	write("Welcome.md", "# Welcome\n\nSee [[Guide]] and ![[chart.png]].\n")
	write("Guide.md", "---\naliases: [guide-to-it]\n---\n# Guide\n\nBack to [[Welcome]].\n")
	write("chart.png", "\x89PNG not really an image")
	rep, err := svc.Import(vault, service.ImportOptions{Agent: "alice"}, kernel.Approval{}, nil)
	require.NoError(t, err)
	require.Len(t, rep.Created, 3, "the notes and the chart")
	rev, err := st.Revision()
	require.NoError(t, err)
	assert.Equal(t, rev, rep.Commit)
	guide, err := svc.Show("guide-to-it")
	require.NoError(t, err)
	assert.Equal(t, "Guide", guide.Title)
	chart, err := svc.Show(rep.Attachments[0].ID)
	require.NoError(t, err)
	require.NotNil(t, chart.Source)
	snap, err := st.Snapshot()
	require.NoError(t, err)
	data, err := snap.ReadFile(kernel.PayloadPath(chart.Source.Payload))
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG not really an image", string(data), "the payload lands with its record")
}
