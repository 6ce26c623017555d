package kernel_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// everyOp runs each commit op once, successfully, against the fixture.
var everyOp = []struct {
	op  kernel.Op
	run func(v kernel.View, env kernel.Env) (*kernel.Mutation, error)
}{
	{kernel.OpCreate, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		in := validCreate()
		in.Links = []kernel.Link{{TargetID: rawID, Kind: kernel.LinkSource}}
		in.Provenance.SessionID = "sess-7"
		return kernel.Create(v, in, env)
	}},
	{kernel.OpUpdate, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, rawID, kernel.UpdateFields{Title: ptr("Renamed"), Aliases: []string{"incidents/42"}},
			kernel.Evidence{Agent: agent, SessionID: "sess-7"}, env)
	}},
	{kernel.OpLink, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.LinkRecords(v, compiledID, []kernel.Link{{TargetID: raw2ID, Kind: kernel.LinkSource}},
			kernel.Evidence{Agent: agent, SessionID: "sess-7"}, env)
	}},
	{kernel.OpPropose, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Propose(v, conceptID, idleID, kernel.Evidence{Agent: agent, SessionID: "sess-7", Proposal: "Rename it."}, env)
	}},
	{kernel.OpApply, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Apply(v, conceptID, proposerID, kernel.Evidence{Agent: agent, SessionID: "sess-7", NewBody: proposalText, Rationale: "agreed"}, env)
	}},
	{kernel.OpReject, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Reject(v, conceptID, proposerID, kernel.Evidence{Agent: agent, SessionID: "sess-7", Reason: "no"}, env)
	}},
	{kernel.OpSupersede, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Supersede(v, snapNewID, []string{snapOldID, snapOlderID}, kernel.Evidence{Agent: agent, SessionID: "sess-7", Rationale: "newer"}, env)
	}},
	{kernel.OpRetire, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Retire(v, rawID, kernel.StatusImplemented,
			kernel.Evidence{Agent: agent, SessionID: "sess-7", Rationale: "shipped", ImplementedByRef: "abc123"}, env)
	}},
}

func TestEveryOpCarriesItsTrailers(t *testing.T) {
	for _, tc := range everyOp {
		t.Run(string(tc.op), func(t *testing.T) {
			m, err := tc.run(fixture(t), opEnv())
			require.NoError(t, err)
			require.NotNil(t, m)
			assert.Equal(t, tc.op, m.Op)

			assert.Equal(t, []string{string(tc.op)}, trailerValues(m, kernel.TrailerOp))
			var ids []string
			for _, r := range m.Writes {
				ids = append(ids, r.ID)
			}
			assert.Equal(t, ids, trailerValues(m, kernel.TrailerID), "one Record-Id per written record")
			assert.Equal(t, []string{agent}, trailerValues(m, kernel.TrailerAgent))
			assert.Equal(t, []string{kernel.FormatVersion}, trailerValues(m, kernel.TrailerFormat))
			assert.Equal(t, []string{"sess-7"}, trailerValues(m, kernel.TrailerSession))
			spec, ok := kernel.OpSpecs()[tc.op]
			require.True(t, ok, "every commit op has a spec")
			for _, key := range spec.RequiredTrailers {
				values := trailerValues(m, key)
				require.NotEmpty(t, values, "%s needs trailer %s", tc.op, key)
				for _, val := range values {
					assert.NotEmpty(t, strings.TrimSpace(val), "%s trailer %s is empty", tc.op, key)
				}
			}
			for _, tr := range m.Trailers {
				assert.True(t, kernel.IsTrailerKey(tr.Key), "trailer key %q is outside the fixed set", tr.Key)
			}
		})
	}
}

func TestEveryOpKeepsImmutableFieldsAndAppendsToLogs(t *testing.T) {
	for _, tc := range everyOp {
		t.Run(string(tc.op), func(t *testing.T) {
			v := fixture(t)
			before := snapshot(v)
			m, err := tc.run(v, opEnv())
			require.NoError(t, err)

			assert.Equal(t, before, snapshot(v), "an op never changes the view it read")
			for _, r := range m.Writes {
				prev, existed := before[r.ID]
				if !existed {
					assert.Equal(t, kernel.OpCreate, m.Op, "only create writes a new record")
					continue
				}
				assert.Equal(t, prev.ID, r.ID)
				assert.Equal(t, prev.Type, r.Type, "type is immutable")
				assert.Equal(t, prev.CreatedAt, r.CreatedAt, "created_at is immutable")
				assert.Equal(t, prev.Provenance, r.Provenance, "provenance is immutable")
				require.GreaterOrEqual(t, len(r.MutationLog), len(prev.MutationLog))
				assert.Equal(t, prev.MutationLog, r.MutationLog[:len(prev.MutationLog)], "mutation_log is append-only")
				for _, a := range prev.Aliases {
					assert.Contains(t, r.Aliases, a, "aliases are never dropped")
				}
			}

			// The primary record (written first) logs this op with its agent and time.
			entry := lastLog(t, m.Writes[0])
			assert.Equal(t, string(tc.op), entry.Op)
			assert.Equal(t, agent, entry.Agent)
			assert.Equal(t, kernel.At(opAt), entry.At)
			if tc.op != kernel.OpCreate {
				assert.NotEmpty(t, entry.Evidence, "%s logs its evidence", tc.op)
			}

			// Nothing is ever deleted: the next tip has every record of this one.
			v.commit(m)
			for id := range before {
				assert.NotNil(t, v.records[id], "record %s survives %s", id, tc.op)
			}
		})
	}
}

func TestSubject(t *testing.T) {
	tests := []struct {
		name string
		m    kernel.Mutation
		want string
	}{
		{"op(type): title", kernel.Mutation{Op: kernel.OpApply, Type: "concept", Title: "Token refresh policy"}, "apply(concept): Token refresh policy"},
		{"namespaced type", kernel.Mutation{Op: kernel.OpCreate, Type: "review.finding", Title: "Nil map write"}, "create(review.finding): Nil map write"},
		{"multi-line title becomes one line", kernel.Mutation{Op: kernel.OpUpdate, Type: "raw", Title: "Token\nrefresh\r\n  policy\tv2\n"}, "update(raw): Token refresh policy v2"},
		{"unicode line separators too", kernel.Mutation{Op: kernel.OpUpdate, Type: "raw", Title: "a\u2028b\u0085c"}, "update(raw): a b c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.m.Subject())
		})
	}
}

func TestSubjectShortensLongTitlesWithoutBreakingCharacters(t *testing.T) {
	// 3-byte characters: a cut at byte 200 would land inside one.
	m := kernel.Mutation{Op: kernel.OpCreate, Type: "concept", Title: strings.Repeat("日", 100)}
	s := m.Subject()
	assert.True(t, utf8.ValidString(s), "subject %q", s)
	assert.True(t, strings.HasSuffix(s, "…"))
	assert.LessOrEqual(t, len(strings.TrimPrefix(strings.TrimSuffix(s, "…"), "create(concept): ")), 200)
	assert.NotContains(t, s, "\n")
}

func TestLongNoteTrailerStaysValidUTF8(t *testing.T) {
	note := strings.Repeat("é日", 1000) // 5,000 bytes
	m, err := kernel.Update(fixture(t), rawID, kernel.UpdateFields{Title: ptr("t")}, kernel.Evidence{Agent: agent, Note: note}, opEnv())
	require.NoError(t, err)
	got := trailerValues(m, kernel.TrailerNote)
	require.Len(t, got, 1)
	assert.True(t, utf8.ValidString(got[0]))
	assert.LessOrEqual(t, len(got[0]), 2048)
	assert.True(t, strings.HasPrefix(note, got[0]))
	assert.Equal(t, note, m.Message, "the commit body keeps the whole note")
}

func TestOpSpecsCoverEveryCommitOp(t *testing.T) {
	for _, op := range []kernel.Op{kernel.OpInit, kernel.OpCreate, kernel.OpUpdate, kernel.OpLink, kernel.OpPropose,
		kernel.OpApply, kernel.OpReject, kernel.OpSupersede, kernel.OpRetire} {
		spec, ok := kernel.OpSpecs()[op]
		require.True(t, ok, "%s", op)
		assert.Equal(t, op, spec.Op)
		for _, key := range spec.RequiredTrailers {
			assert.True(t, kernel.IsTrailerKey(key), "%s requires unknown trailer %s", op, key)
		}
	}
	assert.False(t, kernel.IsTrailerKey("Signed-off-by"))
	assert.True(t, kernel.RiskDestructive.AtLeast(kernel.RiskExternalMutation))
	assert.False(t, kernel.RiskReadOnly.AtLeast(kernel.RiskWritesLocalState))
}
