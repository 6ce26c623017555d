package gitstore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// A relation record is an edge of its own (Agent Kit, Relations): the typed
// edge shows under its from record and as a backlink of its to record, not
// as a link of the relation record.
func TestRelationRecordEdgeBelongsToItsFromRecord(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{ID: "decision-a", Type: "decision", Title: "A", Body: "a", Category: "arch", Provenance: kernel.Provenance{Agent: testAgent}})
	b := create(t, s, kernel.CreateInput{ID: "service-b", Type: "concept", Title: "B", Body: "b", Category: "arch", Provenance: kernel.Provenance{Agent: testAgent}})
	rel := create(t, s, kernel.CreateInput{ID: "a-depends-on-b", Type: "relation", Title: "A depends on B", Body: "why", Category: "arch",
		From: a.ID, To: b.ID, Relation: "depends_on", Provenance: kernel.Provenance{Agent: testAgent}})

	for _, fresh := range []bool{false, true} {
		st := s
		if fresh {
			st = reopen(t, s) // through the on-disk cache
		}
		v, err := st.View()
		require.NoError(t, err)
		links, err := v.Links(a.ID)
		require.NoError(t, err)
		require.Contains(t, links.Forward, Edge{Target: b.ID, Kind: "depends_on"})
		back, err := v.Links(b.ID)
		require.NoError(t, err)
		require.Contains(t, back.Reverse, Edge{Source: a.ID, Kind: "depends_on"})
		own, err := v.Links(rel.ID)
		require.NoError(t, err)
		require.Empty(t, own.Forward, "the relation record itself links nowhere")
		ix, err := v.Index()
		require.NoError(t, err)
		require.Contains(t, ix.Graph().Forward[a.ID], GraphEdge{TargetID: b.ID, Kind: "depends_on"})
	}
}

// A frontmatter link and a body [[alias]] to the same record are one edge,
// forward and back: the demo's finding links its concept both ways.
func TestLinkAndWikilinkToOneRecordAreOneEdge(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	c := create(t, s, kernel.CreateInput{Title: "concept", Aliases: []string{"auth/token-refresh"}})
	f := create(t, s, kernel.CreateInput{Title: "finding", Body: "See [[auth/token-refresh]].\n",
		Links: []kernel.Link{{TargetID: "auth/token-refresh", Kind: kernel.LinkRelated, Label: "the policy"}}})
	v, err := reopen(t, s).View()
	require.NoError(t, err)
	l, err := v.Links(f.ID)
	require.NoError(t, err)
	require.Equal(t, []Edge{{Target: c.ID, Kind: kernel.LinkRelated, Label: "the policy"}}, l.Forward)
	back, err := v.Links(c.ID)
	require.NoError(t, err)
	require.Equal(t, []Edge{{Source: f.ID, Kind: kernel.LinkRelated, Label: "the policy"}}, back.Reverse)
}
