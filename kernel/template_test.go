package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestTemplateFor: a type's template holds what create requires of it,
// from the vocabulary: a relation's ends and kind, an implementation's
// contract; its body hint follows the type's role.
func TestTemplateFor(t *testing.T) {
	required := func(tp *kernel.RecordTemplate) []string {
		var names []string
		for _, f := range tp.Fields {
			if f.Required {
				names = append(names, f.Name)
			}
		}
		return names
	}
	concept, err := kernel.TemplateFor("concept")
	require.NoError(t, err)
	assert.Equal(t, []string{"type", "title", "category"}, required(concept))
	assert.Contains(t, concept.FieldNames(), "links")
	assert.NotContains(t, concept.FieldNames(), "from")
	assert.NotContains(t, concept.FieldNames(), "extension_contract")
	assert.Contains(t, concept.BodyHint, "claimed")

	rel, err := kernel.TemplateFor("relation")
	require.NoError(t, err)
	assert.Equal(t, []string{"type", "title", "category", "from", "to", "relation"}, required(rel))
	_, ok := rel.Field("maps_to")
	assert.True(t, ok)

	routine, err := kernel.TemplateFor(kernel.TypeRoutine)
	require.NoError(t, err)
	assert.Contains(t, routine.FieldNames(), "extension_contract")

	decision, err := kernel.TemplateFor("decision")
	require.NoError(t, err)
	assert.Contains(t, decision.BodyHint, "options weighed")

	ns, err := kernel.TemplateFor("acme.incident")
	require.NoError(t, err, "a namespaced type has the default template")
	assert.NotEmpty(t, ns.BodyHint)

	_, err = kernel.TemplateFor("concpet")
	assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err), "a typo is not a type")
	_, err = kernel.TemplateFor("")
	assert.Equal(t, kernel.CodeMissingEvidence, kernel.CodeOf(err))
	_, err = kernel.TemplateFor(kernel.TypeRun)
	assert.ErrorContains(t, err, "exec start", "execution records start with exec start")
}
