package gitstore

import (
	"encoding/json"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Commit ids in sync and merge JSON are 40-hex strings, as git prints them.
func TestSyncAndMergeJSONCommitIDsAreHex(t *testing.T) {
	t.Parallel()
	a := plumbing.NewHash("1111111111111111111111111111111111111111")
	b := plumbing.NewHash("2222222222222222222222222222222222222222")
	res := SyncResult{Remote: "origin", Ref: "refs/heads/records", Fetched: a,
		Merge: &MergeOutcome{Kind: "merged", Commit: b, Base: a, Ours: a, Theirs: b, Records: []string{"x"}}}
	data, err := json.Marshal(&res)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Equal(t, a.String(), got["fetched"])
	m := got["merge"].(map[string]any)
	for key, want := range map[string]string{"commit": b.String(), "base": a.String(), "ours": a.String(), "theirs": b.String()} {
		assert.Equal(t, want, m[key], key)
	}
	assert.Equal(t, "merged", m["kind"])
	assert.Equal(t, []any{"x"}, m["records"])

	data, err = json.Marshal(SyncResult{Merge: &MergeOutcome{Kind: "up-to-date"}})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Equal(t, "", got["fetched"], "nothing fetched")
	assert.NotContains(t, got["merge"], "commit", "no merge commit")
}
