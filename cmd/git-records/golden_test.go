package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/storetest"
	"github.com/git-records/git-records/pkg/cmd/root"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// The golden store's fixed ids (TestGolden, in pkg/cmd/root, compares
// its reads with testdata/cli).
const (
	goldenConcept = storetest.GoldenConcept
	goldenFinding = storetest.GoldenFinding
)

// goldenStore builds the same store every time, but for the clock: the
// store the terminal, web and completion tests read. It is built
// in-process (seed): what those tests run against it is the binary.
func goldenStore(t testing.TB) string {
	t.Helper()
	return storetest.GoldenStore(t, seedRepo, seed)
}

// seed runs git-records args in dir in-process, as main runs them
// (root.Run over NewCmdRootFor), in the environment every child gets, and
// fails the test unless it exits 0. It builds the stores a test reads,
// where the process is not what is tested: a process per command costs
// about 30 ms of CPU and 500-700 page faults.
func seed(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := cmdtest.InProcess(root.Main, dir, "", args...)
	require.Equal(t, 0, r.Code, "git-records %q (in-process):\n%s", args, r)
	return r.Stdout
}

// seedRepo is newRepo with the store initialized in-process (seed).
func seedRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	git(t, "", "init", "-q", dir)
	seed(t, dir, "init", "--generate-key")
	return dir
}
