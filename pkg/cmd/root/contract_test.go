package root

// The contract protocol's tests (docs/contract-protocol.md): every op, bad
// requests, limits, trailer injection, approvals and what the contract
// front-end shares with the CLI. Each call is one in-process run of the
// whole root with the request on stdin, as the adapter's one process per
// call would be (the same envelope on stdout and exit code). They used to
// run the binary once per call in cmd/git-records; what only processes
// show (a store set up by concurrent first calls, a HOME with no identity)
// stays there.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/storetest"
)

// cliTestdata is testdata/cli at the repository root.
var cliTestdata = filepath.Join("..", "..", "..", "testdata", "cli")

// contractCall runs `git-records --store <store> contract <op>` with the
// request on stdin, as the adapter does (one process per call; here one
// in-process run of the whole root per call).
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
	require.Equal(t, 0, r.Code, "contract %s %s:\n%s", op, data, r)
	dec := json.NewDecoder(strings.NewReader(r.Stdout))
	var out map[string]any
	require.NoError(t, dec.Decode(&out), "contract %s: stdout is not JSON:\n%s", op, r)
	require.False(t, dec.More(), "contract %s: more than one JSON value on stdout:\n%s", op, r)
	require.Contains(t, out, "result", "contract %s:\n%s", op, r)
	require.Len(t, out, 1, "contract %s answers only {\"result\"}:\n%s", op, r)
	return out["result"]
}

// void checks a mutation op that returns nothing: {"result": null}.
func void(t testing.TB, store, op string, req any) {
	t.Helper()
	assert.Nil(t, contractOK(t, store, op, req), "contract %s returns {\"result\": null}", op)
	assertGraphInStep(t, store)
}

// assertGraphInStep checks graph-index.json against contract schema 1.0 and
// that it is in step with the records (storetest.AssertGraphInStep).
func assertGraphInStep(t testing.TB, store string) {
	t.Helper()
	storetest.AssertGraphInStep(t, store, func() map[string]any {
		return contractOK(t, store, "reindex", obj{}).(map[string]any)
	})
}

func hasEdge(edges []map[string]string, want map[string]string) bool {
	for _, e := range edges {
		match := true
		for k, v := range want {
			if e[k] != v {
				match = false
			}
		}
		if match {
			return true
		}
	}
	return false
}

// assertNoNulls: absent optional fields are omitted, never null (rule 2).
func assertNoNulls(t testing.TB, v any, path string) {
	t.Helper()
	switch x := v.(type) {
	case nil:
		t.Errorf("%s is null: absent fields are omitted", path)
	case map[string]any:
		for k, e := range x {
			assertNoNulls(t, e, path+"."+k)
		}
	case []any:
		for i, e := range x {
			assertNoNulls(t, e, path+"["+string(rune('0'+i%10))+"]")
		}
	}
}

// assertTimestamps: every timestamp is ISO-8601 UTC of fixed width (rule 3).
func assertTimestamps(t testing.TB, rec map[string]any) {
	t.Helper()
	for _, k := range []string{"created_at", "updated_at", "expires_at", "observed_at"} {
		if v, ok := rec[k]; ok {
			assert.Regexp(t, timestampRE, v, k)
		}
	}
	for _, e := range rec["mutation_log"].([]any) {
		assert.Regexp(t, timestampRE, e.(map[string]any)["at"], "mutation_log[].at")
	}
}

func recordIDs(v any) []string {
	var out []string
	for _, r := range v.([]any) {
		out = append(out, r.(map[string]any)["id"].(string))
	}
	sort.Strings(out)
	return out
}

// TestContractProtocol drives every op of the contract protocol through a
// fresh store directory, as the Knowledge Kit adapter does.
func TestContractProtocol(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "store") // missing: the first call sets it up

	caps := contractOK(t, store, "capabilities", obj{}).(map[string]any)
	wantOps := []any{"create", "update", "link", "propose", "apply", "reject", "supersede", "retire",
		"get", "get-links", "list-by-category", "list-by-type", "reindex"}
	for _, op := range wantOps {
		assert.Contains(t, caps["ops"], op)
	}

	// create: the result is the new id
	body := "---\nnot: frontmatter\n---\r\n\tbytes: ünï  \n\n[[nowhere]]"
	b := contractOK(t, store, "create", obj{"input": obj{"id": "b-id", "type": "raw", "title": "B", "body": body,
		"category": "eng", "provenance": obj{"agent": "x", "session_id": "s1", "source_ids": []string{"ext-1"}}}})
	assert.Equal(t, "b-id", b)
	assertGraphInStep(t, store)
	a := contractOK(t, store, "create", obj{"input": obj{"type": "concept", "title": "A", "body": "See [[b-id|B]].\n",
		"category": "eng.api", "tags": []string{"z", "a", "m"}, "aliases": []string{"eng/a"}, "ttl_seconds": 3600,
		"links": []obj{{"target_id": "b-id", "kind": "source"}}, "provenance": obj{"agent": "x"}}}).(string)
	assert.Regexp(t, `^[a-z2-7]{26}$`, a)
	assertGraphInStep(t, store)
	_, err := os.Stat(filepath.Join(store, ".git"))
	require.NoError(t, err, "the store is a git repository")

	// get: by id, alias and prefix; shape rules 2-4
	got := contractOK(t, store, "get", obj{"id": a}).(map[string]any)
	assert.Equal(t, got, contractOK(t, store, "get", obj{"id": "eng/a"}), "get by alias")
	assert.Equal(t, got, contractOK(t, store, "get", obj{"id": a[:8]}), "get by 8-character prefix")
	assertNoNulls(t, got, "record")
	assertTimestamps(t, got)
	assert.Equal(t, []any{"z", "a", "m"}, got["tags"], "tags keep their order")
	assert.Equal(t, float64(3600), got["ttl_seconds"], "ttl_seconds is a number")
	assert.Equal(t, "concept", got["type"])
	assert.Equal(t, "active", got["status"])
	assert.True(t, storetest.HasLink(got["links"], obj{"target_id": "b-id", "kind": "source"}))
	assert.True(t, storetest.HasLink(got["links"], obj{"target_id": "b-id", "kind": "related", "label": "B"}), "wikilinks are links (§2.3)")
	gb := contractOK(t, store, "get", obj{"id": "b-id"}).(map[string]any)
	assert.Equal(t, body, gb["body"], "the body comes back byte for byte")
	assert.NotContains(t, gb, "expires_at")
	assert.NotContains(t, gb, "aliases")
	assert.Equal(t, obj{"agent": "x", "session_id": "s1", "source_ids": []any{"ext-1"}}, gb["provenance"])
	assertNoNulls(t, gb, "record")
	assert.Nil(t, contractOK(t, store, "get", obj{"id": "no-such-record"}), "get of a missing id is null")
	assert.Nil(t, contractOK(t, store, "get", obj{"id": "zzzzzzzz"}))

	// update: fields, and an explicit null clears
	void(t, store, "update", obj{"id": a, "fields": obj{"title": "A2", "expires_at": "2030-01-01T00:00:00.000Z"}, "evidence": obj{"agent": "y"}})
	got = contractOK(t, store, "get", obj{"id": a}).(map[string]any)
	assert.Equal(t, "A2", got["title"])
	assert.Equal(t, "2030-01-01T00:00:00.000Z", got["expires_at"])
	void(t, store, "update", obj{"id": "eng/a", "fields": obj{"expires_at": nil, "ttl_seconds": nil}, "evidence": obj{"agent": "y"}})
	got = contractOK(t, store, "get", obj{"id": a}).(map[string]any)
	assert.NotContains(t, got, "expires_at", "null clears expires_at")
	assert.NotContains(t, got, "ttl_seconds", "null clears ttl_seconds")

	// link and get-links
	void(t, store, "link", obj{"source_id": "b-id", "links": []obj{{"target_id": a, "kind": "example", "label": "L"}}, "evidence": obj{"agent": "x"}})
	void(t, store, "link", obj{"source_id": "b-id", "links": []obj{{"target_id": a, "kind": "example", "label": "L"}}, "evidence": obj{"agent": "x"}})
	gl := contractOK(t, store, "get-links", obj{"id": "b-id"}).(map[string]any)
	assert.True(t, storetest.HasLink(gl["forward"], obj{"target_id": a, "kind": "example", "label": "L"}), "%v", gl)
	assert.True(t, storetest.HasLink(gl["reverse"], obj{"source_id": a, "kind": "source"}), "%v", gl)
	n := 0
	for _, l := range gl["forward"].([]any) {
		if l.(map[string]any)["kind"] == "example" {
			n++
		}
	}
	assert.Equal(t, 1, n, "an existing link is not duplicated: %v", gl)
	assert.Equal(t, obj{"forward": []any{}, "reverse": []any{}}, contractOK(t, store, "get-links", obj{"id": "no-such-record"}))

	// propose, apply, propose, reject
	void(t, store, "propose", obj{"concept_id": a, "proposer_id": "b-id", "evidence": obj{"agent": "x", "proposal": "say more"}})
	void(t, store, "apply", obj{"concept_id": a, "proposer_id": "b-id", "evidence": obj{"agent": "x", "new_body": "More.\n", "rationale": "ok"}})
	assert.Equal(t, "More.\n", contractOK(t, store, "get", obj{"id": a}).(map[string]any)["body"])
	void(t, store, "propose", obj{"concept_id": a, "proposer_id": "b-id", "evidence": obj{"agent": "x", "proposal": "say less"}})
	void(t, store, "reject", obj{"concept_id": a, "proposer_id": "b-id", "evidence": obj{"agent": "x", "reason": "no"}})
	assert.Equal(t, "More.\n", contractOK(t, store, "get", obj{"id": a}).(map[string]any)["body"])

	// supersede and retire
	c := contractOK(t, store, "create", obj{"input": obj{"id": "c-id", "type": "concept", "title": "C", "body": "c",
		"category": "eng.api.v2", "provenance": obj{"agent": "x"}}})
	assert.Equal(t, "c-id", c)
	assertGraphInStep(t, store)
	void(t, store, "supersede", obj{"new_id": "c-id", "superseded_ids": []string{a}, "evidence": obj{"agent": "x", "rationale": "newer"}})
	assert.True(t, storetest.HasLink(contractOK(t, store, "get-links", obj{"id": a}).(map[string]any)["reverse"],
		obj{"source_id": "c-id", "kind": "supersedes", "target_id": a}))
	void(t, store, "retire", obj{"id": "b-id", "target_status": "retired", "evidence": obj{"agent": "x", "rationale": "old"}})
	void(t, store, "retire", obj{"id": "c-id", "target_status": "implemented", "evidence": obj{"agent": "x", "rationale": "done", "implementedByRef": "PR-7"}})
	assert.Equal(t, "retired", contractOK(t, store, "get", obj{"id": "b-id"}).(map[string]any)["status"])
	assert.Equal(t, "implemented", contractOK(t, store, "get", obj{"id": "c-id"}).(map[string]any)["status"])

	// list-by-type, list-by-category
	assert.Empty(t, contractOK(t, store, "list-by-type", obj{"type": "raw"}), "retired records are left out")
	assert.Equal(t, []any{}, contractOK(t, store, "list-by-type", obj{"type": "raw"}), "an empty list is []")
	assert.Equal(t, []string{"b-id"}, recordIDs(contractOK(t, store, "list-by-type", obj{"type": "raw", "options": obj{"includeRetired": true}})))
	assert.Equal(t, storetest.Sorted(a, "c-id"), recordIDs(contractOK(t, store, "list-by-type", obj{"type": "concept"})))
	assert.Equal(t, []string{a}, recordIDs(contractOK(t, store, "list-by-category", obj{"category": "eng.api"})))
	assert.Equal(t, storetest.Sorted(a, "c-id"), recordIDs(contractOK(t, store, "list-by-category", obj{"category": "eng.api", "options": obj{"prefix": true}})))
	assert.Equal(t, storetest.Sorted(a, "b-id", "c-id"), recordIDs(contractOK(t, store, "list-by-category", obj{"category": "eng", "options": obj{"prefix": true, "includeRetired": true}})))
	for _, r := range contractOK(t, store, "list-by-category", obj{"category": "eng", "options": obj{"prefix": true}}).([]any) {
		assertNoNulls(t, r, "listed record")
		assertTimestamps(t, r.(map[string]any))
	}

	// stale: a record past its expiry, judged at options.now
	contractOK(t, store, "create", obj{"input": obj{"id": "ttl-id", "type": "concept", "title": "T", "body": "t",
		"category": "ttl", "ttl_seconds": 60, "provenance": obj{"agent": "x"}}})
	assertGraphInStep(t, store)
	created := contractOK(t, store, "get", obj{"id": "ttl-id"}).(map[string]any)["created_at"].(string)
	assert.Empty(t, contractOK(t, store, "list-by-category", obj{"category": "ttl", "options": obj{"stale": true, "now": created}}))
	assert.Equal(t, []string{"ttl-id"}, recordIDs(contractOK(t, store, "list-by-category",
		obj{"category": "ttl", "options": obj{"stale": true, "now": "2999-01-01T00:00:00.000Z"}})))
	assert.Equal(t, []string{"ttl-id"}, recordIDs(contractOK(t, store, "list-by-type",
		obj{"type": "concept", "options": obj{"stale": true, "now": "2999-01-01T00:00:00.000Z"}})))
	// options.now as epoch milliseconds (a Date's getTime()) means the same instant
	createdAt, err := time.Parse(time.RFC3339, created)
	require.NoError(t, err)
	assert.Empty(t, contractOK(t, store, "list-by-category", obj{"category": "ttl", "options": obj{"stale": true, "now": createdAt.UnixMilli()}}))
	assert.Equal(t, []string{"ttl-id"}, recordIDs(contractOK(t, store, "list-by-type",
		obj{"type": "concept", "options": obj{"stale": true, "now": createdAt.Add(61 * time.Second).UnixMilli()}})))
	for _, bad := range []string{`true`, `{}`, `"yesterday"`, `1e300`} {
		r := contractCall(t, store, "list-by-type", `{"type":"concept","options":{"stale":true,"now":`+bad+`}}`)
		requireError(t, r, "MISSING_EVIDENCE", 1)
		assert.Contains(t, r.Stdout, "options.now", bad)
	}

	// the graph file after all that
	g := storetest.ReadGraph(t, store)
	assert.True(t, hasEdge(g.Forward["b-id"], map[string]string{"target_id": a, "kind": "example", "label": "L"}), "%v", g.Forward)
	assert.False(t, hasEdge(g.Forward[a], map[string]string{"target_id": "b-id", "kind": "related"}),
		"the wikilink went with the body that apply replaced: %v", g.Forward)
	assert.True(t, hasEdge(g.Forward[a], map[string]string{"target_id": "b-id", "kind": "source"}), "%v", g.Forward)
	assert.True(t, hasEdge(g.Forward["c-id"], map[string]string{"target_id": a, "kind": "supersedes"}), "%v", g.Forward)
	assert.True(t, hasEdge(g.Reverse[a], map[string]string{"source_id": "b-id", "kind": "example"}), "%v", g.Reverse)
	assert.True(t, hasEdge(g.Reverse[a], map[string]string{"source_id": "c-id", "kind": "supersedes"}), "%v", g.Reverse)

	// reindex repairs a lost, corrupted or drifted graph-index.json
	graphPath := filepath.Join(store, "graph-index.json")
	good, err := os.ReadFile(graphPath)
	require.NoError(t, err)
	repairs := map[string]func(){
		"deleted":   func() { require.NoError(t, os.Remove(graphPath)) },
		"corrupted": func() { require.NoError(t, os.WriteFile(graphPath, []byte(`{"schema_version": "1.0", "forw`), 0o644)) },
		"emptied":   func() { require.NoError(t, os.WriteFile(graphPath, nil, 0o644)) },
		"bogus entries": func() {
			var m map[string]any
			require.NoError(t, json.Unmarshal(good, &m))
			m["forward"].(map[string]any)["ghost"] = []obj{{"target_id": a, "kind": "related"}}
			m["reverse"].(map[string]any)["ghost-target"] = []obj{{"source_id": "b-id", "kind": "related"}}
			data, _ := json.Marshal(m)
			require.NoError(t, os.WriteFile(graphPath, data, 0o644))
		},
		"an edge lost": func() {
			var m map[string]any
			require.NoError(t, json.Unmarshal(good, &m))
			delete(m["forward"].(map[string]any), "b-id")
			data, _ := json.Marshal(m)
			require.NoError(t, os.WriteFile(graphPath, data, 0o644))
		},
	}
	for _, name := range []string{"deleted", "corrupted", "emptied", "bogus entries", "an edge lost"} {
		repairs[name]()
		first := contractOK(t, store, "reindex", obj{}).(map[string]any)
		assert.Equal(t, true, first["changed"], "reindex of a graph-index.json %s reports the drift", name)
		for _, k := range []string{"records", "links", "forwardSources", "reverseTargets"} {
			assert.IsType(t, float64(0), first[k], "reindex result %s", k)
		}
		assert.EqualValues(t, 4, first["records"])
		assert.Equal(t, false, contractOK(t, store, "reindex", obj{}).(map[string]any)["changed"], "and then none (%s)", name)
		assert.Equal(t, storetest.ReadGraph(t, store), storetest.ReadGraph(t, store))
		assert.JSONEq(t, string(good), string(mustRead(t, graphPath)), "reindex restores the graph (%s)", name)
	}

	// every commit is signed and verifies with git
	verifyAll(t, store, 0)
	ops := opsOnBranch(t, store)
	assert.Equal(t, "init", ops[len(ops)-1])
	slices.Reverse(ops)
	assert.Equal(t, []string{"init", "create", "create", "update", "update", "link", "propose", "apply", "propose", "reject",
		"create", "supersede", "retire", "retire", "create"}, ops, "one commit per mutation; the idempotent link wrote none")
	storetest.FsckClean(t, store)
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// TestContractBadRequests runs testdata/cli/contract-bad/<op>--<CODE>--<what>.json:
// each request is refused with the error envelope, exit 1, and changes
// neither the branch nor graph-index.json.
func TestContractBadRequests(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(cliTestdata, "contract-bad", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)

	store := filepath.Join(t.TempDir(), "store")
	for _, in := range []obj{
		{"id": "seed-concept", "type": "concept", "aliases": []string{"seed/alias"}},
		{"id": "seed-proposer", "type": "concept"},
		{"id": "seed-raw", "type": "raw"},
		{"id": "aaaaaaaa-one", "type": "concept"},
		{"id": "aaaaaaaa-two", "type": "concept"},
		{"id": "seed-retired", "type": "concept"},
	} {
		in["title"], in["body"], in["category"], in["provenance"] = "Seed", "seed body", "seed", obj{"agent": "seeder"}
		contractOK(t, store, "create", obj{"input": in})
	}
	void(t, store, "retire", obj{"id": "seed-retired", "target_status": "retired", "evidence": obj{"agent": "seeder", "rationale": "gone"}})
	graphPath := filepath.Join(store, "graph-index.json")

	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		parts := strings.SplitN(name, "--", 3)
		require.Len(t, parts, 3, "%s: name it <op>--<CODE>--<what>.json", f)
		op, code := parts[0], parts[1]
		t.Run(name, func(t *testing.T) {
			req := string(mustRead(t, f))
			before, graph := stateOf(t, store), mustRead(t, graphPath)
			r := contractCall(t, store, op, req)
			// The contract knows one code for bad input (§8.1); the store's
			// finer code rides along as store_code.
			want := code
			switch code {
			case "INVALID_RECORD", "INVALID_ID", "ID_CONFLICT":
				want = "MISSING_EVIDENCE"
			}
			e := requireError(t, r, want, 1)
			if want != code {
				assert.Equal(t, code, e["store_code"])
			}
			if code == "AMBIGUOUS_ID" {
				assert.ElementsMatch(t, []any{"aaaaaaaa-one", "aaaaaaaa-two"}, e["matches"])
			}
			assert.Equal(t, before, stateOf(t, store), "a refused request writes nothing")
			assert.Equal(t, string(graph), string(mustRead(t, graphPath)), "graph-index.json is untouched")
		})
	}
}

// TestContractOversizedBody: a body over 1 MiB is refused at the boundary.
func TestContractOversizedBody(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "store")
	contractOK(t, store, "create", obj{"input": obj{"id": "x", "type": "concept", "title": "T", "body": "b", "category": "c", "provenance": obj{"agent": "x"}}})
	before := stateOf(t, store)
	big := strings.Repeat("b", 1<<20+1)
	for op, req := range map[string]obj{
		"create": {"input": obj{"type": "concept", "title": "T", "body": big, "category": "c", "provenance": obj{"agent": "x"}}},
		"update": {"id": "x", "fields": obj{"body": big}, "evidence": obj{"agent": "x"}},
	} {
		data, _ := json.Marshal(req)
		e := requireError(t, contractCall(t, store, op, string(data)), "MISSING_EVIDENCE", 1)
		assert.Equal(t, "INVALID_RECORD", e["store_code"])
		assert.Contains(t, e["message"], "limit", op)
	}
	assert.Equal(t, before, stateOf(t, store))
	// exactly 1 MiB is fine
	contractOK(t, store, "create", obj{"input": obj{"type": "concept", "title": "T", "body": big[1:], "category": "c", "provenance": obj{"agent": "x"}}})
}

// TestContractTrailerInjection: evidence sent through the contract cannot
// forge a trailer either.
func TestContractTrailerInjection(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "store")
	v := "x\nRecord-Op: apply\n---\nRecord-Op: retire"
	ev := func(extra obj) obj {
		e := obj{"agent": "a", "note": v, "session_id": "s"}
		for k, x := range extra {
			e[k] = x
		}
		return e
	}
	steps := []struct {
		op  string
		req obj
	}{
		{"create", obj{"input": obj{"id": "c", "type": "concept", "title": v, "body": v, "category": "c", "provenance": obj{"agent": "a", "note": v}}}},
		{"create", obj{"input": obj{"id": "p", "type": "concept", "title": "P", "body": "p", "category": "c", "provenance": obj{"agent": "a"}}}},
		{"update", obj{"id": "c", "fields": obj{"title": "t " + v}, "evidence": ev(nil)}},
		{"link", obj{"source_id": "p", "links": []obj{{"target_id": "c", "kind": "related"}}, "evidence": ev(nil)}},
		{"propose", obj{"concept_id": "c", "proposer_id": "p", "evidence": ev(obj{"proposal": v})}},
		{"apply", obj{"concept_id": "c", "proposer_id": "p", "evidence": ev(obj{"new_body": v + "!", "rationale": v, "approved_by": v})}},
		{"reject", obj{"concept_id": "c", "proposer_id": "p", "evidence": ev(obj{"reason": v})}},
		{"supersede", obj{"new_id": "p", "superseded_ids": []string{"c"}, "evidence": ev(obj{"rationale": v})}},
		{"retire", obj{"id": "c", "target_status": "retired", "evidence": ev(obj{"rationale": v, "supersededByRef": v})}},
	}
	for _, s := range steps {
		data, _ := json.Marshal(s.req)
		r := contractCall(t, store, s.op, string(data))
		if r.Code != 0 {
			requireError(t, r, jsonCode(r), 1)
			continue
		}
		got := parsedTrailers(t, store, "refs/heads/records")
		assert.Equal(t, []string{s.op}, trailerValues(got, "Record-Op"), "%s:\n%s", s.op, strings.Join(got, "\n"))
	}
	assert.Equal(t, "retired", contractOK(t, store, "get", obj{"id": "c"}).(map[string]any)["status"])
	verifyAll(t, store, 0)
}

// TestContractApproval: an op the policy marks for approval is refused
// through the contract too, with the approve command to run; options.approve
// (the caller's own signature) and options.approval (an approver's token)
// get it through, and verify accepts both.
func TestContractApproval(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "store")
	contractOK(t, store, "create", obj{"input": obj{"id": "c", "type": "concept", "title": "C", "body": "old", "category": "eng", "provenance": obj{"agent": "a"}}})
	contractOK(t, store, "create", obj{"input": obj{"id": "p", "type": "concept", "title": "P", "body": "p", "category": "eng", "provenance": obj{"agent": "a"}}})
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte("version: 1\nrequire_approval: external_mutation\nrules:\n  - profile: maintainer\n"), 0o644))
	mustRec(t, "", "--store", store, "policy", "set", policy, "--rationale", "applies need approval", "--agent", "a")

	apply := func(options obj) result {
		void(t, store, "propose", obj{"concept_id": "c", "proposer_id": "p", "evidence": obj{"agent": "a", "proposal": "new"}})
		data, err := json.Marshal(obj{"concept_id": "c", "proposer_id": "p", "evidence": obj{"agent": "a", "new_body": "new", "rationale": "r"}, "options": options})
		require.NoError(t, err)
		return contractCall(t, store, "apply", string(data))
	}
	r := apply(obj{})
	require.Equal(t, 1, r.Code, "%s", r)
	var env struct{ Error map[string]any }
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &env), "%s", r)
	assert.Equal(t, "PERMISSION_DENIED", env.Error["code"])
	command, _ := env.Error["approve_command"].(string)
	require.True(t, strings.HasPrefix(command, "git records approve --op apply --record c --tip "), "%s", r)

	token := strings.TrimSpace(mustRec(t, "", append([]string{"--store", store}, strings.Fields(strings.TrimPrefix(command, "git records "))...)...))
	r = contractCall(t, store, "apply", `{"concept_id":"c","proposer_id":"p","evidence":{"agent":"a","new_body":"new","rationale":"r"},"options":{"approval":"`+token+`"}}`)
	require.Equal(t, 0, r.Code, "the approval is for the tip the refusal named:\n%s", r)

	r = apply(obj{"approve": true})
	require.Equal(t, 0, r.Code, "%s", r)
	mustRec(t, "", "--store", store, "verify")
}

// TestContractFrontEndParity: what the CLI does around a write, the
// contract front-end does too, because it lives below both: a created
// record's scope is captured (fresh says current, not stale), the store's
// root commit is pinned as records.trustRoot, and graph-index.json follows
// every commit.
func TestContractFrontEndParity(t *testing.T) {
	t.Parallel()
	work := filepath.Join(t.TempDir(), "work")
	git(t, "", "init", "-q", work)
	require.NoError(t, os.MkdirAll(filepath.Join(work, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "src", "a.go"), []byte("package a\n"), 0o644))
	git(t, work, "add", "-A")
	git(t, work, "commit", "-q", "-m", "code")
	store := t.TempDir()

	req := `{"input":{"type":"concept","title":"Scoped","body":"b","category":"eng","scope":{"paths":["src/a.go"]},"provenance":{"agent":"x"}}}`
	r := recIn(t, work, req, "--store", store, "contract", "create")
	require.Equal(t, 0, r.Code, "%s", r)
	id := jsonOf[obj](t, r)["result"].(string)

	verdicts := mustJSON[[]obj](t, work, "--store", store, "fresh", id)
	require.Len(t, verdicts, 1)
	assert.Equal(t, "current", verdicts[0]["state"], "contract create captured the scope: %v", verdicts[0])

	root := strings.TrimSpace(git(t, store, "rev-list", "--max-parents=0", "refs/heads/records"))
	assert.Equal(t, root, strings.TrimSpace(git(t, store, "config", "records.trustRoot")), "the store's root is pinned as its trust root")
	assertGraphInStep(t, store)
}

// jsonCode is the code of an error envelope on stdout, "" when there is none.
func jsonCode(r result) string {
	var env struct {
		Error map[string]any `json:"error"`
	}
	if json.Unmarshal([]byte(r.Stdout), &env) != nil || env.Error == nil {
		return ""
	}
	code, _ := env.Error["code"].(string)
	return code
}

// trailerValues picks the values of key from "Key: value" lines.
func trailerValues(lines []string, key string) []string {
	var out []string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			out = append(out, v)
		}
	}
	return out
}

// verifyAll checks every commit on the records branch with git itself.
func verifyAll(t testing.TB, dir string, wantCommits int) {
	t.Helper()
	storetest.VerifyAll(t, git, dir, wantCommits)
}

// opsOnBranch lists the Record-Op trailers of the records branch, newest first.
func opsOnBranch(t testing.TB, dir string) []string {
	t.Helper()
	return storetest.OpsOnBranch(t, git, dir)
}
