package main

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawResponse is rawGet's request with the whole response kept: headers
// and the body's bytes.
func rawResponse(t *testing.T, srv *httptest.Server, method, target string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", method, target, srv.Listener.Addr())
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	require.NoError(t, err, "%s %s", method, target)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))))
	return b.Bytes()
}

// observed stores data as the payload of a new snapshot record titled
// title, as an attachment's record holds it, and returns the record's id.
func observed(t *testing.T, dir, title string, data []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "payload")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	out := seed(t, dir, "--json", "observe", "--extension", "vault", "--external-id", title, "--payload-file", file,
		"--title", title, "--category", "files", "--agent", "t")
	id := regexp.MustCompile(`"id":\s*"([^"]+)"`).FindStringSubmatch(out)
	require.NotNil(t, id, "observe printed no id:\n%s", out)
	return id[1]
}

// TestServeAttachments: a payload is served as the image its bytes are,
// or as a download, never as a page of ours: whatever the record's title
// (its file name) claims, HTML and SVG never render as a document of this
// origin, and no name breaks out of Content-Disposition.
func TestServeAttachments(t *testing.T) {
	t.Parallel()
	dir := seedRepo(t)
	pic := pngBytes(t)
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>`)
	html := []byte("<!DOCTYPE html><html><script>alert(document.cookie)</script></html>")
	type want struct {
		ctype, disposition string
	}
	cases := []struct {
		title string
		data  []byte
		want  want
	}{
		{"diagram.png", pic, want{"image/png", `inline; filename=diagram.png`}},
		{"page.html", pic, want{"image/png", `inline; filename=page.html.png`}},
		{"photo.jpeg", pic, want{"image/png", `inline; filename=photo.jpeg.png`}},
		{"evil.png", html, want{"application/octet-stream", `attachment; filename=evil.png`}},
		{"drawing.svg", svg, want{"image/svg+xml", `attachment; filename=drawing.svg`}},
		{"fake.svg", html, want{"application/octet-stream", `attachment; filename=fake.svg`}},
		{"spec v2.pdf", []byte("%PDF-1.4\n%\xe2\xe3\n"), want{"application/octet-stream", `attachment; filename="spec v2.pdf"`}},
		{"../../.git/config", []byte("[core]\n"), want{"application/octet-stream", `attachment; filename=config`}},
		{`a"; filename="b.html`, []byte("x"), want{"application/octet-stream", `attachment; filename="a; filename=b.html"`}},
		{"invoice\u202egnp.exe", []byte("MZ"), want{"application/octet-stream", `attachment; filename=invoicegnp.exe`}},
		{"..", []byte("y"), want{"application/octet-stream", `attachment; filename=attachment`}},
		{"résumé.txt", []byte("z"), want{"application/octet-stream", `attachment; filename*=utf-8''r%C3%A9sum%C3%A9.txt`}},
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = observed(t, dir, c.title, c.data)
	}
	seed(t, dir, "create", "--id", "plain", "--type", "concept", "--title", "No payload", "--category", "t", "--body", "text\n", "--agent", "t")
	srv := webOf(t, dir)

	for i, c := range cases {
		resp, body := rawResponse(t, srv, "GET", "/a/"+ids[i])
		require.Equal(t, 200, resp.StatusCode, "%s: %s", c.title, body)
		assert.Equal(t, c.want.ctype, resp.Header.Get("Content-Type"), c.title)
		assert.Equal(t, c.want.disposition, resp.Header.Get("Content-Disposition"), c.title)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), c.title)
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "sandbox", c.title)
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'", c.title)
		assert.Equal(t, c.data, body, "%s: the payload's bytes", c.title)
	}
	// HEAD and a range, as a browser asks for a large file.
	resp, body := rawResponse(t, srv, "HEAD", "/a/"+ids[0])
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	assert.Empty(t, body)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	fmt.Fprintf(conn, "GET /a/%s HTTP/1.1\r\nHost: %s\r\nRange: bytes=0-3\r\nConnection: close\r\n\r\n", ids[0], srv.Listener.Addr())
	ranged, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	part, _ := io.ReadAll(ranged.Body)
	conn.Close()
	assert.Equal(t, http.StatusPartialContent, ranged.StatusCode)
	assert.Equal(t, pic[:4], part)

	// Nothing but a record's payload: no payload, no record, no path.
	for _, target := range []string{"/a/plain", "/a/nosuchrecord", "/a/", "/a/../../.git/config", "/a/%2e%2e%2f%2e%2e%2f.git%2fconfig",
		"/a/payloads/" + strings.Repeat("0", 64), "/a/sha256:" + strings.Repeat("0", 64)} {
		resp, body := rawResponse(t, srv, "GET", target)
		assert.NotEqual(t, 200, resp.StatusCode, "GET %s: %s", target, body)
		assert.NotContains(t, string(body), "[core]", target)
		assert.NotEqual(t, "image/png", resp.Header.Get("Content-Type"), target)
	}
	resp, _ = rawResponse(t, srv, "POST", "/a/"+ids[0])
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	code, stolen := rawGet(t, srv, "GET", "/a/"+ids[0], "attacker.example")
	assert.Equal(t, http.StatusForbidden, code, "a rebound DNS name gets no payload")
	assert.NotContains(t, stolen, "PNG")

	// The attachment's own page shows the picture, or a download.
	_, page := get(t, srv, "/r/"+ids[0])
	assert.Contains(t, page, `<img src="/a/`+ids[0]+`" alt="diagram.png">`)
	_, page = get(t, srv, "/r/"+ids[6])
	assert.Contains(t, page, `<a class="attachment" href="/a/`+ids[6]+`" download="spec v2.pdf">download spec v2.pdf</a>`)
	assert.NotContains(t, page, "<img src=\"/a/")
}

// TestServeEmbeds: a note's embeds show what they embed: a picture as an
// image, a file as a download, a note in place (one level deep, its
// section when the embed names a heading); Markdown images and links to
// a record point at its payload or page; and no title, label or alt
// text becomes markup.
func TestServeEmbeds(t *testing.T) {
	t.Parallel()
	dir := seedRepo(t)
	pic := observed(t, dir, "diagram.png", pngBytes(t))
	pdf := observed(t, dir, "spec.pdf", []byte("%PDF-1.4\n"))
	seed(t, dir, "create", "--id", "inner", "--type", "concept", "--title", "Inner <i>note</i>", "--category", "t", "--alias", "notes/inner",
		"--body", "# Intro\n\nFirst part.\n\n## Detail\n\nDetail text.\n\n# Other\n\nOther text.\n\n![[deeper]]\n", "--agent", "t")
	seed(t, dir, "create", "--id", "deeper", "--type", "concept", "--title", "Deeper", "--category", "t", "--body", "Deep body.\n", "--agent", "t")
	body := strings.Join([]string{
		"![[" + pic + `|the "diagram" <b>]]`,
		"",
		"Inline ![[" + pic + "|small]] picture and a file: ![[" + pdf + "|the spec]].",
		"",
		"![[notes/inner#Detail]]",
		"",
		"![[inner]]",
		"",
		"![alt \"text\" & more](" + pic + ` "a title")`,
		"",
		"![dangling](nowhere.png) and [a link](notes/inner.md) and [away](https://example.com/x.png)",
		"",
		"![[nowhere.png|<script>alert(1)</script>]]",
		"",
	}, "\n")
	seed(t, dir, "create", "--id", "host", "--type", "concept", "--title", "Host", "--category", "t", "--body", body, "--agent", "t")
	srv := webOf(t, dir)
	code, page := get(t, srv, "/r/host")
	require.Equal(t, 200, code, page)
	for _, want := range []string{
		`<div class="embed"><a class="embed-image" href="/r/` + pic + `"><img src="/a/` + pic + `" alt="the &#34;diagram&#34; &lt;b&gt;"></a></div>`,
		`Inline <a class="embed-image" href="/r/` + pic + `"><img src="/a/` + pic + `" alt="small"></a> picture`,
		`<a class="attachment" href="/a/` + pdf + `" download="spec.pdf">the spec</a>`,
		// The section of the heading: from ## Detail to the next heading at its level or above.
		`<div class="embed-title"><a class="wikilink" href="/r/inner">Inner &lt;i&gt;note&lt;/i&gt; › Detail</a></div><div class="embed-body"><h2>Detail</h2>` + "\n<p>Detail text.</p>\n</div>",
		// The whole note, its own note embed a link.
		`<a class="wikilink embed" href="/r/deeper">deeper</a>`,
		`<img src="/a/` + pic + `" alt="alt &quot;text&quot; &amp; more" title="a title">`,
		`<a href="/r/inner">a link</a>`,
		`<a href="https://example.com/x.png">away</a>`,
		`<span class="dangling" title="no such record">&lt;script&gt;alert(1)&lt;/script&gt;</span>`,
	} {
		assert.Contains(t, page, want)
	}
	assert.Equal(t, 2, strings.Count(page, "<p>Detail text.</p>"), "the section, and the whole note")
	assert.Equal(t, 1, strings.Count(page, "First part."), "the section embed leaves out what precedes its heading")
	assert.Equal(t, 1, strings.Count(page, "Other text."), "and what follows its section")
	assert.NotContains(t, page, "Deep body.", "an embedded note's own embeds stay links")
	assert.NotContains(t, page, "<script>")
	assert.NotContains(t, page, "<i>note</i>")
	assert.Contains(t, page, `<img src="nowhere.png" alt="dangling">`, "a path that names no record is left as written")
}

// TestServeImportedImage: an Obsidian note's ![[diagram.png]] and
// ![a diagram](attachments/diagram.png), imported, show the picture; the attachment's own page shows it too, and the
// bytes served are the file's.
func TestServeImportedImage(t *testing.T) {
	t.Parallel()
	dir := seedRepo(t)
	vault := t.TempDir()
	pic := pngBytes(t)
	require.NoError(t, os.MkdirAll(filepath.Join(vault, "attachments"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(vault, "attachments", "diagram.png"), pic, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(vault, "Note.md"), []byte("# Note\n\n![[diagram.png]]\n\n![a diagram](attachments/diagram.png)\n"), 0o644))
	seed(t, dir, "import", vault, "--agent", "t")
	srv := webOf(t, dir)

	_, list := get(t, srv, "/?q=Note")
	note := regexp.MustCompile(`<a href="/r/([^"]+)">Note</a>`).FindStringSubmatch(list)
	require.NotNil(t, note, "the note is listed:\n%s", list)
	_, page := get(t, srv, "/r/"+note[1])
	img := regexp.MustCompile(`<div class="embed"><a class="embed-image" href="/r/([^"]+)"><img src="(/a/[^"]+)" alt="diagram.png"></a></div>`).FindStringSubmatch(page)
	require.NotNil(t, img, "the embed is a picture:\n%s", page)
	assert.Contains(t, page, `<img src="`+img[2]+`" alt="a diagram">`, "the Markdown image too")
	resp, data := rawResponse(t, srv, "GET", img[2])
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	assert.Equal(t, pic, data)
	_, page = get(t, srv, "/r/"+img[1])
	assert.Contains(t, page, `<img src="`+img[2]+`" alt="diagram.png">`, "the attachment's page shows it")
}

// TestServeEmbedsAreBounded: a page reads at most 64 records for its
// embeds and shows at most 256 KiB of other notes in place; past that an
// embed is a link, so a body of embeds cannot make a page read or render
// the store.
func TestServeEmbedsAreBounded(t *testing.T) {
	t.Parallel()
	dir := seedRepo(t)
	pic := observed(t, dir, "diagram.png", pngBytes(t))
	seed(t, dir, "create", "--id", "big", "--type", "concept", "--title", "Big", "--category", "t", "--agent", "t",
		"--body", strings.Repeat("A line of the big note.\n", 4500)) // about 108 KB
	var body strings.Builder
	for range 4 {
		body.WriteString("![[big]]\n\n")
	}
	for range 70 {
		body.WriteString("![[" + pic + "]] ")
	}
	seed(t, dir, "create", "--id", "host", "--type", "concept", "--title", "Host", "--category", "t", "--body", body.String(), "--agent", "t")
	srv := webOf(t, dir)
	_, page := get(t, srv, "/r/host")
	assert.Equal(t, 2, strings.Count(page, `<div class="embed-title">`), "two bodies of 108 KB fit in 256 KiB, not three")
	assert.Equal(t, 2, strings.Count(page, `<a class="wikilink embed" href="/r/big">big</a>`))
	assert.Equal(t, 64-4, strings.Count(page, `<img src="/a/`+pic+`"`), "64 reads: four for the notes, the rest pictures")
	assert.Equal(t, 10, strings.Count(page, `<a class="wikilink embed" href="/r/`+pic+`">`))
}
