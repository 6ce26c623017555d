package kernel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecisionBearing: each clause of the contract's definition, as the
// rule recognises it, and noise.
func TestDecisionBearing(t *testing.T) {
	event := func(f func(r *Record)) *Record {
		r := &Record{ID: "e", Type: "raw", Kind: KindEvent, Role: RoleFact, Status: StatusActive}
		if f != nil {
			f(r)
		}
		return r
	}
	for _, c := range []struct {
		name  string
		r     *Record
		cited []Citation
		rule  string
	}{
		{"noise", event(nil), []Citation{{From: "n", FromType: "concept", Kind: LinkRelated}}, ""},
		{"a decision", event(func(r *Record) { r.Role = RoleDecision }), nil, BearsDecision},
		{"a decision record", event(func(r *Record) { r.Type = "decision" }), nil, BearsDecision},
		{"a workflow link", event(func(r *Record) { r.Links = []Link{{TargetID: "x", Kind: "implements"}} }), nil, BearsWorkflowState},
		{"a workflow relation", event(func(r *Record) { r.Kind, r.Relation, r.To = KindRelation, "blocks", "x" }), nil, BearsWorkflowState},
		{"applied", event(func(r *Record) { r.MutationLog = []MutationEntry{{Op: "create"}, {Op: "apply"}} }), nil, BearsWorkflowState},
		{"implemented", event(func(r *Record) { r.Status = StatusImplemented }), nil, BearsMarksState},
		{"tagged ready", event(func(r *Record) { r.Tags = []string{"x", "ready"} }), nil, BearsMarksState},
		{"an action", event(func(r *Record) { r.Type = "github.action" }), nil, BearsExternalMutation},
		{"contradicts another", event(func(r *Record) { r.Links = []Link{{TargetID: "x", Kind: "contradicts"}} }), nil, BearsContradiction},
		{"contradicted", event(nil), []Citation{{From: "y", FromType: "concept", Kind: "contradicts"}}, BearsContradiction},
		{"cited in a report", event(nil), []Citation{{From: "rep", FromType: "ops.report", Kind: LinkRelated}}, BearsCitation},
		{"cited by a decision", event(nil), []Citation{{From: "d", FromType: "concept", FromRole: RoleDecision, Kind: LinkSource}}, BearsCitation},
		// Observations are facts: noise unless a rule above holds.
		{"an observation", observation(RoleFact, AuthorityExternal), []Citation{{From: "n", FromType: "concept", Kind: LinkRelated}}, ""},
		{"an observation with the snapshot type's old axes", observation(RoleDecision, AuthorityComputed), nil, ""},
		{"an old observation cited by a decision", observation(RoleDecision, AuthorityComputed),
			[]Citation{{From: "d", FromType: "decision", FromRole: RoleDecision, Kind: LinkSource}}, BearsCitation},
		{"an old observation tagged blocked", func() *Record {
			r := observation(RoleDecision, AuthorityComputed)
			r.Tags = []string{"blocked"}
			return r
		}(), nil, BearsMarksState},
		{"a decision summary snapshot", func() *Record {
			r := observation(RoleDecision, AuthorityComputed)
			r.Source, r.ObservedAt = nil, nil
			return r
		}(), nil, BearsDecision},
		{"an observation its writer called a decision", observation(RoleDecision, AuthorityLocal), nil, BearsDecision},
	} {
		t.Run(c.name, func(t *testing.T) {
			rule, reason, bearing := DecisionBearing(c.r, c.cited)
			assert.Equal(t, c.rule, rule)
			assert.Equal(t, c.rule != "", bearing)
			assert.Equal(t, c.rule != "", reason != "")
		})
	}
}

// observation is a snapshot as Observe writes it, with role and authority.
func observation(role Role, authority Authority) *Record {
	at := At(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	return &Record{ID: "o", Type: "snapshot", Kind: KindSnapshot, Role: role, Authority: authority, Status: StatusActive, ObservedAt: &at,
		Source: &Source{Extension: "github", ExternalID: "pull/42", Payload: PayloadRef([]byte("{}"))}}
}

// TestCheckCompaction: what verify refuses in a compaction commit.
func TestCheckCompaction(t *testing.T) {
	old := &Record{ID: "e", Type: "raw", Kind: KindEvent, Status: StatusActive}
	retired := old.Clone()
	retired.Status = StatusRetired
	rollup := &Record{ID: "r", Type: RollupType, Links: []Link{{TargetID: "e", Kind: LinkRollsUp}}}
	changes := []RecordChange{{Type: RollupType, ID: "r", New: rollup}, {Type: "raw", ID: "e", Old: old, New: retired}}
	trailers := []Trailer{{TrailerCompacted, "e noise"}}
	none := func(string) ([]Citation, error) { return nil, nil }

	vs, err := CheckCompaction(trailers, changes, none)
	require.NoError(t, err)
	assert.Empty(t, vs)

	vs, err = CheckCompaction(trailers, changes, func(string) ([]Citation, error) {
		return []Citation{{From: "rep", FromType: "report", Kind: LinkRelated}}, nil
	})
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, RuleDecisionBearing, vs[0].Rule)

	vs, err = CheckCompaction(nil, changes, none)
	require.NoError(t, err)
	require.Len(t, vs, 1, "a retired record not named in the evidence")
	assert.Contains(t, vs[0].Message, "without an Evidence-Compacted trailer")

	unlinked := []RecordChange{{Type: RollupType, ID: "r", New: &Record{ID: "r", Type: RollupType}}, changes[1]}
	vs, err = CheckCompaction(trailers, unlinked, none)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Contains(t, vs[0].Message, "which its rollup does not roll up")

	vs, err = CheckCompaction(trailers, changes[1:], none)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Contains(t, vs[0].Message, "adds no rollup")
}
