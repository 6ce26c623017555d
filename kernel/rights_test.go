package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// rightsOf runs RequiredRights on what m changes on top of v.
func rightsOf(t *testing.T, v kernel.View, m *kernel.Mutation) []kernel.Right {
	t.Helper()
	changes, err := kernel.MutationChanges(v, m)
	require.NoError(t, err)
	return kernel.RequiredRights(m.Op, changes, v)
}

// readOnlySecurity is a policy where carol contributes everywhere but is
// read-only in security.
func readOnlySecurity(t *testing.T) *kernel.Policy {
	t.Helper()
	p, err := kernel.ParsePolicy([]byte(`version: 1
rules:
  - profile: maintainer
  - principal: carol
    profile: contributor
  - principal: carol
    category: security
    profile: read-only
`))
	require.NoError(t, err)
	return p
}

// denied lists the rights the policy refuses principal.
func denied(p *kernel.Policy, principal string, rights []kernel.Right) []string {
	var out []string
	for _, r := range rights {
		if d := p.Decide(principal, r.Op, r.Type, r.Category); !d.Allowed {
			out = append(out, r.String())
		}
	}
	return out
}

// TestRequiredRights pins breaks 3 and 4: moving a record out of a
// category needs the op's right in the old category too, and a link whose
// kind has lifecycle meaning needs that lifecycle op's right, on the
// record holding it and on its target.
func TestRequiredRights(t *testing.T) {
	v := fixture(t)
	sec := &kernel.Record{}
	{
		m, err := kernel.Create(v, kernel.CreateInput{ID: "sec-1", Type: "concept", Title: "Key storage", Body: "HSM only.",
			Category: "security", Provenance: kernel.Provenance{Agent: agent}}, opEnv())
		require.NoError(t, err)
		v.commit(m)
		sec = get(t, v, "sec-1")
	}
	policy := readOnlySecurity(t)
	ev := kernel.Evidence{Agent: "carol"}

	t.Run("category escape: the old category counts", func(t *testing.T) {
		eng, body := "eng", "moved"
		m, err := kernel.Update(v, sec.ID, kernel.UpdateFields{Category: &eng, Body: &body}, ev, opEnv())
		require.NoError(t, err)
		rights := rightsOf(t, v, m)
		assert.Contains(t, rights, kernel.Right{Op: kernel.OpUpdate, Type: "concept", Category: "security", Record: "sec-1"})
		assert.Contains(t, rights, kernel.Right{Op: kernel.OpUpdate, Type: "concept", Category: "eng", Record: "sec-1"})
		assert.Equal(t, []string{"update concept sec-1 in security"}, denied(policy, "carol", rights))
	})

	t.Run("supersedes link added by link needs supersede", func(t *testing.T) {
		m, err := kernel.LinkRecords(v, snapNewID, []kernel.Link{{TargetID: snapOldID, Kind: kernel.LinkSupersedes}}, ev, opEnv())
		require.NoError(t, err)
		rights := rightsOf(t, v, m)
		assert.Contains(t, rights, kernel.Right{Op: kernel.OpSupersede, Type: "snapshot", Category: "engineering.auth", Record: snapNewID})
		assert.Contains(t, rights, kernel.Right{Op: kernel.OpSupersede, Type: "snapshot", Category: "engineering.auth", Record: snapOldID})
		assert.Contains(t, denied(policy, "carol", rights), "supersede snapshot "+snapOldID+" in engineering.auth")
	})

	t.Run("supersedes link given at create needs supersede", func(t *testing.T) {
		m, err := kernel.Create(v, kernel.CreateInput{Type: "snapshot", Title: "Newest", Body: "b", Category: "eng",
			Links: []kernel.Link{{TargetID: snapOlderID, Kind: kernel.LinkSupersedes}}, Provenance: kernel.Provenance{Agent: "carol"}}, opEnv())
		require.NoError(t, err)
		assert.Contains(t, denied(policy, "carol", rightsOf(t, v, m)), "supersede snapshot "+snapOlderID+" in engineering.auth")
	})

	t.Run("a relation record whose relation supersedes needs supersede", func(t *testing.T) {
		for _, rel := range []struct{ relation, mapsTo string }{{"supersedes", ""}, {"acme.replaces", "supersedes"}} {
			m, err := kernel.Create(v, kernel.CreateInput{Type: "relation", Title: "Newer replaces older", Body: "b", Category: "eng",
				From: snapNewID, To: snapOlderID, Relation: rel.relation, MapsTo: rel.mapsTo, Provenance: kernel.Provenance{Agent: "carol"}}, opEnv())
			require.NoError(t, err)
			got := denied(policy, "carol", rightsOf(t, v, m))
			assert.Contains(t, got, "supersede snapshot "+snapOlderID+" in engineering.auth", rel.relation)
			assert.Contains(t, got, "supersede snapshot "+snapNewID+" in engineering.auth", rel.relation)
			assert.Contains(t, got, "supersede relation "+m.Writes[0].ID+" in eng", rel.relation)
		}
	})

	t.Run("a relation without lifecycle meaning needs only the op", func(t *testing.T) {
		m, err := kernel.Create(v, kernel.CreateInput{Type: "relation", Title: "Newer refs older", Body: "b", Category: "eng",
			From: snapNewID, To: snapOlderID, Relation: "references", Provenance: kernel.Provenance{Agent: "carol"}}, opEnv())
		require.NoError(t, err)
		assert.Empty(t, denied(policy, "carol", rightsOf(t, v, m)))
	})

	t.Run("a related link needs only the op", func(t *testing.T) {
		m, err := kernel.LinkRecords(v, rawID, []kernel.Link{{TargetID: raw2ID, Kind: kernel.LinkRelated}}, ev, opEnv())
		require.NoError(t, err)
		assert.Equal(t, []kernel.Right{{Op: kernel.OpLink, Type: "raw", Category: "engineering.auth", Record: rawID}}, rightsOf(t, v, m))
	})

	t.Run("a store-level op needs the op on the store", func(t *testing.T) {
		assert.Equal(t, []kernel.Right{{Op: kernel.OpPolicy}}, kernel.RequiredRights(kernel.OpPolicy, nil, v))
	})
}
