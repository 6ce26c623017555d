package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// TestExecutionLimitsArePolicy: depth and open-children limits live in
// policy.yaml, and the gate judges a start with them.
func TestExecutionLimitsArePolicy(t *testing.T) {
	p, err := kernel.ParsePolicy([]byte("version: 1\nrules:\n  - profile: contributor\nexecution:\n  max_depth: 2\n  max_children: 5\n"))
	require.NoError(t, err)
	assert.Equal(t, kernel.ExecutionLimits{MaxDepth: 2, MaxChildren: 5}, p.Execution)
	_, err = kernel.ParsePolicy([]byte("version: 1\nrules:\n  - profile: contributor\nexecution:\n  max_depth: -1\n"))
	assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err))
	_, err = kernel.ParsePolicy([]byte("version: 1\nrules:\n  - profile: contributor\nexecution:\n  max_deepness: 2\n"))
	assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err), "a misspelt limit is refused, not ignored")

	// Who may do what: contributors manage their own work, maintainers
	// also force-close and change the bindings.
	for op, want := range map[kernel.Op][2]bool{kernel.OpCancel: {true, true}, kernel.OpClose: {true, true}, kernel.OpCleanup: {true, true},
		kernel.OpForceClose: {false, true}, kernel.OpBind: {false, true}} {
		for i, profile := range []string{"contributor", "maintainer"} {
			pol, err := kernel.ParsePolicy([]byte("version: 1\nrules:\n  - profile: " + profile + "\n"))
			require.NoError(t, err)
			assert.Equal(t, want[i], pol.Decide("p", op, "", "").Allowed, "%s may %s", profile, op)
		}
	}
	// The bind op changes a store file: its right is bind on the store.
	assert.Equal(t, []kernel.Right{{Op: kernel.OpBind}}, kernel.RequiredRights(kernel.OpBind, nil, nil))
}
