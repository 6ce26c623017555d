package gitstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestMutateRefusesWhatBreaksItsOwnRules: the write path judges what it is
// about to write with the postcondition verify uses. An update whose
// evidence names the title but which also flips authority is an internal
// error, and the branch does not move.
func TestMutateRefusesWhatBreaksItsOwnRules(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	r := create(t, s, kernel.CreateInput{Title: "A"})
	before, err := s.Tip()
	require.NoError(t, err)
	_, err = s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, err := kernel.Update(v, r.ID, kernel.UpdateFields{Title: ptr("B")}, ev(), env)
		if err != nil {
			return nil, err
		}
		m.Writes[0].Authority = kernel.AuthorityExternal // drift the op did not declare
		return m, nil
	})
	requireCode(t, err, kernel.CodeInternal)
	assert.Contains(t, err.Error(), "update commit changes the authority of "+r.ID)
	after, err := s.Tip()
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing is committed")
}
