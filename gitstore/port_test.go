package gitstore

import (
	"testing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/kernel/storetest"
)

// The git store passes the port's conformance suite on a real repository,
// set up as `git records init --generate-key` does; the racing writer is a
// second handle on the repository, as another process would be.
func TestStoreConformance(t *testing.T) {
	t.Parallel()
	storetest.Suite{
		Open:  func(t *testing.T) kernel.Store { return newTestStore(t) },
		Rival: func(t *testing.T, s kernel.Store) kernel.Store { return reopen(t, s.(*Store)) },
	}.Run(t)
}
