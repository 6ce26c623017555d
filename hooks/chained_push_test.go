package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChainedServerHookSharesInput: a server's own pre-receive hook, kept
// as pre-receive.pre-records, reads all of git's input first; git-records
// still judges every ref the push updates and refuses a forged commit in
// pre-receive itself. Without a chained hook the script execs git-records
// on git's input (TestPushToServer, TestPushSummary); with one, the input
// is saved once for both.
func TestChainedServerHookSharesInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	before := w.serverTip(t)
	seen := filepath.Join(t.TempDir(), "chained-input")
	chained := "#!/bin/sh\ncat > '" + seen + "'\n"
	require.NoError(t, os.WriteFile(filepath.Join(w.server, "hooks", "pre-receive.pre-records"), []byte(chained), 0o755))

	dir := w.clone(t)
	w.editBody(t, dir)
	head := commit(t, dir, "", w.updateMsg())
	r := push(t, dir, "records")
	requireRejected(t, r, "signature", "commit is not signed")
	assert.Contains(t, r.stderr, "(pre-receive hook declined)", "pre-receive itself refuses, after the chained hook read the input")
	assert.Equal(t, before, w.serverTip(t))
	data, err := os.ReadFile(seen)
	require.NoError(t, err, "the chained hook ran")
	assert.Equal(t, before+" "+head+" refs/heads/records\n", string(data), "the chained hook saw git's input")
}
