package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
)

// needServer builds git-records-server next to the git-records under
// test: its mcp and serve exec it.
func needServer(t testing.TB) string {
	t.Helper()
	path, err := testenv.Server()
	require.NoError(t, err)
	return path
}

// TestServerExec: mcp and serve exec the git-records-server next to the
// git-records that runs (its symbolic links resolved), else the one on
// PATH, on the same command line; without one they fail with
// NOT_INSTALLED, naming the install command; a server of another build
// refuses the git-records that execs it. serve's --addr is checked by
// the server only, so its refusal shows which program ran.
func TestServerExec(t *testing.T) {
	t.Parallel()
	needServer(t)
	dir := newRepo(t)
	elsewhere := t.TempDir()
	noServer := []string{"PATH=/usr/bin:/bin"}
	if gitPath, err := exec.LookPath("git"); err == nil {
		noServer = []string{"PATH=" + filepath.Dir(gitPath) + string(os.PathListSeparator) + "/usr/bin:/bin"}
	}
	servedBy := func(r result) {
		t.Helper()
		e := requireError(t, r, "USAGE", exitUsage)
		assert.Contains(t, e["message"], `--addr "nope" is not HOST:PORT`, "the server judged --addr")
	}

	link := filepath.Join(elsewhere, "linked-git-records")
	require.NoError(t, os.Symlink(binPath, link))
	servedBy(execEnv(t, dir, "", noServer, link, "--json", "serve", "--addr", "nope"))
	// A server of another build than the git-records that execs it refuses.
	e := requireError(t, execEnv(t, dir, "", append([]string{"GIT_RECORDS_CLIENT_BUILD=v0.0.1"}, noServer...), needServer(t), "--json", "serve", "--addr", "nope"), "NOT_INSTALLED", exitSetup)
	assert.Contains(t, e["message"], "not from the build of the git-records that ran it")

	// A hard link, not a copy: a copy is written through a file
	// descriptor that a child forked meanwhile by a parallel test holds
	// until it execs, and exec'ing the copy then fails with "text file
	// busy" (golang.org/issue/22315). A copy only across file systems.
	alone := filepath.Join(elsewhere, "git-records")
	if os.Link(binPath, alone) != nil {
		data, err := os.ReadFile(binPath)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(alone, data, 0o755))
	}
	e = requireError(t, execEnv(t, dir, "", noServer, alone, "--json", "serve", "--addr", "nope"), "NOT_INSTALLED", exitSetup)
	assert.Contains(t, e["message"], "go install github.com/git-records/git-records/cmd/...@latest")
	assert.Equal(t, "git-records-server", e["program"])
	r := execEnv(t, dir, "", noServer, alone, "mcp")
	assert.Equal(t, exitSetup, r.code, r.String())
	assert.Contains(t, r.stderr, "NOT_INSTALLED", r.String())
	// Help needs no server.
	r = execEnv(t, dir, "", noServer, alone, "mcp", "--help")
	require.Equal(t, 0, r.code, r.String())
	assert.Contains(t, r.stdout, "--poll")

	servedBy(execEnv(t, dir, "", []string{"PATH=" + filepath.Dir(binPath) + string(os.PathListSeparator) + noServer[0][len("PATH="):]},
		alone, "--json", "serve", "--addr", "nope"))
}

// TestServersNotLinked: git-records does not link what only the servers
// use (the MCP SDK and its JSON schema and gob, net/http, html/template,
// the web view): their package initialisation and pages cost every
// command, a show or a --version, about 5 ms. git-records-server does.
func TestServersNotLinked(t *testing.T) {
	t.Parallel()
	r := execEnv(t, filepath.Join("..", ".."), "", goEnv, "go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`,
		"./cmd/git-records", "./cmd/git-records-server")
	require.Equal(t, 0, r.code, r.String())
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		f := strings.Fields(line)
		deps[path.Base(f[0])] = f[1:]
	}
	require.Contains(t, deps["git-records"], "github.com/git-records/git-records/pkg/cmd/agent/mcp", "the command, for help and completion")
	for _, p := range []string{
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"github.com/google/jsonschema-go/jsonschema",
		"encoding/gob",
		"net/http",
		"html/template",
		"github.com/git-records/git-records/mcpserver",
		"github.com/git-records/git-records/web",
	} {
		assert.NotContains(t, deps["git-records"], p)
		assert.Contains(t, deps["git-records-server"], p)
	}
}

// mcpClientName is the name the test client gives in its clientInfo: the
// agent the server records when it is started without --agent.
const mcpClientName = "mcp-test-agent"

// mcpSession starts `git-records mcp args…` in dir (the built binary, over
// a real stdio pipe) and connects the SDK's own client to it.
func mcpSession(t *testing.T, dir string, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	needServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, binPath, append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: mcpClientName, Version: "1.0"}, opts)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { session.Close() })
	return session
}

// callTool calls a tool and returns its structured content, decoded.
func callTool(t *testing.T, s *mcp.ClientSession, name string, args obj) (*mcp.CallToolResult, obj) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "a refused op is a tool error, never a protocol error")
	var out obj
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &out))
	}
	return res, out
}

// mustCall calls a tool and requires it to succeed.
func mustCall(t *testing.T, s *mcp.ClientSession, name string, args obj) obj {
	t.Helper()
	res, out := callTool(t, s, name, args)
	require.False(t, res.IsError, "%s %v: %v", name, args, out)
	return out
}

// TestMCPServer drives `git records mcp` with the SDK's client: the tools
// and their schemas, a create with wikilinks, a search that finds it, the
// record as a resource, a
// change notification when another process writes, and a coded tool error
// for a denied op.
func TestMCPServer(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	updated := make(chan string, 16)
	listChanged := make(chan struct{}, 16)
	s := mcpSession(t, dir, &mcp.ClientOptions{
		ResourceUpdatedHandler:     func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { listChanged <- struct{}{} },
	})
	ctx := context.Background()

	tools, err := s.ListTools(ctx, nil)
	require.NoError(t, err)
	byName := map[string]*mcp.Tool{}
	for _, tl := range tools.Tools {
		byName[tl.Name] = tl
		assert.NotEmpty(t, tl.Description, tl.Name)
	}
	for _, name := range []string{"create", "update", "link", "propose", "apply", "reject", "supersede", "retire",
		"show", "links", "list", "search", "proposals", "log", "blame", "fresh", "verify", "diff", "capabilities",
		"continue", "exec_start", "exec_manage", "exec_end", "inspect_bindings"} {
		assert.Contains(t, byName, name)
	}
	// The schema carries the vocabulary and names what is required.
	schema, err := json.Marshal(byName["create"].InputSchema)
	require.NoError(t, err)
	for _, want := range []string{`"required":["type","title","category","body"]`, `"review.finding"`, `"supersedes"`, `"appears-in"`} {
		assert.Contains(t, string(schema), want)
	}
	assert.Contains(t, string(schema), `"pattern"`, "the category's syntax")
	schema, err = json.Marshal(byName["retire"].InputSchema)
	require.NoError(t, err)
	assert.Contains(t, string(schema), `"enum":["retired","implemented"]`)
	assert.Contains(t, string(schema), `"rationale"`)

	// A create with a wikilink, as the client's agent.
	mustCall(t, s, "create", obj{"id": "rfc-6749", "type": "raw", "title": "RFC 6749", "category": "auth.standards", "body": "Section 10.4."})
	created := mustCall(t, s, "create", obj{"type": "concept", "title": "Token refresh", "category": "auth.tokens",
		"aliases": []string{"auth/token-refresh"}, "body": "Tokens rotate, as [[rfc-6749|the RFC]] allows.", "note": "from the MCP test"})
	id, _ := created["id"].(string)
	require.Regexp(t, idLine, id)
	assert.Equal(t, strings.TrimSpace(git(t, dir, "rev-parse", "refs/heads/records")), created["commit"])
	// A namespaced type is any type; a category outside the syntax is refused.
	mustCall(t, s, "create", obj{"id": "acme-1", "type": "acme.note", "title": "Acme", "category": "acme", "body": "[[rfc-6749]]"})
	res, _ := callTool(t, s, "create", obj{"type": "concept", "title": "Bad", "category": "Not A Category", "body": "b"})
	assert.True(t, res.IsError)
	links := mustCall(t, s, "links", obj{"handle": "rfc-6749"})
	assert.Contains(t, fmt.Sprint(links["reverse"]), id, "the wikilink is a backlink of its target")
	found := mustCall(t, s, "search", obj{"query": "rotate", "type": "concept"})
	hits, _ := found["hits"].([]any)
	require.Len(t, hits, 1, "%v", found)
	assert.Equal(t, id, hits[0].(map[string]any)["id"])
	assert.Contains(t, hits[0].(map[string]any)["snippet"], "rotate", "a snippet around the hit")
	shown := mustCall(t, s, "show", obj{"handle": "auth/token-refresh"})
	assert.Equal(t, id, shown["id"])
	log := mustCall(t, s, "log", obj{"handle": id})
	entries, _ := log["entries"].([]any)
	require.Len(t, entries, 1)
	entry := entries[0].(map[string]any)
	assert.Equal(t, mcpClientName, entry["agent"], "the agent is the client's name")
	assert.Equal(t, "good", entry["signature"], "the write is a signed commit")
	git(t, dir, "verify-commit", "refs/heads/records")

	// The record as a resource: the file as it is on the branch.
	path := strings.TrimSpace(git(t, dir, "ls-tree", "-r", "--name-only", "refs/heads/records", "records/concept/"))
	read, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "records://" + id})
	require.NoError(t, err)
	require.Len(t, read.Contents, 1)
	assert.Equal(t, git(t, dir, "show", "refs/heads/records:"+path), read.Contents[0].Text)
	assert.Equal(t, "text/markdown", read.Contents[0].MIMEType)
	byAlias, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "records://" + id[:8]})
	require.NoError(t, err, "the template takes any handle")
	assert.Equal(t, "records://"+id, byAlias.Contents[0].URI, "answered under the canonical URI")
	for _, uri := range []string{"records://no-such-record", "records://../.records/policy.yaml", "records://.records/format", "file:///etc/passwd"} {
		_, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		require.Error(t, err, "%s is no record", uri)
	}
	listed, err := s.ListResources(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range listed.Resources {
		uris = append(uris, r.URI)
	}
	assert.ElementsMatch(t, []string{"records://rfc-6749", "records://acme-1", "records://" + id}, uris)

	// Another process writes: the subscriber hears of it, under each URI
	// it subscribed to (the id, an alias, an id prefix), and of the list.
	// A search finds the record by its new words.
	subscribed := []string{"records://" + id, "records://auth/token-refresh", "records://" + id[:8]}
	for _, uri := range subscribed {
		require.NoError(t, s.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}))
	}
	drain(listChanged)
	mustRec(t, dir, "update", id, "--title", "Token refresh and reuse", "--agent", "someone-else")
	var heard []string
	for range subscribed {
		heard = append(heard, waitFor(t, updated))
	}
	assert.ElementsMatch(t, subscribed, heard, "a subscribed record's change is notified under every URI subscribed to")
	waitFor(t, listChanged)
	found = mustCall(t, s, "search", obj{"query": "reuse"})
	hits, _ = found["hits"].([]any)
	require.Len(t, hits, 1, "a search after another process wrote finds its words: %v", found)
	assert.Equal(t, id, hits[0].(map[string]any)["id"])
	read, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "records://" + id})
	require.NoError(t, err)
	assert.Contains(t, read.Contents[0].Text, "title: Token refresh and reuse")

	// The session's own writes are published from what its index applied
	// (no second tree diff): the subscriber hears of them too, also when
	// another process writes in the middle of a burst of them.
	drain(updated)
	mustCall(t, s, "update", obj{"handle": id, "title": "Token refresh, rotated"})
	heard = heard[:0]
	for range subscribed {
		heard = append(heard, waitFor(t, updated))
	}
	assert.ElementsMatch(t, subscribed, heard, "the session's own write is notified under every URI subscribed to")
	var burst sync.WaitGroup
	for i := range 8 {
		burst.Add(1)
		go func() {
			defer burst.Done()
			mustCall(t, s, "create", obj{"type": "concept", "title": fmt.Sprint("burst ", i), "category": "auth", "body": "b"})
		}()
	}
	mustRec(t, dir, "update", id, "--title", "Token refresh, rotated twice", "--agent", "someone-else")
	burst.Wait()
	heard = heard[:0]
	for range subscribed {
		heard = append(heard, waitFor(t, updated))
	}
	assert.ElementsMatch(t, subscribed, heard, "another process's write amid the session's is notified")
	drain(updated)
	read, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "records://" + id})
	require.NoError(t, err)
	assert.Contains(t, read.Contents[0].Text, "title: Token refresh, rotated twice")

	// A proposal's life cycle: propose, find its id, apply the proposed text.
	mustCall(t, s, "propose", obj{"concept": id, "proposer": "rfc-6749", "proposal": "Tokens rotate on every use."})
	proposals := mustCall(t, s, "proposals", obj{"handle": id, "state": "pending"})
	pending, _ := proposals["proposals"].([]any)
	require.Len(t, pending, 1, "%v", proposals)
	mustCall(t, s, "apply", obj{"concept": id, "proposer": pending[0].(map[string]any)["id"], "rationale": "matches the RFC"})
	shown = mustCall(t, s, "show", obj{"handle": id})
	assert.Equal(t, "Tokens rotate on every use.", shown["body"], "apply without new_body applies the proposed text")

	// A denied op: a tool error with the code, the rule and the recovery.
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte("version: 1\nrules:\n  - profile: read-only\n"), 0o644))
	mustRec(t, dir, "policy", "set", policy, "--rationale", "lock down", "--agent", "a")
	tip := git(t, dir, "rev-parse", "refs/heads/records")
	res, out := callTool(t, s, "create", obj{"type": "concept", "title": "Denied", "category": "c", "body": "b"})
	require.True(t, res.IsError)
	e, _ := out["error"].(map[string]any)
	assert.Equal(t, "PERMISSION_DENIED", e["code"], "%v", out)
	assert.Equal(t, "default → read-only", e["rule"])
	assert.NotEmpty(t, e["recovery"])
	assert.Equal(t, tip, git(t, dir, "rev-parse", "refs/heads/records"), "nothing was written")
	// An agent cannot approve for itself: the schema has no such argument.
	res, out = callTool(t, s, "retire", obj{"handle": id, "rationale": "r", "approve": true})
	assert.True(t, res.IsError)
	e, _ = out["error"].(map[string]any)
	assert.Equal(t, "USAGE", e["code"], "arguments outside the schema are a coded refusal too: %v", out)
	// Evidence left out is named.
	res, out = callTool(t, s, "supersede", obj{"new": id, "old": []string{"rfc-6749"}, "rationale": ""})
	require.True(t, res.IsError)
	e, _ = out["error"].(map[string]any)
	assert.Contains(t, []any{"MISSING_EVIDENCE", "PERMISSION_DENIED"}, e["code"])
	// The server is still there.
	mustCall(t, s, "show", obj{"handle": id})
}

// TestMCPConcurrentWriters: two MCP clients (each calling concurrently) and
// CLI processes creating at once lose nothing; the branch is one line of
// every create.
func TestMCPConcurrentWriters(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	// Two MCP servers (two clients), each called from two goroutines.
	sessions := []*mcp.ClientSession{mcpSession(t, dir, nil, "--agent", "mcp-writer-1"), mcpSession(t, dir, nil, "--agent", "mcp-writer-2")}
	const viaMCP, mcpCallers, procs, perProc = 20, 4, 2, 8
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := execIn(t, dir, "", "sh", "-c", shellCreates(perProc, fmt.Sprint("cli", p)))
			if !assert.Equal(t, 0, r.code, "%s", r) {
				return
			}
			mu.Lock()
			acked = append(acked, ackedIDs(t, r.stdout)...)
			mu.Unlock()
		}()
	}
	// A session's calls go out concurrently too: its server writes the
	// creates that arrive while a commit is in flight as one group.
	for c := range mcpCallers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := sessions[c%len(sessions)]
			for i := range viaMCP / mcpCallers {
				res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "create",
					Arguments: obj{"type": "concept", "title": fmt.Sprint("mcp ", c, ".", i), "category": "load", "body": "b"}})
				if !assert.NoError(t, err) || !assert.False(t, res.IsError, "%v", res.StructuredContent) {
					return
				}
				mu.Lock()
				acked = append(acked, res.StructuredContent.(map[string]any)["id"].(string))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Strings(acked)
	require.Len(t, acked, viaMCP+procs*perProc)
	assert.Equal(t, acked, createdOnBranch(t, dir), "every acknowledged create is on the branch, once")
	assertLinear(t, dir, 1+len(acked))
	// Commits written in groups are each judged as any other.
	mustRec(t, dir, "verify")
}

func drain[T any](c chan T) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// waitFor is the next value on c; ten seconds without one fails the test.
func waitFor[T any](t *testing.T, c chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10s")
	}
	var zero T
	return zero
}

// TestMCPStandaloneStore: --store DIR works for mcp as for every command:
// the store is set up on first use and what the session writes, the CLI reads.
func TestMCPStandaloneStore(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "kb")
	s := mcpSession(t, t.TempDir(), nil, "--store", store)
	out := mustCall(t, s, "create", obj{"id": "note", "type": "concept", "title": "A note", "category": "kb", "body": "b"})
	assert.Equal(t, "note", out["id"])
	shown := mustJSON[obj](t, "", "--store", store, "show", "note")
	assert.Equal(t, mcpClientName, shown["provenance"].(map[string]any)["agent"])
	caps := mustCall(t, s, "capabilities", obj{})
	assert.Contains(t, fmt.Sprint(caps["capabilities"]), "record.write")
}

// TestMCPExecutionTools: an agent starts a run and a child over MCP, reads
// its carry-over at the start of the next run, is refused managing from
// another session, and ends its session with receipts.
func TestMCPExecutionTools(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	s := mcpSession(t, dir, nil)
	run := mustCall(t, s, "exec_start", obj{"execution_type": "run", "title": "Nightly", "session": "s-1", "creator_job": "job-1"})
	runID, _ := run["id"].(string)
	child := mustCall(t, s, "exec_start", obj{"execution_type": "child_run", "title": "Review", "session": "s-1", "parent_job": runID, "keep_after_run": true})
	co := mustCall(t, s, "continue", obj{"owner": "s-1"})
	open, _ := co["open"].([]any)
	require.Len(t, open, 2)
	assert.Contains(t, co["summary"], "# Carry-over for session s-1")

	res, out := callTool(t, s, "exec_manage", obj{"handle": child["id"], "action": "cancel", "session": "s-2", "reason": "mine"})
	require.True(t, res.IsError)
	e, _ := out["error"].(map[string]any)
	assert.Equal(t, "NOT_OWNER", e["code"], "%v", out)

	ended := mustCall(t, s, "exec_end", obj{"session": "s-1", "archive": true})
	assert.Len(t, ended["closed"], 2)
	assert.Equal(t, "archived", ended["state"])
	assert.Empty(t, mustCall(t, s, "continue", obj{"owner": "s-1"})["open"])
	bindings := mustCall(t, s, "inspect_bindings", obj{})
	assert.Equal(t, false, bindings["declared"])
}
