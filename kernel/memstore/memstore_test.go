package memstore_test

import (
	"testing"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/kernel/memstore"
	"github.com/git-records/git-records/kernel/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) kernel.Store { return memstore.New(memstore.Options{}) })
}
