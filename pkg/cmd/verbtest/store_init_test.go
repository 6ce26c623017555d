package verbtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/store/import"
	"github.com/git-records/git-records/pkg/cmd/store/init"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestInitThenImport: init --generate-key creates the branch with its
// first signer, once; a second init says it is set up; a folder of notes
// then imports in one commit, and again changes nothing.
func TestInitThenImport(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *initcmd.InitOptions
	require.Equal(t, 0, cmdtest.Run(f, initcmd.NewCmdInit(f, func(o *initcmd.InitOptions) error { got = o; return nil }), "--generate-key", "--agent", "a").Code)
	assert.True(t, got.GenerateKey)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, initcmd.NewCmdInit(f, nil), "--json", "extra").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)

	f, _, _, _ = st.Factory()
	r := cmdtest.Run(f, initcmd.NewCmdInit(f, nil), "--generate-key")
	require.Equal(t, 0, r.Code, r.String())
	assert.Regexp(t, `^initialized refs/heads/records at [0-9a-f]{12}\nsigning key: `, r.Stdout)
	cmdtest.Git(t, st.Dir, "verify-commit", "refs/heads/records")
	tip := st.Tip(t)
	f, _, _, _ = st.Factory()
	r = cmdtest.Run(f, initcmd.NewCmdInit(f, nil), "--generate-key", "--json")
	require.Equal(t, 0, r.Code, r.String())
	var res map[string]any
	r.JSON(t, &res)
	assert.Equal(t, false, res["created"])
	assert.Equal(t, tip, st.Tip(t))

	vault := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(vault, "Token refresh.md"), []byte("Rotate on use.\n"), 0o644))
	for i, want := range []string{`^imported 1 records from .* in [0-9a-f]{12}\n`, `^nothing to import from .*: 1 records read, 1 already in the store as they are; no commit\n`} {
		f, _, _, _ = st.Factory()
		r = cmdtest.Run(f, importcmd.NewCmdImport(f, nil), vault, "--agent", "alice")
		require.Equal(t, 0, r.Code, "%d: %s", i, r)
		assert.Regexp(t, want, r.Stdout)
		assert.Empty(t, r.Stderr, "no phases off a terminal")
	}
}
