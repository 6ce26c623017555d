package await

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m) }

// TestNewCmdAwait: the handle, --session, --state split on commas and the
// durations into options; an unknown state names --state, and a missing
// handle is a usage error; nothing runs.
func TestNewCmdAwait(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *AwaitOptions
	r := cmdtest.Run(f, NewCmdAwait(f, func(o *AwaitOptions) error { got = o; return nil }),
		"r1", "--session", "s", "--state", "completed,failed", "--timeout", "5m", "--interval", "1s")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "r1", got.Handle)
	assert.Equal(t, "s", got.Session)
	assert.Equal(t, []string{"completed", "failed"}, got.States)
	assert.Equal(t, 5*time.Minute, got.Timeout)
	assert.Equal(t, time.Second, got.Interval)

	never := func(*AwaitOptions) error { t.Fatal("ran"); return nil }
	f, _, _, _ = st.Factory()
	e := cmdtest.Run(f, NewCmdAwait(f, never), "--json", "r1", "--state", "completed,done").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	assert.Equal(t, "--state", e["flag"])
	f, _, _, _ = st.Factory()
	cmdtest.Run(f, NewCmdAwait(f, never), "--json", "--session", "s").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}
