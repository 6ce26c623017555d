package verbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/storetest"
	capabilitiescmd "github.com/git-records/git-records/pkg/cmd/agent/capabilities"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// states runs capabilities --json with f and keys its answer by
// capability (and action), checking what every entry must carry.
func states(t *testing.T, f *cmdutil.Factory) (map[string]any, map[string]map[string]any) {
	t.Helper()
	r := cmdtest.Run(f, capabilitiescmd.NewCmdCapabilities(f, nil), "--json")
	require.Equal(t, 0, r.Code, r.String())
	var out map[string]any
	r.JSON(t, &out)
	return out, storetest.CapabilityStates(t, out)
}

// TestCapabilitiesRun: outside a repository nothing is configured; in one
// without a records branch writes say to init; a store ready to use offers
// everything, each with its risk, and the text is a table without
// trailing blanks; a --store that does not exist is not created.
func TestCapabilitiesRun(t *testing.T) {
	outside := cmdtest.NewRepo(t)
	f, _, _, _ := outside.Factory()
	f.WorkDir = t.TempDir()
	_, got := states(t, f)
	storetest.AssertCapability(t, got, "record.read", "unconfigured", "no_repository", "--store DIR")
	storetest.AssertCapability(t, got, "record.write", "unconfigured", "no_repository", "")
	storetest.AssertCapability(t, got, "transform.normalize", "unsupported", "not_provided", "")

	f, _, _, _ = outside.Factory()
	_, got = states(t, f)
	storetest.AssertCapability(t, got, "record.write", "unconfigured", "no_records_branch", "git records init --generate-key")
	storetest.AssertCapability(t, got, "subscribe.changes", "unconfigured", "no_records_branch", "git records init")

	st := cmdtest.NewStore(t)
	f, _, _, _ = st.Factory()
	out, got := states(t, f)
	assert.Equal(t, cmdtest.UserEmail, out["principal"])
	assert.Equal(t, "refs/heads/records", out["ref"])
	for _, name := range []string{"record.read", "record.write", "record.query", "relation.read", "relation.write",
		"relation.query", "observe.records", "execute.action verify_record", "subscribe.changes"} {
		storetest.AssertCapability(t, got, name, "available", "", "")
	}
	assert.Equal(t, "writes_local_state", got["execute.action verify_record"]["risk"], "the action declares its risk")
	assert.Equal(t, "read_only", got["record.read"]["risk"])
	assert.Equal(t, "push", got["subscribe.changes"]["mode"], "subscribe.changes streams with watch")

	f, _, _, _ = st.Factory()
	r := cmdtest.Run(f, capabilitiescmd.NewCmdCapabilities(f, nil))
	require.Equal(t, 0, r.Code, r.String())
	assert.Regexp(t, `(?m)^record\.write\s+available\s+writes_local_state$`, r.Stdout)
	assert.Regexp(t, `(?m)^subscribe\.changes\s+available\s+read_only\s+push$`, r.Stdout)
	for _, line := range strings.Split(r.Stdout, "\n") {
		assert.Equal(t, strings.TrimRight(line, " "), line, "no trailing blanks")
	}

	kb := filepath.Join(t.TempDir(), "kb")
	f, _, _, _ = st.Factory()
	r = cmdtest.Run(f, capabilitiescmd.NewCmdCapabilities(f, nil), "--store", kb, "--json")
	require.Equal(t, 0, r.Code, r.String())
	_, err := os.Stat(kb)
	assert.True(t, os.IsNotExist(err), "capabilities reads and never writes: %v", err)
}
