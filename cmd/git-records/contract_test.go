package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/storetest"
)

// contractCall runs `git-records --store <store> contract <op>` with the
// request on stdin, as the adapter does (one process per call).
func contractCall(t testing.TB, store, op, request string) result {
	t.Helper()
	return recIn(t, "", request, "--store", store, "contract", op)
}

// contractOK sends req (marshalled) and returns the result of a successful
// call: exit 0 and exactly {"result": …} on stdout.
func contractOK(t testing.TB, store, op string, req any) any {
	t.Helper()
	data, err := json.Marshal(req)
	require.NoError(t, err)
	r := contractCall(t, store, op, string(data))
	require.Equal(t, 0, r.code, "contract %s %s:\n%s", op, data, r)
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var out map[string]any
	require.NoError(t, dec.Decode(&out), "contract %s: stdout is not JSON:\n%s", op, r)
	require.False(t, dec.More(), "contract %s: more than one JSON value on stdout:\n%s", op, r)
	require.Contains(t, out, "result", "contract %s:\n%s", op, r)
	require.Len(t, out, 1, "contract %s answers only {\"result\"}:\n%s", op, r)
	return out["result"]
}

// assertGraphInStep checks graph-index.json against contract schema 1.0 and
// that it is in step with the records (storetest.AssertGraphInStep).
func assertGraphInStep(t testing.TB, store string) {
	t.Helper()
	storetest.AssertGraphInStep(t, store, func() map[string]any {
		return contractOK(t, store, "reindex", obj{}).(map[string]any)
	})
}

func recordIDs(v any) []string {
	var out []string
	for _, r := range v.([]any) {
		out = append(out, r.(map[string]any)["id"].(string))
	}
	sort.Strings(out)
	return out
}

// TestContractStoreWithoutGitIdentity: the adapter may run where git has no
// user configured at all; the store sets up its own identity and key, and
// its commits still verify.
func TestContractStoreWithoutGitIdentity(t *testing.T) {
	t.Parallel()
	emptyHome := t.TempDir()
	store := t.TempDir() // fresh and empty, as fs.mkdtempSync gives it
	r := execEnv(t, "", `{"input":{"type":"concept","title":"T","body":"b","category":"c","provenance":{"agent":"x"}}}`,
		[]string{"HOME=" + emptyHome, "XDG_CONFIG_HOME=" + filepath.Join(emptyHome, ".config")},
		"git-records", "--store", store, "contract", "create")
	require.Equal(t, 0, r.code, "%s", r)
	id := jsonOf[obj](t, r)["result"].(string)
	require.NotEmpty(t, id)
	r = execEnv(t, store, "", []string{"HOME=" + emptyHome, "XDG_CONFIG_HOME=" + filepath.Join(emptyHome, ".config")},
		"git", "verify-commit", "records")
	assert.Equal(t, 0, r.code, "git verify-commit in the store:\n%s", r)
	storetest.ReadGraph(t, store)
}

// TestContractConcurrentFirstCalls: adapters that share a fresh store
// directory may make their first calls at the same time; each of them must
// find (or make) one working store.
func TestContractConcurrentFirstCalls(t *testing.T) {
	t.Parallel()
	store := t.TempDir()
	const n = 6
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := fmt.Sprintf(`{"input":{"type":"concept","title":"T%d","body":"b","category":"c","provenance":{"agent":"a"}}}`, i)
			results[i] = contractCall(t, store, "create", req)
		}()
	}
	wg.Wait()
	var created []string
	for i, r := range results {
		require.Equal(t, 0, r.code, "call %d:\n%s", i, r)
		created = append(created, jsonOf[map[string]string](t, r)["result"])
	}
	sort.Strings(created)
	assert.Equal(t, created, recordIDs(contractOK(t, store, "list-by-category", obj{"category": "c"})))
	inits := 0
	for _, op := range opsOnBranch(t, store) {
		if op == "init" {
			inits++
		}
	}
	assert.Equal(t, 1, inits, "one init commit")
	assertLinear(t, store, n+1)
	verifyAll(t, store, n+1)
	assertGraphInStep(t, store)
}
