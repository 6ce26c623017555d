package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// A write starts git's auto maintenance only when git's own estimate says
// it is due, once per process, and never when the user turned it off; the
// maintenance it starts is git's, so packs are consolidated and nothing is
// lost.
func TestAWriteStartsGitMaintenanceOnlyWhenDue(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	dir := gitDir(s)
	packs := func() int {
		names, err := os.ReadDir(filepath.Join(s.repo.ObjectDir, "pack"))
		require.NoError(t, err)
		n := 0
		for _, e := range names {
			if strings.HasSuffix(e.Name(), ".pack") {
				n++
			}
		}
		return n
	}
	var ids []string
	for range 3 {
		ids = append(ids, create(t, s, kernel.CreateInput{Title: "packed"}).ID)
		git(t, dir, "repack", "-q")
	}
	require.Equal(t, 3, packs())

	ids = append(ids, create(t, s, kernel.CreateInput{Title: "under git's limit"}).ID)
	require.Nil(t, s.maintenance, "50 packs is git's limit: three start nothing")

	// gc.autoDetach=false keeps git's gc in the process we wait for.
	git(t, dir, "config", "gc.autoPackLimit", "2")
	git(t, dir, "config", "gc.autoDetach", "false")
	s = reopen(t, s)
	ids = append(ids, create(t, s, kernel.CreateInput{Title: "over the limit"}).ID)
	run := s.maintenance
	require.NotNil(t, run, "three packs are over a limit of two")
	<-run.done
	require.NoError(t, run.err)
	require.Equal(t, 1, packs(), "git's gc --auto repacked them into one")
	requireFsckClean(t, dir)
	for _, id := range ids {
		require.Equal(t, id, get(t, s, id).ID)
	}
	create(t, s, kernel.CreateInput{Title: "again"})
	require.Same(t, run, s.maintenance, "a process starts it once")

	for _, off := range [][]string{{"maintenance.auto", "false"}, {"gc.auto", "0"}} {
		git(t, dir, "repack", "-q")
		create(t, s, kernel.CreateInput{Title: "packed"})
		git(t, dir, "repack", "-q")
		create(t, s, kernel.CreateInput{Title: "packed"})
		git(t, dir, "repack", "-q")
		require.Greater(t, packs(), 2)
		git(t, dir, "config", off[0], off[1])
		s = reopen(t, s)
		create(t, s, kernel.CreateInput{Title: "turned off"})
		require.Nil(t, s.maintenance, "%s=%s turns it off", off[0], off[1])
		git(t, dir, "config", "--unset", off[0])
	}
}
