package verbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	signerscmd "github.com/git-records/git-records/pkg/cmd/trust/signers"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdSigners: add takes the principal and the key with the
// evidence flags; anything but two arguments is a usage error.
func TestNewCmdSigners(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *signerscmd.AddOptions
	r := cmdtest.Run(f, signerscmd.NewCmdSigners(f, func(o *signerscmd.AddOptions) error { got = o; return nil }),
		"add", "bob@example.com", "key.pub", "--rationale", "joins", "--agent", "alice", "--session", "s1")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "bob@example.com", got.Principal)
	assert.Equal(t, "key.pub", got.Key)
	assert.Equal(t, kernel.Evidence{Rationale: "joins", Agent: "alice", SessionID: "s1"}, got.Evidence)
	never := func(*signerscmd.AddOptions) error { t.Fatal("ran"); return nil }
	for _, args := range [][]string{{"add", "bob@example.com"}, {"add", "a", "b", "c"}} {
		f, _, _, _ := st.Factory()
		cmdtest.Run(f, signerscmd.NewCmdSigners(f, never), append([]string{"--json"}, args...)...).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
}

// TestSignersAddRun: a key from a file is appended to allowed_signers in
// a policy commit and exported for git; adding it again writes nothing;
// a key that is not one is refused with nothing written.
func TestSignersAddRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	run := func(args ...string) cmdtest.Result {
		return st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return signerscmd.NewCmdSigners(f, nil) }, args...)
	}
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGvJ0i3e0ZsYb2ZcY2s0rYbA5m8b1bqv3xw0yq5kQ3Zb"
	file := filepath.Join(t.TempDir(), "bob.pub")
	require.NoError(t, os.WriteFile(file, []byte(key+" bob@laptop\n"), 0o644))
	r := run("add", "bob@example.com", file, "--rationale", "joins the team", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "policy\n", r.Stdout)
	signers := cmdtest.Git(t, st.Dir, "show", "records:.records/allowed_signers")
	assert.Contains(t, signers, "bob@example.com")
	assert.Contains(t, signers, strings.Fields(key)[1])

	tip := st.Tip(t)
	r = run("add", "bob@example.com", file, "--rationale", "again", "--agent", "alice")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "already allowed\n", r.Stdout)
	r = run("add", "eve@example.com", "not a key", "--rationale", "r", "--agent", "alice", "--json")
	assert.NotEqual(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, `"error"`)
	assert.Equal(t, tip, st.Tip(t), "nothing written")
}
