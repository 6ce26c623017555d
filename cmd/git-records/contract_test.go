package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
// that it is in step with the records: reindex finds no drift.
func assertGraphInStep(t testing.TB, store string) {
	t.Helper()
	g := readGraph(t, store)
	res := contractOK(t, store, "reindex", obj{}).(map[string]any)
	assert.Equal(t, false, res["changed"], "graph-index.json was not in step with the records")
	after := readGraph(t, store)
	assert.Equal(t, g, after, "reindex of an index in step changes nothing")
}

type graphFile struct {
	SchemaVersion string                         `json:"schema_version"`
	Forward       map[string][]map[string]string `json:"forward"`
	Reverse       map[string][]map[string]string `json:"reverse"`
}

// readGraph reads graph-index.json strictly as the contract's schema 1.0.
func readGraph(t testing.TB, store string) graphFile {
	t.Helper()
	path := filepath.Join(store, "graph-index.json")
	fi, err := os.Lstat(path)
	require.NoError(t, err, "graph-index.json is a real file at the store root")
	require.True(t, fi.Mode().IsRegular(), "graph-index.json is a regular file")
	ordinary := filepath.Join(t.TempDir(), "ordinary")
	require.NoError(t, os.WriteFile(ordinary, nil, 0o666))
	ofi, err := os.Stat(ordinary)
	require.NoError(t, err)
	assert.Equal(t, ofi.Mode().Perm(), fi.Mode().Perm(), "graph-index.json has the mode of any file (0666 less umask), for clients to read")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var g graphFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&g), "graph-index.json:\n%s", data)
	require.Equal(t, "1.0", g.SchemaVersion)
	require.NotNil(t, g.Forward, "forward is an object")
	require.NotNil(t, g.Reverse, "reverse is an object")
	for src, edges := range g.Forward {
		for _, e := range edges {
			assert.NotEmpty(t, e["target_id"], "forward[%s]: %v", src, e)
			assert.NotEmpty(t, e["kind"], "forward[%s]: %v", src, e)
			for k := range e {
				assert.Contains(t, []string{"target_id", "kind", "label"}, k, "forward[%s]: %v", src, e)
			}
		}
	}
	for tgt, edges := range g.Reverse {
		for _, e := range edges {
			assert.NotEmpty(t, e["source_id"], "reverse[%s]: %v", tgt, e)
			assert.NotEmpty(t, e["kind"], "reverse[%s]: %v", tgt, e)
			for k := range e {
				assert.Contains(t, []string{"source_id", "kind"}, k, "reverse[%s]: %v", tgt, e)
			}
		}
	}
	return g
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
	readGraph(t, store)
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
