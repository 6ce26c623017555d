package kernel_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// violationsOf runs the postcondition of m on top of v.
func violationsOf(t *testing.T, v kernel.View, m *kernel.Mutation) []string {
	t.Helper()
	changes, err := kernel.MutationChanges(v, m)
	require.NoError(t, err)
	var out []string
	for _, x := range kernel.CheckCommit(m.Op, m.Trailers, changes, v) {
		out = append(out, x.Rule+": "+x.Message)
	}
	return out
}

// forged is a mutation that writes one record as op with trailers.
func forged(op kernel.Op, r *kernel.Record, trailers ...kernel.Trailer) *kernel.Mutation {
	base := []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(op)}, {Key: kernel.TrailerID, Value: r.ID},
		{Key: kernel.TrailerAgent, Value: agent}, {Key: kernel.TrailerFormat, Value: kernel.FormatVersion}}
	return &kernel.Mutation{Op: op, Type: r.Type, Title: r.Title, Writes: []*kernel.Record{r}, Trailers: append(base, trailers...)}
}

// appended is r with a log entry of op appended.
func appended(r *kernel.Record, op kernel.Op) *kernel.Record {
	c := r.Clone()
	c.MutationLog = append(c.MutationLog, kernel.MutationEntry{Op: string(op), At: kernel.At(opAt), Agent: agent})
	c.UpdatedAt = kernel.At(opAt)
	return c
}

// TestCheckCommitRefuses: a signed commit whose changes are not what its
// op may do. Each row is a valid op's output with one thing changed.
func TestCheckCommitRefuses(t *testing.T) {
	v := fixture(t)
	fields := func(names string) kernel.Trailer { return kernel.Trailer{Key: kernel.TrailerFields, Value: names} }
	for _, c := range []struct {
		name string
		m    func() *kernel.Mutation
		want string
	}{
		// Break 11, field drift: the evidence says title, the commit also
		// flips authority.
		{"update names title and flips authority", func() *kernel.Mutation {
			r := appended(get(t, v, conceptID), kernel.OpUpdate)
			r.Title, r.Authority = "Renamed", kernel.AuthorityExternal
			return forged(kernel.OpUpdate, r, fields("title"))
		}, "op-matches: update commit changes the authority of " + conceptID},
		{"update names title and changes the body", func() *kernel.Mutation {
			r := appended(get(t, v, conceptID), kernel.OpUpdate)
			r.Title, r.Body = "Renamed", "Another body."
			return forged(kernel.OpUpdate, r, fields("title"))
		}, "op-matches: update commit changes the body of " + conceptID + ", which its Evidence-Fields does not name"},
		{"update names a field update does not change", func() *kernel.Mutation {
			r := appended(get(t, v, conceptID), kernel.OpUpdate)
			r.Role = kernel.RoleFact
			return forged(kernel.OpUpdate, r, fields("role"))
		}, `trailers: Evidence-Fields names "role", which is not a field update changes`},
		{"link changes the title", func() *kernel.Mutation {
			r := appended(get(t, v, rawID), kernel.OpLink)
			r.Links = append(r.Links, kernel.Link{TargetID: raw2ID, Kind: kernel.LinkRelated})
			r.Title = "Renamed"
			return forged(kernel.OpLink, r, kernel.Trailer{Key: kernel.TrailerLink, Value: "related " + raw2ID})
		}, "op-matches: link commit changes the title of " + rawID},
		{"link drops a link", func() *kernel.Mutation {
			r := appended(get(t, v, compiledID), kernel.OpLink)
			r.Links = []kernel.Link{{TargetID: raw2ID, Kind: kernel.LinkRelated}}
			return forged(kernel.OpLink, r, kernel.Trailer{Key: kernel.TrailerLink, Value: "related " + raw2ID})
		}, "op-matches: link commit removes or rewrites links of " + compiledID},
		{"retire flips the kind", func() *kernel.Mutation {
			r := appended(get(t, v, rawID), kernel.OpRetire)
			r.Status, r.Kind = kernel.StatusRetired, kernel.KindEvent
			return forged(kernel.OpRetire, r)
		}, "op-matches: retire commit changes the kind of " + rawID},
		{"verify changes the source", func() *kernel.Mutation {
			r := appended(get(t, v, rawID), kernel.OpVerify)
			r.UpdatedAt = get(t, v, rawID).UpdatedAt
			r.Source = &kernel.Source{ExternalID: "forged"}
			return forged(kernel.OpVerify, r)
		}, "op-matches: verify commit changes the source of " + rawID},
		{"propose adds a supersedes link to the proposer", func() *kernel.Mutation {
			r := get(t, v, idleID).Clone()
			r.Links = append(r.Links, kernel.Link{TargetID: conceptID, Kind: kernel.LinkProposes}, kernel.Link{TargetID: raw2ID, Kind: kernel.LinkSupersedes})
			return forged(kernel.OpPropose, r)
		}, "mutation-log: record " + idleID + " changes without a new mutation log entry"},
		// Break 2, handle hijack.
		{"create with an id another type holds", func() *kernel.Mutation {
			r := get(t, v, conceptID).Clone()
			r.Type, r.Aliases = "raw", nil
			return forged(kernel.OpCreate, r)
		}, "handle: id " + conceptID + " already names a concept record: ids are unique across types"},
		{"create with an id that is another record's alias", func() *kernel.Mutation {
			r := newRecord("incident-42")
			r.ID = "engineering.auth-incident"
			m := forged(kernel.OpCreate, r)
			v.records[rawID].Aliases = append(v.records[rawID].Aliases, r.ID) // the alias another record holds
			return m
		}, "handle: id engineering.auth-incident is already an alias of record " + rawID},
		{"create claiming an alias another record holds", func() *kernel.Mutation {
			r := newRecord("fresh0001")
			r.Aliases = []string{conceptAlias}
			return forged(kernel.OpCreate, r)
		}, fmt.Sprintf("handle: alias %q already belongs to record %s", conceptAlias, conceptID)},
		{"update claiming an alias that is another record's id", func() *kernel.Mutation {
			r := appended(get(t, v, raw2ID), kernel.OpUpdate)
			r.Aliases = append(r.Aliases, rawID)
			return forged(kernel.OpUpdate, r, fields("aliases"))
		}, fmt.Sprintf("handle: alias %q is the id of record %s", rawID, rawID)},
		// Export names files by aliases: a forged commit may not claim
		// one that climbs out of the export's target.
		{"create claiming an alias with '..' segments", func() *kernel.Mutation {
			r := newRecord("fresh0002")
			r.Aliases = []string{"a/../../../.bashrc"}
			return forged(kernel.OpCreate, r)
		}, `alias-path: aliases entry "a/../../../.bashrc" has the path segment ".."`},
		{"update claiming an alias with an empty segment", func() *kernel.Mutation {
			r := appended(get(t, v, raw2ID), kernel.OpUpdate)
			r.Aliases = append(r.Aliases, "a//b")
			return forged(kernel.OpUpdate, r, fields("aliases"))
		}, `alias-path: aliases entry "a//b" has the path segment ""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := violationsOf(t, v, c.m())
			found := false
			for _, g := range got {
				found = found || strings.HasPrefix(g, c.want)
			}
			assert.True(t, found, "want %q among %q", c.want, got)
		})
	}
}

// TestAliasWrittenBeforeThePathRule: a store may hold an alias with '..'
// segments from before ValidateAlias refused them. The record still reads
// and validates, ops on it still pass their own check (the alias is held,
// not claimed), and a new claim of such an alias is refused by the op.
func TestAliasWrittenBeforeThePathRule(t *testing.T) {
	v := fixture(t)
	const legacy = "a/../../../.bashrc"
	v.records[raw2ID].Aliases = []string{legacy}
	require.NoError(t, kernel.Validate(v.records[raw2ID]), "a stored record with the alias is still a valid record")

	title := "Chat excerpt, renamed"
	m, err := kernel.Update(v, raw2ID, kernel.UpdateFields{Title: &title}, kernel.Evidence{Agent: agent}, opEnv())
	require.NoError(t, err)
	assert.Equal(t, []string{legacy}, mustWrite(t, m, raw2ID).Aliases, "aliases are append-only: the held one stays")
	assert.Empty(t, violationsOf(t, v, m), "keeping an alias the record already held is no new claim")

	_, err = kernel.Update(v, idleID, kernel.UpdateFields{Aliases: []string{"b/../../x"}}, kernel.Evidence{Agent: agent}, opEnv())
	assert.Equal(t, kernel.CodeMissingEvidence, kernel.CodeOf(err))
	assert.Equal(t, "aliases", kernel.FieldOf(err))
	_, err = kernel.Create(v, kernel.CreateInput{Type: "raw", Title: "t", Body: "b", Category: "eng", Aliases: []string{"x/./y"},
		Provenance: kernel.Provenance{Agent: agent}}, opEnv())
	assert.Equal(t, "aliases", kernel.FieldOf(err), "create refuses it too: %v", err)
}

// newRecord is a valid new raw record with id, as create writes it.
func newRecord(id string) *kernel.Record {
	now := kernel.At(opAt)
	return &kernel.Record{ID: id, Type: "raw", Title: "New", Category: "eng", Status: kernel.StatusActive,
		Kind: kernel.KindEntity, Role: kernel.RoleFact, Authority: kernel.AuthorityExternal, CreatedAt: now, UpdatedAt: now,
		Provenance: kernel.Provenance{Agent: agent}, Body: "New.",
		MutationLog: []kernel.MutationEntry{{Op: string(kernel.OpCreate), At: now, Agent: agent}}}
}

// TestEveryOpPassesItsOwnCheck is the property the write path relies on:
// for many generated inputs, whatever an op decides passes CheckCommit
// against the view it decided on.
func TestEveryOpPassesItsOwnCheck(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			v := fixture(t)
			env := envAt(opAt)
			ids := func() []string { return v.sortedIDs() }
			pick := func() string { all := ids(); return all[rng.Intn(len(all))] }
			word := func() string { return fmt.Sprintf("w%d", rng.Intn(50)) }
			ev := kernel.Evidence{Agent: agent, Note: "n", Proposal: "p", NewBody: "new body", Rationale: "r", Reason: "no", ImplementedByRef: "PR-1"}
			ran := map[kernel.Op]int{}
			for i := 0; i < 150; i++ {
				var m *kernel.Mutation
				var err error
				switch rng.Intn(9) {
				case 0:
					in := kernel.CreateInput{Type: []string{"raw", "concept", "snapshot", "review.finding"}[rng.Intn(4)], Title: word(), Body: word(),
						Category: "eng." + word(), Tags: []string{word(), word()}, Provenance: kernel.Provenance{Agent: agent}}
					if rng.Intn(2) == 0 {
						in.ID = "id-" + word()
					}
					if rng.Intn(2) == 0 {
						in.Aliases = []string{"alias/" + word()}
					}
					if rng.Intn(2) == 0 {
						in.Links = []kernel.Link{{TargetID: pick(), Kind: []string{"related", "source", "supersedes"}[rng.Intn(3)]}}
					}
					m, err = kernel.Create(v, in, env)
				case 1:
					f := kernel.UpdateFields{}
					for _, set := range []func(){
						func() { s := word(); f.Title = &s },
						func() { s := word(); f.Body = &s },
						func() { s := "eng." + word(); f.Category = &s },
						func() { tags := []string{word()}; f.Tags = &tags },
						func() { ls := []kernel.Link{{TargetID: pick(), Kind: kernel.LinkRelated}}; f.Links = &ls },
						func() { f.Aliases = []string{"alias/" + word()} },
						func() { f.ExpiresAt = expiryJSON(t, `"2030-01-01T00:00:00Z"`) },
						func() { f.TTLSeconds = kernel.TTL(3600) },
						func() { f.Scope = &kernel.Scope{Paths: []string{word() + ".go"}} },
					} {
						if rng.Intn(3) == 0 {
							set()
						}
					}
					m, err = kernel.Update(v, pick(), f, ev, env)
				case 2:
					m, err = kernel.LinkRecords(v, pick(), []kernel.Link{{TargetID: pick(), Kind: []string{"related", "refines", "example"}[rng.Intn(3)]}}, ev, env)
				case 3:
					m, err = kernel.Propose(v, pick(), pick(), ev, env)
				case 4:
					m, err = kernel.Apply(v, pick(), pick(), ev, env)
				case 5:
					m, err = kernel.Reject(v, pick(), pick(), ev, env)
				case 6:
					m, err = kernel.Supersede(v, pick(), []string{pick(), pick()}, ev, env)
				case 7:
					m, err = kernel.Retire(v, pick(), []kernel.Status{kernel.StatusImplemented, kernel.StatusRetired}[rng.Intn(2)], ev, env)
				case 8:
					state := []kernel.FreshnessState{kernel.FreshnessCurrent, kernel.FreshnessStale}[rng.Intn(2)]
					m, err = kernel.RecordVerdicts(v, []kernel.Verdict{{ID: pick(), State: state}}, "abc", "", ev, env)
				}
				if err != nil || m == nil {
					continue // refused or nothing to do: nothing is written
				}
				ran[m.Op]++
				require.Empty(t, violationsOf(t, v, m), "%s writes %s", m.Op, strings.Join(kernel.SortedIDs(m.Writes), ", "))
				v.commit(m)
			}
			assert.GreaterOrEqual(t, len(ran), 6, "the generator reaches most ops: %v", ran)
		})
	}
}

// TestFinalNewlineIsNoBodyChange: an editor adds (or drops) the newline at
// the end of a file it saves. A hand edit whose body differs only in that
// final newline has not changed the body: ChangedFields does not name it,
// so a link commit may carry it and an update need not list it.
func TestFinalNewlineIsNoBodyChange(t *testing.T) {
	v := fixture(t)
	fields := func(names string) kernel.Trailer { return kernel.Trailer{Key: kernel.TrailerFields, Value: names} }
	body := get(t, v, conceptID).Body
	require.False(t, strings.HasSuffix(body, "\n"), "the fixture's body has no final newline")

	for _, c := range []struct{ old, cur string }{{"one", "one\n"}, {"one\n", "one"}, {"one\n", "one\n"}} {
		a, b := newRecord("nl"), newRecord("nl")
		a.Body, b.Body = c.old, c.cur
		assert.Empty(t, kernel.ChangedFields(a, b), "%q → %q", c.old, c.cur)
	}
	for _, c := range []struct{ old, cur string }{{"one", "one\n\n"}, {"one", "two\n"}, {"one\n", "\none"}, {"one", " one"}} {
		a, b := newRecord("nl"), newRecord("nl")
		a.Body, b.Body = c.old, c.cur
		assert.Equal(t, []string{"body"}, kernel.ChangedFields(a, b), "%q → %q is a body change", c.old, c.cur)
	}

	t.Run("an update of the title saved by an editor", func(t *testing.T) {
		r := appended(get(t, v, conceptID), kernel.OpUpdate)
		r.Title, r.Body = "Renamed", body+"\n"
		assert.Empty(t, violationsOf(t, v, forged(kernel.OpUpdate, r, fields("title"))))
	})
	t.Run("a link added by hand in an editor", func(t *testing.T) {
		r := appended(get(t, v, rawID), kernel.OpLink)
		r.Links = append(r.Links, kernel.Link{TargetID: raw2ID, Kind: kernel.LinkRelated})
		r.Body += "\n"
		assert.Empty(t, violationsOf(t, v, forged(kernel.OpLink, r, kernel.Trailer{Key: kernel.TrailerLink, Value: "related " + raw2ID})))
	})
}

// TestHandlesStayUniqueWithinACommitAndThroughAMerge: the handles a commit
// claims are judged against its first parent and against each other, so
// the result tree of every commit, a merge's included, holds each id and
// alias once. Two records of one commit may not share an id (their types,
// so their paths, differ), an id may not be an alias another record of the
// commit claims, and a merge may not bring in a record whose id or alias
// the first parent already uses, whichever side comes first.
func TestHandlesStayUniqueWithinACommitAndThroughAMerge(t *testing.T) {
	v := fixture(t)
	ids := func(rs ...*kernel.Record) []kernel.Trailer {
		var ts []kernel.Trailer
		for _, r := range rs {
			ts = append(ts, kernel.Trailer{Key: kernel.TrailerID, Value: r.ID})
		}
		return ts
	}
	judge := func(op kernel.Op, rs ...*kernel.Record) []string {
		changes := make([]kernel.RecordChange, len(rs))
		for i, r := range rs {
			changes[i] = kernel.RecordChange{Type: r.Type, ID: r.ID, New: r}
		}
		var out []string
		for _, x := range kernel.CheckCommit(op, append([]kernel.Trailer{{Key: kernel.TrailerOp, Value: string(op)}}, ids(rs...)...), changes, v) {
			if x.Rule == kernel.RuleHandle { // an import's other evidence is not this test's
				out = append(out, x.Rule+": "+x.Message)
			}
		}
		return out
	}
	t.Run("two records of one commit with one id", func(t *testing.T) {
		a, b := newRecord("rfc-1"), newRecord("rfc-1")
		b.Type = "concept"
		for _, op := range []kernel.Op{kernel.OpImport, kernel.OpMerge} {
			assert.Contains(t, judge(op, a, b), "handle: id rfc-1 is given to two records in one commit, a raw and a concept: ids are unique across types", op)
		}
	})
	t.Run("an id another record of the commit claims as alias", func(t *testing.T) {
		a, b := newRecord("deploy-policy"), newRecord("other-1")
		b.Aliases = []string{"deploy-policy"}
		for _, op := range []kernel.Op{kernel.OpImport, kernel.OpMerge} {
			for _, order := range [][]*kernel.Record{{a, b}, {b, a}} {
				assert.Equal(t, []string{"handle: id deploy-policy is an alias record other-1 claims in the same commit"}, judge(op, order...), op)
			}
		}
	})
	t.Run("a merge bringing in an id the first parent holds under another type", func(t *testing.T) {
		r := get(t, v, conceptID).Clone()
		r.Type = "raw"
		assert.Equal(t, []string{"handle: id " + conceptID + " already names a concept record: ids are unique across types"}, judge(kernel.OpMerge, r))
	})
	t.Run("a merge bringing in an alias the first parent gives another record", func(t *testing.T) {
		r := newRecord("hers-1")
		r.Aliases = []string{conceptAlias}
		assert.Equal(t, []string{fmt.Sprintf("handle: alias %q already belongs to record %s", conceptAlias, conceptID)}, judge(kernel.OpMerge, r))
	})
	t.Run("a merge bringing in records with handles of their own", func(t *testing.T) {
		r := newRecord("hers-2")
		r.Aliases = []string{"hers/two"}
		assert.Empty(t, judge(kernel.OpMerge, r))
	})
}
