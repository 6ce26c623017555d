package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	listcmd "github.com/git-records/git-records/pkg/cmd/exec/list"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdExecList: --owner and --all into options; an argument is a usage
// error and nothing runs.
func TestNewCmdExecList(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *listcmd.ListOptions
	r := cmdtest.Run(f, listcmd.NewCmdList(f, func(o *listcmd.ListOptions) error { got = o; return nil }), "--owner", "s", "--all")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "s", got.Owner)
	assert.True(t, got.All)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, listcmd.NewCmdList(f, func(*listcmd.ListOptions) error { t.Fatal("ran"); return nil }), "--json", "s").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
