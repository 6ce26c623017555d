package kernel

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckPayloads: the retention rule on payloads, refusals first.
func TestCheckPayloads(t *testing.T) {
	raw := []byte(`{"number":42}`)
	ref := PayloadRef(raw)
	path := PayloadPath(ref)
	require.Equal(t, "payloads/"+strings.TrimPrefix(ref, "sha256:"), path)
	withPayload := func(id, p string) RecordChange {
		return RecordChange{Type: "snapshot", ID: id, New: &Record{ID: id, Type: "snapshot", Source: &Source{Extension: "github", Payload: p}}}
	}
	none := func(string) (bool, error) { return false, nil }
	onBranch := func(p string) (bool, error) { return p == path, nil }

	for _, c := range []struct {
		name    string
		files   []PayloadFile
		changes []RecordChange
		has     func(string) (bool, error)
		rule    string
		says    string
	}{
		{"a name that lies", []PayloadFile{{Path: PayloadPath(PayloadRef([]byte("other"))), Data: raw}}, []RecordChange{withPayload("r", PayloadRef([]byte("other")))}, none, RulePayload, "holds content whose sha256 is"},
		{"a record referencing a missing payload", nil, []RecordChange{withPayload("r", ref)}, none, RulePayload, "names no payload on the branch"},
		{"a ref that is no sha256", nil, []RecordChange{withPayload("r", "md5:abc")}, none, RulePayload, "is not a sha256 reference"},
		{"an uppercase hash", nil, []RecordChange{withPayload("r", strings.ToUpper(ref))}, none, RulePayload, "is not a sha256 reference"},
		{"a payload no record uses", []PayloadFile{{Path: path, Data: raw}}, nil, none, RulePayload, "referenced by no record"},
		{"a path that is no hash", []PayloadFile{{Path: "payloads/readme.txt", Data: raw}}, nil, none, RulePayload, "is not a payload path"},
		{"a deleted payload", []PayloadFile{{Path: path, Deleted: true}}, nil, onBranch, RuleNoDelete, "is deleted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs, err := CheckPayloads(c.files, c.changes, c.has)
			require.NoError(t, err)
			require.NotEmpty(t, vs)
			assert.Equal(t, c.rule, vs[0].Rule)
			assert.Contains(t, vs[0].Message, c.says)
			assert.NotEmpty(t, vs[0].Fix)
		})
	}

	t.Run("accepted", func(t *testing.T) {
		m := &Mutation{}
		got, err := AttachPayload(m, raw)
		require.NoError(t, err)
		assert.Equal(t, ref, got)
		files := []PayloadFile{{Path: path, Data: m.Files[path]}}
		vs, err := CheckPayloads(files, []RecordChange{withPayload("r", ref)}, none)
		require.NoError(t, err)
		assert.Empty(t, vs, "a payload stored with the record that references it")
		vs, err = CheckPayloads(nil, []RecordChange{withPayload("r2", ref)}, onBranch)
		require.NoError(t, err)
		assert.Empty(t, vs, "a second record referencing a payload already on the branch stores nothing")
		old := withPayload("r", ref)
		old.Old = old.New
		vs, err = CheckPayloads(nil, []RecordChange{old}, none)
		require.NoError(t, err)
		assert.Empty(t, vs, "a reference the commit does not change was judged when it was set")
	})
}
