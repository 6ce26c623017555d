package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/service"
	"github.com/git-records/git-records/web"
)

// webOf serves the store in dir in-process, as `serve` does.
func webOf(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	open := func() (*service.Service, error) { return service.Open(dir, service.Options{}) }
	svc, err := open()
	require.NoError(t, err)
	ws := web.New(svc, open)
	srv := httptest.NewServer(ws)
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, ws.Close())
		require.NoError(t, svc.Close())
	})
	return srv
}

// rawGet sends one request with target written exactly as given (no
// client-side cleaning or escaping) and returns the status and body.
func rawGet(t *testing.T, srv *httptest.Server, method, target, host string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", method, target, host)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "%s %s", method, target)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	return rawGet(t, srv, "GET", path, srv.Listener.Addr().String())
}

// TestServePages reads each page of the golden store and checks what a
// reader comes for: the list and its filters, a record with its rendered
// body, fields, links, backlinks, neighbourhood and signed history, and
// that the view follows the branch when it moves.
func TestServePages(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	srv := webOf(t, dir)

	code, body := get(t, srv, "/")
	require.Equal(t, 200, code, body)
	for _, want := range []string{"Token refresh", "RFC 6749: The OAuth 2.0 Authorization Framework", "Refresh token reused across sessions", `href="/r/rfc-6749"`} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, "Old note", "retired records only when asked")

	_, body = get(t, srv, "/?category=auth&prefix=1&include-retired=1")
	assert.Contains(t, body, "Rotate weekly")
	assert.NotContains(t, body, "RFC 6749", "standards.oauth is not under auth")
	_, body = get(t, srv, "/?include-retired=1")
	assert.Contains(t, body, "Old note")
	_, body = get(t, srv, "/?q=rotate")
	assert.Contains(t, body, "Token refresh", "search finds the body's word")
	assert.Contains(t, body, "<mark>", "and marks it")
	assert.NotContains(t, body, "RFC 6749: The OAuth")
	_, body = get(t, srv, "/?live=1")
	assert.Contains(t, body, "Token refresh")
	_, body = get(t, srv, "/?status=bogus")
	assert.Contains(t, body, `status &#34;bogus&#34; is not one of`, "a bad filter says what is allowed")

	// An alias or a prefix sends the browser to the record's own page.
	code, _ = get(t, srv, "/r/auth/token-refresh")
	assert.Equal(t, http.StatusFound, code)
	code, body = get(t, srv, "/r/"+goldenConcept)
	require.Equal(t, 200, code, body)
	for _, want := range []string{
		`<h1 id="title">Token refresh</h1>`,
		`<a class="wikilink" href="/r/rfc-6749">the RFC</a>`, // the body's wikilink
		`<th>aliases</th><td>auth/token-refresh</td>`,
		`<th>freshness</th>`,
		`href="/r/shipped">Rotate weekly</a>`, // a backlink, with its label
		"(policy)",
		`href="/r/` + goldenFinding + `">Refresh token reused across sessions</a>`,
		`<svg xmlns="http://www.w3.org/2000/svg"`, `class="node root" data-id="` + goldenConcept + `"`,
		`<td>create</td><td>alice</td><td>` + userEmail + `</td><td class="sig-good">good</td>`,
	} {
		assert.Contains(t, body, want)
	}
	_, body = get(t, srv, "/r/shipped")
	assert.Regexp(t, `<td>link</td><td>alice</td><td>`+regexp.QuoteMeta(userEmail)+`</td><td class="sig-good">good</td>`, body, "history: op, agent, signer, signature")

	_, body = get(t, srv, "/graph?all=1")
	assert.Contains(t, body, "5 records, 4 links")
	_, body = get(t, srv, "/graph?root=rfc-6749&depth=2")
	assert.Contains(t, body, "Neighbourhood of rfc-6749 (2 links)")
	code, _ = get(t, srv, "/graph?depth=99")
	assert.Equal(t, http.StatusBadRequest, code)
	code, _ = get(t, srv, "/r/nosuchrecord")
	assert.Equal(t, http.StatusNotFound, code)

	mustRec(t, dir, "propose", goldenConcept, "--proposer", goldenFinding, "--proposal", "Rotate <b>twice</b>", "--agent", "bob")
	_, body = get(t, srv, "/proposals")
	assert.Contains(t, body, "Rotate &lt;b&gt;twice&lt;/b&gt;", "proposal text, escaped")
	assert.Contains(t, body, "pending")
	_, body = get(t, srv, "/conflicts")
	assert.Contains(t, body, "no conflicts")

	// The branch moves; the next page shows it.
	mustRec(t, dir, "update", goldenConcept, "--title", "Token refresh, rotated", "--agent", "alice")
	_, body = get(t, srv, "/r/"+goldenConcept)
	assert.Contains(t, body, `<h1 id="title">Token refresh, rotated</h1>`)
	assert.Contains(t, body, "@ "+tip(t, dir)[:12])
}

// TestServeOnlyReadsTheBranch: nothing but GET and HEAD, nothing but the
// branch (no file of the repository, the working tree or the binary's
// templates, however the path is spelled), and no host but this machine.
func TestServeOnlyReadsTheBranch(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	srv := webOf(t, dir)
	host := srv.Listener.Addr().String()

	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		code, _ := rawGet(t, srv, m, "/r/"+goldenConcept, host)
		assert.Equal(t, http.StatusMethodNotAllowed, code, m)
	}
	code, _ := rawGet(t, srv, "HEAD", "/", host)
	assert.Equal(t, 200, code)

	code, body := rawGet(t, srv, "GET", "/", "attacker.example")
	assert.Equal(t, http.StatusForbidden, code, "a rebound DNS name gets nothing")
	assert.NotContains(t, body, "Token refresh")
	code, _ = rawGet(t, srv, "GET", "/", "localhost:1234")
	assert.Equal(t, 200, code)

	// Files that exist next to what is served: the repository's config
	// and HEAD, the templates embedded in the binary, /etc/passwd.
	secrets := []string{"[core]", "ref: refs/heads", "{{define", "root:x:0:0", "package main"}
	for _, target := range []string{
		"/static/../web/pages.html", "/static/%2e%2e/web/pages.html", "/static/..%2fweb%2fpages.html",
		"/static/style.css/../../web/pages.html", "/web/pages.html", "/static/", "/static/pages.html",
		"/r/../../../../etc/passwd", "/r/..%2f..%2f..%2f..%2fetc%2fpasswd", "/r/%2e%2e/%2e%2e/.git/config",
		"/r/..%5c..%5c.git%5cconfig", "/.git/config", "/.git/HEAD", "//etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
		"/r/" + goldenConcept + "/../../.git/config", "/r/%00", "/r/rfc-6749%00.md",
		"/graph?root=../../.git/config", "/r/records/concept/" + goldenConcept + ".md",
	} {
		code, body := rawGet(t, srv, "GET", target, host)
		for _, s := range secrets {
			assert.NotContains(t, body, s, "GET %s (%d) served a file", target, code)
		}
		if code == 200 {
			assert.Contains(t, body, `<span class="tip" id="tip">`, "GET %s: a 200 is one of our pages", target)
		}
	}
	code, body = get(t, srv, "/static/style.css")
	assert.Equal(t, 200, code)
	assert.Contains(t, body, "font-family")
}

// TestServePagesAtOnce: pages asked for at once, each request with a
// service of its own, read as they read one at a time (run under -race,
// this also says no two requests share what they may not).
func TestServePagesAtOnce(t *testing.T) {
	t.Parallel()
	dir := goldenStore(t)
	srv := webOf(t, dir)
	pages := []string{"/", "/?q=rotate", "/?live=1", "/r/" + goldenConcept, "/r/shipped", "/graph", "/graph?root=rfc-6749&depth=2",
		"/proposals", "/conflicts", "/r/nosuchrecord"}
	want := map[string]string{}
	for _, p := range pages {
		_, want[p] = get(t, srv, p)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range pages {
				p := pages[(i+j)%len(pages)]
				_, body := get(t, srv, p)
				assert.Equal(t, want[p], body, p)
			}
		})
	}
	wg.Wait()
}
