package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

func relationInput(from, to, relation, mapsTo string) kernel.CreateInput {
	return kernel.CreateInput{
		Type: "relation", Title: "edge", Body: "why these two are related", Category: "engineering.auth",
		From: from, To: to, Relation: relation, MapsTo: mapsTo, Provenance: kernel.Provenance{Agent: agent},
	}
}

func TestRelationRecords(t *testing.T) {
	tests := []struct {
		name                         string
		from, to, relation, mapsTo   string
		want                         kernel.Code // "" when accepted
		wantFrom, wantTo, wantMapsTo string
	}{
		{name: "core relation", from: compiledID, to: rawID, relation: "derived_from", wantFrom: compiledID, wantTo: rawID},
		{name: "another core relation", from: compiledID, to: conceptID, relation: "implements", wantFrom: compiledID, wantTo: conceptID},
		{name: "endpoints given as aliases are stored as ids", from: rawAlias, to: conceptAlias, relation: "references", wantFrom: rawID, wantTo: conceptID},
		{name: "namespaced relation mapping to a core one", from: proposerID, to: conceptID, relation: "github.closes", mapsTo: "resolves", wantFrom: proposerID, wantTo: conceptID, wantMapsTo: "resolves"},
		{name: "namespaced relation without maps_to", from: proposerID, to: conceptID, relation: "github.closes", want: kernel.CodeMissingEvidence},
		{name: "namespaced relation mapping to a non-core relation", from: proposerID, to: conceptID, relation: "github.closes", mapsTo: "closes", want: kernel.CodeMissingEvidence},
		{name: "namespaced relation mapping to another namespaced one", from: proposerID, to: conceptID, relation: "github.closes", mapsTo: "jira.resolves", want: kernel.CodeMissingEvidence},
		{name: "unknown bare relation", from: compiledID, to: rawID, relation: "cites", want: kernel.CodeMissingEvidence},
		{name: "relation that is not a word", from: compiledID, to: rawID, relation: "Derived From", want: kernel.CodeMissingEvidence},
		{name: "missing relation", from: compiledID, to: rawID, want: kernel.CodeMissingEvidence},
		{name: "missing from", to: rawID, relation: "references", want: kernel.CodeMissingEvidence},
		{name: "missing to", from: compiledID, relation: "references", want: kernel.CodeMissingEvidence},
		{name: "from does not exist", from: "nope0000", to: rawID, relation: "references", want: kernel.CodeNotFound},
		{name: "to does not exist", from: compiledID, to: "nope0000", relation: "references", want: kernel.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kernel.Create(fixture(t), relationInput(tt.from, tt.to, tt.relation, tt.mapsTo), opEnv())
			if tt.want != "" {
				rejects(t, tt.want, m, err)
				return
			}
			require.NoError(t, err)
			r := m.Writes[0]
			assert.Equal(t, kernel.KindRelation, r.Kind)
			assert.Equal(t, kernel.RoleFact, r.Role)
			assert.Equal(t, tt.wantFrom, r.From)
			assert.Equal(t, tt.wantTo, r.To)
			assert.Equal(t, tt.relation, r.Relation)
			assert.Equal(t, tt.wantMapsTo, r.MapsTo)
		})
	}
}

func TestEveryCoreRelationIsAccepted(t *testing.T) {
	v := fixture(t)
	for _, rel := range kernel.CoreRelations {
		assert.True(t, kernel.IsCoreRelation(rel))
		_, err := kernel.Create(v, relationInput(compiledID, rawID, rel, ""), opEnv())
		assert.NoError(t, err, rel)
	}
	assert.False(t, kernel.IsCoreRelation("github.closes"))
	assert.False(t, kernel.IsCoreRelation(""))
}

func TestRelationKindOnAnotherType(t *testing.T) {
	// A record of any type that declares kind relation follows the relation rules.
	in := relationInput(compiledID, "nope0000", "references", "")
	in.Type, in.Kind = "acme.edge", kernel.KindRelation
	m, err := kernel.Create(fixture(t), in, opEnv())
	rejects(t, kernel.CodeNotFound, m, err)
}
