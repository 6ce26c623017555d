package gitstore

import (
	"testing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/kernel/storetest"
)

// The git store passes the port's conformance suite on a real repository,
// set up as `git records init --generate-key` does.
func TestStoreConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) kernel.Store { return newTestStore(t) })
}
