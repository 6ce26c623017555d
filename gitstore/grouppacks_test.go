package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// looseObjects counts the loose object files of s's repository.
func looseObjects(t *testing.T, s *Store) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(s.repo.CommonDir, "objects", "[0-9a-f][0-9a-f]", "*"))
	require.NoError(t, err)
	return len(files)
}

// A store that shares writes (a server) writes each commit group as one
// pack and consolidates its packs as they come: after 64 groups a handful
// of packs remain, no loose object was written, a store opened before, which
// had listed packs since removed, still reads every record, and git
// fsck --strict is clean.
func TestGroupPacksConsolidate(t *testing.T) {
	s := newTestStore(t)
	var mu sync.Mutex
	s.ShareWrites(&mu)
	reader := reopen(t, s)
	loose := looseObjects(t, s)
	var ids []string
	readAll := func(st *Store) {
		t.Helper()
		v, err := st.View()
		require.NoError(t, err)
		for _, id := range ids {
			r, err := v.Record(id)
			require.NoError(t, err)
			require.NotNil(t, r, id)
		}
	}
	const groups = 64
	for i := range groups {
		mu.Lock()
		w, err := s.Mutate(createOp(kernel.CreateInput{Title: fmt.Sprintf("record %d", i)}))
		mu.Unlock()
		require.NoError(t, err)
		ids = append(ids, w.Mutation.Writes[0].ID)
		if i%10 == 3 {
			readAll(reader) // lists the packs of the moment, merged away later
		}
	}
	require.Equal(t, loose, looseObjects(t, s), "groups write packs, not loose objects")
	packs, err := filepath.Glob(filepath.Join(s.repo.CommonDir, "objects", "pack", "pack-*.idx"))
	require.NoError(t, err)
	require.LessOrEqual(t, len(packs), 8, "64 group packs consolidated geometrically: %v", packs)
	require.Len(t, s.groupPacks, len(packs), "each pack on disk is one the store knows it wrote")
	tmp, err := filepath.Glob(filepath.Join(s.repo.CommonDir, "objects", "pack", "tmp_*"))
	require.NoError(t, err)
	require.Empty(t, tmp)
	readAll(reader)
	readAll(s)
	titles := requireBranchWhole(t, s)
	require.Len(t, titles, groups)
	for _, p := range packs {
		git(t, gitDir(s), "verify-pack", p)
	}
}

// A pack a group wrote that git gc took away meanwhile is forgotten, not
// merged: the store goes on writing and consolidating.
func TestGroupPacksAfterGitGC(t *testing.T) {
	s := newTestStore(t)
	var mu sync.Mutex
	s.ShareWrites(&mu)
	create := func(title string) {
		mu.Lock()
		defer mu.Unlock()
		_, err := s.Mutate(createOp(kernel.CreateInput{Title: title}))
		require.NoError(t, err)
	}
	for i := range 5 {
		create(fmt.Sprint("before ", i))
	}
	git(t, gitDir(s), "gc", "-q", "--prune=now")
	for i := range 20 {
		create(fmt.Sprint("after ", i))
	}
	for _, p := range s.groupPacks {
		_, err := os.Stat(p.name + ".pack")
		require.NoError(t, err, "a pack the store lists exists")
	}
	require.Len(t, requireBranchWhole(t, s), 25)
}
