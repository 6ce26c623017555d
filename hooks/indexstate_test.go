package hooks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/hooks"
)

// TestVerifyWhereverTheIndexStands: verify answers handle questions (who
// holds an alias) at each commit's parent from the store's cached index,
// caught up in memory from wherever that index stands. A forged create
// whose id is another record's alias is caught with the index behind the
// range (the alias was given after it), ahead of it (the alias was given
// up since), at a commit that no longer exists, and with no index at all;
// and verify, a read, leaves a usable index file as it found it.
func TestVerifyWhereverTheIndexStands(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	indexDir := filepath.Join(gitDir(t, dir), "records", "index")
	saveIndex := func() map[string][]byte {
		files := map[string][]byte{}
		entries, err := os.ReadDir(indexDir)
		require.NoError(t, err)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(indexDir, e.Name()))
			require.NoError(t, err)
			files[e.Name()] = data
		}
		require.NotEmpty(t, files)
		return files
	}
	putIndex := func(files map[string][]byte) {
		require.NoError(t, os.RemoveAll(indexDir))
		require.NoError(t, os.MkdirAll(indexDir, 0o755))
		for name, data := range files {
			require.NoError(t, os.WriteFile(filepath.Join(indexDir, name), data, 0o644))
		}
	}
	newRecord := func(id string, change func(string) string) {
		data, err := os.ReadFile(recordFile(t, dir, w.concept))
		require.NoError(t, err)
		s := strings.ReplaceAll(string(data), w.concept, id)
		s = replace(t, s, "title: Token refresh", "title: Record "+id)
		if change != nil {
			s = change(s)
		}
		path := filepath.Join(dir, "records", "concept", idShard(id), id+".md")
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
		commit(t, dir, w.key, handMsg("create(concept): Record "+id, "Record-Op: create", "Record-Id: "+id,
			"Record-Agent: mallory", "Record-Format: 1"))
	}

	mustRec(t, dir, "reindex")
	before := saveIndex() // the index before the alias is given
	newRecord("holder-1", func(s string) string { return replace(t, s, "created_at:", "aliases: [zed-handle]\ncreated_at:") })
	holderRange := "HEAD~1..HEAD"
	rep := verifyJSON(t, dir, 0, holderRange)
	require.Empty(t, rep.Violations, "the alias holder is a valid create")
	newRecord("zed-handle", nil) // the forgery: an id that is holder-1's alias
	forged := revParse(t, dir, "HEAD")
	// Then the holder is deleted: at the tip nobody holds the alias.
	require.NoError(t, os.Remove(recordFile(t, dir, "holder-1")))
	commit(t, dir, w.key, handMsg("delete", "Record-Op: update", "Record-Id: holder-1", "Record-Agent: mallory", "Record-Format: 1"))
	forgedRange := forged + "~1.." + forged
	want := hooks.RuleHandle + ": id zed-handle is already an alias of record holder-1"
	caught := func(name string) {
		t.Helper()
		rep := verifyJSON(t, dir, 1, forgedRange)
		var got []string
		for _, v := range rep.Violations {
			got = append(got, v.Rule+": "+v.Message)
		}
		assert.Contains(t, got, want, "index %s", name)
	}

	putIndex(before)
	caught("behind the range")
	assert.Equal(t, before, saveIndex(), "verify rewrote the index")

	mustRec(t, dir, "reindex")
	ahead := saveIndex()
	caught("ahead of the range")
	assert.Equal(t, ahead, saveIndex(), "verify rewrote the index")

	// An index at a commit gc has since removed.
	tip := revParse(t, dir, "HEAD")
	edit(t, recordFile(t, dir, w.concept), func(s string) string { return s + "\ngone" })
	commit(t, dir, w.key, handMsg("gone", "Record-Op: update", "Record-Id: "+w.concept, "Record-Agent: a", "Record-Format: 1"))
	gone := revParse(t, dir, "HEAD")
	mustRec(t, dir, "reindex")
	git(t, dir, "reset", "-q", "--hard", tip)
	git(t, dir, "reflog", "expire", "--expire=now", "--all")
	git(t, dir, "gc", "-q", "--prune=now")
	require.NotEqual(t, 0, run(t, dir, "", nil, "git", "cat-file", "-e", gone).code, "commit %s survived gc", gone)
	caught("at a commit that is gone")

	require.NoError(t, os.RemoveAll(indexDir))
	caught("absent")
}

// TestServerIndexFollowsTheBranch: the server moves its index to the
// branch's tip, which it judged already, whenever it judges a push, so the
// handle questions of the next push cost a catch-up over one push, not
// over every push since the index was built. A refused push leaves the
// branch where it was and the index current at it.
func TestServerIndexFollowsTheBranch(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	for range 2 {
		w.editBody(t, dir)
		commit(t, dir, w.key, w.updateMsg())
		r := push(t, dir, "records")
		require.Equal(t, 0, r.code, "%s", r)
	}
	tip := w.serverTip(t)
	w.editBody(t, dir)
	commit(t, dir, "", w.updateMsg())
	requireRejected(t, push(t, dir, "records"), hooks.RuleSignature, "commit is not signed")
	require.Equal(t, tip, w.serverTip(t))

	var state struct{ State string }
	require.NoError(t, json.Unmarshal([]byte(mustRec(t, w.server, "reindex", "--json")), &state))
	assert.Equal(t, "current", state.State, "the server's index stands at its branch's tip")
}
