package verbtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/exec/continuecmd"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdContinue: --owner into options; an argument is a usage error.
func TestNewCmdContinue(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *continuecmd.ContinueOptions
	r := cmdtest.Run(f, continuecmd.NewCmdContinue(f, func(o *continuecmd.ContinueOptions) error { got = o; return nil }), "--owner", "s")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "s", got.Owner)
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, continuecmd.NewCmdContinue(f, func(*continuecmd.ContinueOptions) error { t.Fatal("ran"); return nil }), "--json", "s").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
