package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	startcmd "github.com/git-records/git-records/pkg/cmd/exec/start"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdStart: --kind becomes the record type, --keep-after-run turns
// cleanup on run end off, --bind is parsed; a missing or unknown kind, an
// argument or a malformed --bind is a usage error and nothing runs.
func TestNewCmdStart(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *startcmd.StartOptions
	r := cmdtest.Run(f, startcmd.NewCmdStart(f, func(o *startcmd.StartOptions) error { got = o; return nil }),
		"--kind", "background_task", "--title", "Index", "--session", "s", "--agent", "a", "--parent-job", "r1",
		"--keep-after-run", "--sandbox", "sb", "--bind", "lint=my-lint")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "execution.background_task", got.Input.Type)
	assert.Equal(t, "Index", got.Input.Title)
	assert.Equal(t, "s", got.Input.Session)
	assert.Equal(t, "a", got.Input.Agent)
	assert.Equal(t, "r1", got.Input.ParentJob)
	assert.Equal(t, "sb", got.Input.Owner.SandboxName)
	require.NotNil(t, got.Input.CleanupOnRunEnd)
	assert.False(t, *got.Input.CleanupOnRunEnd)
	assert.Equal(t, map[string]string{"lint": "my-lint"}, got.Bind.Flags)

	never := func(*startcmd.StartOptions) error { t.Fatal("ran"); return nil }
	for _, args := range [][]string{
		{"--title", "x"},
		{"--kind", "job", "--title", "x"},
		{"--kind", "run", "extra"},
		{"--kind", "run", "--bind", "no-equals"},
	} {
		f, _, _, _ := st.Factory()
		cmdtest.Run(f, startcmd.NewCmdStart(f, never), append([]string{"--json"}, args...)...).Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
}
