package gitstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// observeOp creates a snapshot record whose raw payload is data, stored
// once by content hash in the same commit.
func observeOp(title string, data []byte) Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		in := kernel.CreateInput{Type: "snapshot", Title: title, Category: "github.pulls", Body: "PR 42\n",
			Provenance: kernel.Provenance{Agent: testAgent},
			Source:     &kernel.Source{Extension: "github", ExternalID: "pull/42", Payload: kernel.PayloadRef(data)}}
		m, err := kernel.Create(v, in, env)
		if err != nil {
			return nil, err
		}
		_, err = StorePayload(m, data)
		return m, err
	}
}

// TestPayloadsStoredOnceByHash: a payload lands at payloads/<sha256> in
// the commit of the record that references it, reads back, and a second
// record of the same bytes shares the file. The write path refuses a
// record whose payload is missing and a payload no record uses, before
// anything is written.
func TestPayloadsStoredOnceByHash(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	raw := []byte(`{"number":42,"state":"open"}`)
	ref := kernel.PayloadRef(raw)
	w := mutate(t, s, observeOp("PR 42", raw))
	r := w.Mutation.Writes[0]
	assert.Equal(t, ref, r.Source.Payload)
	path := kernel.PayloadPath(ref)
	assert.Equal(t, string(raw), gitShow(t, gitDir(s), w.Commit.String(), path), "git sees the payload at its hash")
	v, err := s.View()
	require.NoError(t, err)
	got, err := v.Payload(ref)
	require.NoError(t, err)
	assert.Equal(t, raw, got)
	blob, err := v.FileHash(path)
	require.NoError(t, err)

	w2 := mutate(t, s, observeOp("PR 42 again", raw))
	files := git(t, gitDir(s), "diff-tree", "--no-commit-id", "--name-only", "-r", w2.Commit.String())
	assert.NotContains(t, files, "payloads/", "the second record stores no second copy")
	v, err = s.View()
	require.NoError(t, err)
	again, err := v.FileHash(path)
	require.NoError(t, err)
	assert.Equal(t, blob, again)

	tip, err := s.Tip()
	require.NoError(t, err)
	_, err = s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Create(v, kernel.CreateInput{Type: "snapshot", Title: "No payload", Category: "github.pulls", Body: "b",
			Provenance: kernel.Provenance{Agent: testAgent}, Source: &kernel.Source{Extension: "github", Payload: kernel.PayloadRef([]byte("never stored"))}}, env)
	})
	requireCode(t, err, kernel.CodeInvalidRecord)
	assert.Contains(t, err.Error(), "names no payload on the branch")
	_, err = s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		m, err := createOp(kernel.CreateInput{Title: "Orphan"})(v, env)
		if err != nil {
			return nil, err
		}
		_, err = StorePayload(m, []byte("rides along"))
		return m, err
	})
	requireCode(t, err, kernel.CodeInvalidRecord)
	assert.Contains(t, err.Error(), "referenced by no record")
	after, err := s.Tip()
	require.NoError(t, err)
	assert.Equal(t, tip, after, "nothing was written")
	_, err = v.Payload(kernel.PayloadRef([]byte("never stored")))
	requireCode(t, err, kernel.CodeNotFound)
}
