//go:build forge

package forge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestForgeManyWritersStayLinear: eight writer clones, each with its own
// key that the maintainer added to the allowed signers, create records and
// sync after every create, all at once, over HTTP to a Gitea repository
// with the server hooks in hooks/pre-receive.d/. Every record reaches the
// forge, no sync gives up, the records branch has no merge commit (each
// sync replays its writer's commits on the tip it fetched), and the
// branch verifies.
func TestForgeManyWritersStayLinear(t *testing.T) {
	const writers, each = 8, 5
	root := t.TempDir()
	maint := filepath.Join(root, "maintainer")
	git(t, "", "init", "-q", maint)
	rec(t, maint, "init", "--generate-key")
	hooks := rec(t, forge.newRepo(t, admin, "writers"), "hooks", "install", "--server")
	require.Contains(t, hooks, filepath.Join("hooks", "pre-receive.d", "git-records"))
	url := forge.cloneURL(admin, admin.name, "writers")
	git(t, maint, "remote", "add", "origin", url)
	rec(t, maint, "sync")

	dirs := make([]string, writers)
	for k := range dirs {
		dir := filepath.Join(root, fmt.Sprint("writer", k))
		git(t, "", "init", "-q", dir)
		email := fmt.Sprintf("writer%d@example.com", k)
		git(t, dir, "config", "user.email", email)
		git(t, dir, "remote", "add", "origin", url)
		rec(t, dir, "pull")
		rec(t, dir, "init", "--generate-key")
		pub, err := os.ReadFile(filepath.Join(dir, ".git", "records", "signing_key.pub"))
		require.NoError(t, err)
		rec(t, maint, "signers", "add", email, strings.TrimSpace(string(pub)), "--rationale", "a writer joins", "--agent", userEmail)
		dirs[k] = dir
	}
	rec(t, maint, "sync")
	for _, dir := range dirs {
		rec(t, dir, "sync")
	}
	before := remoteTip(t, "writers", "refs/heads/records")

	var (
		mu     sync.Mutex
		ids    []string
		gaveUp atomic.Int64
		wg     sync.WaitGroup
	)
	for k, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < each; n++ {
				r := run(t, dir, "", nil, binPath, "create", "--type", "concept", "--category", "eng.writers",
					"--title", fmt.Sprintf("Writer %d record %d", k, n), "--agent", fmt.Sprint("writer", k), "--body", "Written at once.")
				if !assert.Equal(t, 0, r.code, "create:\n%s", r) {
					return
				}
				mu.Lock()
				ids = append(ids, strings.TrimSpace(r.stdout))
				mu.Unlock()
				for {
					r = run(t, dir, "", nil, binPath, "sync")
					if r.code == 0 {
						break
					}
					if !assert.Contains(t, r.stderr, "CONFLICT", "sync:\n%s", r) {
						return
					}
					gaveUp.Add(1) // counted, and synced again: the record must still go up
				}
			}
		}()
	}
	wg.Wait()

	assert.Zero(t, gaveUp.Load(), "no sync gave up")
	rec(t, maint, "sync")
	tip := strings.TrimSpace(git(t, maint, "rev-parse", "records"))
	assert.Equal(t, tip, remoteTip(t, "writers", "refs/heads/records"))
	assert.Empty(t, git(t, maint, "rev-list", "--merges", tip), "the records branch has no merge commit")
	assert.Equal(t, fmt.Sprint(writers*each), strings.TrimSpace(git(t, maint, "rev-list", "--count", before+".."+tip)),
		"one commit per record, each published once")
	var listed []struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(rec(t, maint, "list", "--json", "--category", "eng.writers")), &listed))
	have := map[string]bool{}
	for _, r := range listed {
		have[r.ID] = true
	}
	require.Len(t, ids, writers*each)
	for _, id := range ids {
		assert.True(t, have[id], "record %s reached the forge", id)
	}
	rec(t, maint, "verify")
}
