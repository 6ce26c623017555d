package verbtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/extension/bindings"
	inspectcmd "github.com/git-records/git-records/pkg/cmd/extension/inspect"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdInspect: --bindings is what to inspect; each --bind is
// SLOT=IMPL; without --bindings, or with a malformed --bind, nothing runs.
func TestNewCmdInspect(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *inspectcmd.InspectOptions
	r := cmdtest.Run(f, inspectcmd.NewCmdInspect(f, func(o *inspectcmd.InspectOptions) error { got = o; return nil }),
		"--bindings", "--bind", "design_review=my-review", "--fallback", "lint", "--at", "records~1")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, map[string]string{"design_review": "my-review"}, got.Bind.Flags)
	assert.Equal(t, []string{"lint"}, got.Bind.Fallback)
	assert.Equal(t, "records~1", got.At)
	never := func(*inspectcmd.InspectOptions) error { t.Fatal("ran"); return nil }
	for flag, args := range map[string][]string{"--bindings": {}, "--bind": {"--bindings", "--bind", "no-equals"}} {
		f, _, _, _ := st.Factory()
		e := cmdtest.Run(f, inspectcmd.NewCmdInspect(f, never), append([]string{"--json"}, args...)...).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
		assert.Equal(t, flag, e["flag"])
	}
}

// TestInspectAndSetRun: a store without bindings says how to declare
// them; bindings set of a file that is not bindings is refused with
// nothing written, and of a missing file is a usage error.
func TestInspectAndSetRun(t *testing.T) {
	t.Parallel()
	st := cmdtest.NewStore(t)
	r := st.RunIn(func(f *cmdutil.Factory) *cobra.Command { return inspectcmd.NewCmdInspect(f, nil) }, "--bindings")
	require.Equal(t, 0, r.Code, r.String())
	assert.Contains(t, r.Stdout, "no extension slots: ")
	assert.Contains(t, r.Stdout, "(git records bindings set FILE)")

	set := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, bindings.NewCmdBindings(f, nil), append([]string{"set"}, args...)...)
	}
	tip := st.Tip(t)
	bad := filepath.Join(t.TempDir(), "bindings.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("slots: [not, a, map\n"), 0o644))
	r = set(bad, "--rationale", "r", "--agent", "alice", "--json")
	assert.Equal(t, cmdutil.ExitRefused, r.Code, r.String())
	assert.Contains(t, r.Stdout, `"error"`)
	set(filepath.Join(t.TempDir(), "missing.yaml"), "--rationale", "r", "--agent", "alice", "--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, tip, st.Tip(t), "nothing written")
}
