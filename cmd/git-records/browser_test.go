//go:build browser

package main

// The web view and the Mermaid output in a real browser: headless Chromium
// loads the pages `git records serve` serves and the test reads the DOM it
// built; Mermaid (the npm package's own bundle, test-only: the binary does
// not carry it) renders what `graph` prints. Run with `make test-browser`,
// which installs what it needs; screenshots are kept in $BROWSER_ARTIFACTS.

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium finds the browser: $CHROMIUM, else Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium: apt-get install chromium, or run make test-browser")
	return ""
}

// browse runs headless Chromium on url with extra flags and returns what
// it printed (the DOM, with --dump-dom).
func browse(t *testing.T, url string, flags ...string) string {
	t.Helper()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + t.TempDir()}, flags...)
	cmd := exec.Command(chromium(t), append(args, url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan struct{})
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	defer func() { timer.Stop(); close(done) }()
	out, err := cmd.Output()
	require.NoError(t, err, "chromium %s:\n%s", url, stderr.String())
	return string(out)
}

func dumpDOM(t *testing.T, url string) string {
	t.Helper()
	return browse(t, url, "--dump-dom")
}

// artifacts is where screenshots go: $BROWSER_ARTIFACTS, else .browser/artifacts.
func artifacts(t *testing.T) string {
	dir := os.Getenv("BROWSER_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", ".browser", "artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	return abs
}

func screenshot(t *testing.T, url, name string) {
	t.Helper()
	path := filepath.Join(artifacts(t), name)
	os.Remove(path)
	browse(t, url, "--screenshot="+path, "--window-size=1280,1200", "--hide-scrollbars")
	st, err := os.Stat(path)
	require.NoError(t, err, "no screenshot of %s", url)
	assert.Greater(t, st.Size(), int64(10_000), "the screenshot of %s is too small to hold the page", url)
	t.Logf("screenshot: %s", path)
}

// serveBinary starts `git records serve` on a free loopback port in dir
// and returns its URL.
func serveBinary(t *testing.T, dir string) string {
	t.Helper()
	needServer(t)
	cmd := exec.Command(binPath, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(line)
	require.NotEmpty(t, url, "serve printed %q", line)
	return strings.TrimSuffix(url, "/")
}

func TestBrowserServe(t *testing.T) {
	dir := goldenStore(t)
	mustRec(t, dir, "propose", goldenConcept, "--proposer", goldenFinding, "--proposal", "Rotate on every use, and log reuse.", "--agent", "reviewer-bot")
	base := serveBinary(t, dir)

	// The list.
	dom := dumpDOM(t, base+"/")
	rows := regexp.MustCompile(`<tr><td class="mono"><a href="/r/([^"]+)">`).FindAllStringSubmatch(dom, -1)
	assert.Len(t, rows, 4, "the records list shows, retired ones left out:\n%s", dom)
	assert.Contains(t, dom, `<link rel="stylesheet" href="/static/style.css">`)

	// A record page, reached by its alias: the body rendered, fields,
	// backlinks, the neighbourhood and the history.
	dom = dumpDOM(t, base+"/r/auth/token-refresh")
	assert.Contains(t, dom, `<h1 id="title">Token refresh</h1>`)
	assert.Contains(t, dom, `<h1>Token refresh</h1>`, "the body's Markdown heading")
	assert.Contains(t, dom, `<a class="wikilink" href="/r/rfc-6749">the RFC</a>`)
	assert.Contains(t, dom, `<th>aliases</th><td>auth/token-refresh</td>`)
	assert.Regexp(t, `<table id="history">.*<td>create</td><td>alice</td><td>`+regexp.QuoteMeta(userEmail)+`</td><td class="sig-good">good</td>`, strings.ReplaceAll(dom, "\n", " "))
	assert.Regexp(t, `<svg [^>]*class="graph"`, dom)
	assert.Contains(t, dom, `class="node root" data-id="`+goldenConcept+`"`)

	// Follow a backlink as a reader would: its page is the other record's.
	back := regexp.MustCompile(`<table id="backlinks">.*?<a href="(/r/[^"]+)">`).FindStringSubmatch(strings.ReplaceAll(dom, "\n", " "))
	require.NotNil(t, back, "no backlink on the page:\n%s", dom)
	dom2 := dumpDOM(t, base+back[1])
	assert.Regexp(t, `<h1 id="title">(Rotate weekly|Refresh token reused across sessions)</h1>`, dom2)
	assert.Regexp(t, `<table id="links">.*href="/r/`+goldenConcept+`"`, strings.ReplaceAll(dom2, "\n", " "), "and it links back")

	// The graph view and the proposals.
	dom = dumpDOM(t, base+"/graph?root="+goldenConcept+"&depth=2")
	want := mustJSON[struct{ Nodes, Edges []any }](t, dir, "graph", goldenConcept, "--depth", "2")
	assert.Equal(t, len(want.Nodes), strings.Count(dom, `class="node`), "the records graph --json draws:\n%s", dom)
	assert.Equal(t, len(want.Edges), strings.Count(dom, `<g class="edge"`), "the links graph --json draws")
	assert.Equal(t, 4, len(want.Nodes))
	dom = dumpDOM(t, base+"/proposals")
	assert.Contains(t, dom, "Rotate on every use, and log reuse.")

	screenshot(t, base+"/r/"+goldenConcept, "record.png")
	screenshot(t, base+"/graph?root="+goldenConcept+"&depth=2", "graph.png")
	screenshot(t, base+"/", "list.png")
}

// TestBrowserMermaid renders what `graph` prints with Mermaid itself: every
// diagram must parse and draw, and hostile titles must come out as text.
func TestBrowserMermaid(t *testing.T) {
	mermaidJS := os.Getenv("MERMAID_JS")
	require.NotEmpty(t, mermaidJS, "MERMAID_JS is the path of mermaid.min.js (make test-browser fetches it)")
	dir := goldenStore(t)
	hostile := "He said \"hi\" [x] {y} (z) #1 <b>bold</b> | ; end 日本"
	mustRec(t, dir, "create", "--id", "hostile", "--type", "concept", "--title", hostile, "--category", "t",
		"--body", "See [[auth/token-refresh|the \"policy\" | x]] and [[nowhere]].\n", "--agent", "t")
	diagrams := []string{
		mustRec(t, dir, "graph"),
		mustRec(t, dir, "graph", "hostile", "--depth", "2"),
		mustRec(t, dir, "graph", goldenConcept),
	}
	var page strings.Builder
	page.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"></head><body>\n")
	for i, d := range diagrams {
		fmt.Fprintf(&page, "<pre class=\"mermaid\" id=\"d%d\">%s</pre>\n", i, html.EscapeString(d))
	}
	fmt.Fprintf(&page, `<div id="result">pending</div>
<script src="file://%s"></script>
<script>
mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
mermaid.run({querySelector: "pre.mermaid"}).then(
  () => { document.getElementById("result").textContent = "rendered"; },
  (e) => { document.getElementById("result").textContent = "failed: " + e; });
</script></body></html>
`, mermaidJS)
	path := filepath.Join(t.TempDir(), "mermaid.html")
	require.NoError(t, os.WriteFile(path, []byte(page.String()), 0o644))
	dom := browse(t, "file://"+path, "--allow-file-access-from-files", "--virtual-time-budget=20000", "--dump-dom")
	require.Contains(t, dom, `<div id="result">rendered</div>`, "Mermaid refused a diagram:\n%s", dom)
	assert.Equal(t, len(diagrams), strings.Count(dom, `data-processed="true"`), "every diagram drawn")
	assert.NotContains(t, dom, "Syntax error")
	// The title is drawn as the characters it holds, not as markup: the
	// <b> is text (escaped in the DOM), and no entity code is left over.
	assert.Contains(t, dom, `He said "hi" [x] {y} (z) #1 &lt;b&gt;bold&lt;/b&gt; | ; end 日本`)
	assert.NotContains(t, dom, "#34;")
	os.WriteFile(filepath.Join(artifacts(t), "mermaid.html"), []byte(dom), 0o644)
}

// TestBrowserVault: an imported vault as a reader sees it in the browser:
// an image embed drawn as the picture (its pixels on the screenshot, a
// PNG and an SVG, which is sent as a download yet drawn by <img>), the
// list sorted by title and paged by following its own links.
func TestBrowserVault(t *testing.T) {
	dir := seedRepo(t)
	vault := t.TempDir()
	write := func(name string, data []byte) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(vault, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(vault, name), data, 0o644))
	}
	red := image.NewRGBA(image.Rect(0, 0, 320, 120))
	draw.Draw(red, red.Bounds(), &image.Uniform{color.RGBA{230, 0, 0, 255}}, image.Point{}, draw.Src)
	var pic bytes.Buffer
	require.NoError(t, png.Encode(&pic, red))
	write("attachments/diagram.png", pic.Bytes())
	write("attachments/shape.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="320" height="120"><rect width="320" height="120" fill="#0000e6"/></svg>`))
	write("Diagram note.md", []byte("# Diagram note\n\nThe picture:\n\n![[diagram.png]]\n\nAnd the shape:\n\n![[shape.svg]]\n"))
	for i := range 60 {
		write(fmt.Sprintf("notes/Note %02d.md", 59-i), []byte(fmt.Sprintf("Note number %d, see [[Diagram note]].\n", 59-i)))
	}
	seed(t, dir, "import", vault, "--agent", "t")
	base := serveBinary(t, dir)

	// The embed is an <img> of the payload, and the browser draws it.
	dom := dumpDOM(t, base+"/?q=picture")
	note := regexp.MustCompile(`<a href="(/r/[^"]+)">Diagram note</a>`).FindStringSubmatch(dom)
	require.NotNil(t, note, "search finds the note:\n%s", dom)
	dom = dumpDOM(t, base+note[1])
	assert.Regexp(t, `<div class="embed"><a class="embed-image" href="/r/[^"]+"><img src="/a/[^"]+" alt="diagram.png"></a></div>`, dom)
	assert.Regexp(t, `<img src="/a/[^"]+" alt="shape.svg">`, dom)
	shot := filepath.Join(artifacts(t), "embed.png")
	os.Remove(shot)
	browse(t, base+note[1], "--screenshot="+shot, "--window-size=1280,1600", "--hide-scrollbars")
	f, err := os.Open(shot)
	require.NoError(t, err)
	img, err := png.Decode(f)
	f.Close()
	require.NoError(t, err)
	reds, blues := 0, 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			switch {
			case r>>8 > 200 && g>>8 < 40 && b>>8 < 40:
				reds++
			case b>>8 > 200 && r>>8 < 40 && g>>8 < 40:
				blues++
			}
		}
	}
	assert.Greater(t, reds, 320*120/2, "the PNG is drawn on the page (%s)", shot)
	assert.Greater(t, blues, 320*120/2, "the SVG is drawn on the page through <img> (%s)", shot)

	// Sorted by title, twenty a page, read by following "next".
	var titles []string
	path := "/?sort=title&per=20"
	for page := 1; path != ""; page++ {
		require.LessOrEqual(t, page, 4, "next runs past the last page")
		dom := dumpDOM(t, base+path)
		for _, m := range regexp.MustCompile(`<td><a href="/r/[^"]+">([^<]+)</a>`).FindAllStringSubmatch(dom, -1) {
			titles = append(titles, m[1])
		}
		next := regexp.MustCompile(`<a rel="next" id="next" href="([^"]+)">`).FindStringSubmatch(dom)
		path = ""
		if next != nil {
			path = html.UnescapeString(next[1])
			assert.Contains(t, path, "sort=title")
		}
		if page == 1 {
			assert.Contains(t, dom, "records 1–20 of 63")
			assert.Contains(t, dom, `title <span class="sorted">▲</span>`)
		}
	}
	require.Len(t, titles, 63, "every record once: 61 notes and 2 attachments")
	assert.True(t, sort.SliceIsSorted(titles, func(i, j int) bool { return strings.ToLower(titles[i]) < strings.ToLower(titles[j]) }), "by title: %v", titles)
	assert.Equal(t, "Diagram note", titles[0])
	assert.Equal(t, "shape.svg", titles[62])
	dom = dumpDOM(t, base+"/?sort=title&order=desc&per=20")
	first := regexp.MustCompile(`<td><a href="/r/[^"]+">([^<]+)</a>`).FindStringSubmatch(dom)
	require.NotNil(t, first)
	assert.Equal(t, "shape.svg", first[1], "the other way round")
	screenshot(t, base+"/?sort=title&per=20", "list-sorted.png")
}
