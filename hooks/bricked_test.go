package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// brokenTrustFiles are store files that do not parse, as a maintainer's typo
// leaves them.
var brokenTrustFiles = map[string]string{
	"policy.yaml":     "version: 1\nrules:\n  - principal: carol@example.com\n    profile: contributor\n  profile: maintainer\n",
	"allowed_signers": "test@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPrvPwsNF7j4XIV6uNrH6SWcR//sJD\n",
}

// breakTrust commits, in a clone with the records branch checked out, a
// maintainer-signed policy commit that leaves .records/<file> unparseable.
func (w *world) breakTrust(t *testing.T, dir, file string) string {
	t.Helper()
	path := filepath.Join(dir, ".records", file)
	data := brokenTrustFiles[file]
	if file == "allowed_signers" {
		cur, err := os.ReadFile(path)
		require.NoError(t, err)
		data = string(cur) + data
	}
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	return commit(t, dir, w.key, handMsg("policy(store): change .records/"+file,
		"Record-Op: policy", "Record-Agent: "+userEmail, "Record-Format: 1", "Evidence-Rationale: tighten"))
}

// TestNoBrickedServer: a policy commit whose policy.yaml or allowed_signers
// does not parse would make every later push fail, its repair included, so
// it can never land. A store that is broken already (the file came in
// before this rule) refuses every op but its repair: a policy commit judged
// under the last trust that parsed.
func TestNoBrickedServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for file := range brokenTrustFiles {
		t.Run("a commit leaving "+file+" broken is refused", func(t *testing.T) {
			dir := w.clone(t)
			before := w.serverTip(t)
			w.breakTrust(t, dir, file)
			requireRejected(t, push(t, dir, "records"), "trust", file)
			assert.Equal(t, before, w.serverTip(t))
		})
	}

	t.Run("a store already broken is repaired by a maintainer's policy commit", func(t *testing.T) {
		// The broken commit lands with the hooks off, as before this rule.
		for _, hook := range []string{"pre-receive", "update"} {
			p := filepath.Join(w.server, "hooks", hook)
			require.NoError(t, os.Rename(p, p+".off"))
			defer os.Rename(p+".off", p)
		}
		dir := w.clone(t)
		w.breakTrust(t, dir, "policy.yaml")
		require.Equal(t, 0, push(t, dir, "records").code)
		for _, hook := range []string{"pre-receive", "update"} {
			p := filepath.Join(w.server, "hooks", hook)
			require.NoError(t, os.Rename(p+".off", p))
		}

		carolDir := w.carolClone(t)
		requireDenied(t, carolDir, []string{"create", "--type", "review.finding", "--title", "t", "--category", "eng.auth", "--agent", "carol", "--body", "b"},
			"trust", "git records policy set")

		// A client without the gate: the server refuses too, saying how.
		w.editBody(t, dir)
		commit(t, dir, w.key, w.updateMsg())
		requireRejected(t, push(t, dir, "records"), "signature", "policy.yaml")

		fix := w.cliClone(t)
		mustRec(t, fix, "policy", "set", fixturePath(t, "policy.yaml"), "--rationale", "repair the policy", "--agent", userEmail)
		r := push(t, fix, "records")
		require.Equal(t, 0, r.code, "the repair lands:\n%s", r)

		carolDir = w.carolClone(t)
		create(t, carolDir, "--type", "review.finding", "--title", "t", "--category", "eng.auth", "--agent", "carol", "--body", "b")
		r = push(t, carolDir, "records")
		assert.Equal(t, 0, r.code, "and the store works again:\n%s", r)
	})
}
