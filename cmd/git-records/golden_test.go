package main

import (
	"testing"

	"github.com/git-records/git-records/internal/storetest"
)

// The golden store's fixed ids (TestGolden, in pkg/cmd/root, compares
// its reads with testdata/cli).
const (
	goldenConcept = storetest.GoldenConcept
	goldenFinding = storetest.GoldenFinding
)

// goldenStore builds the same store every time, but for the clock: the
// store the terminal, web and completion tests read.
func goldenStore(t testing.TB) string {
	t.Helper()
	return storetest.GoldenStore(t, newRepo, func(t testing.TB, dir string, args ...string) string { return mustRec(t, dir, args...) })
}
