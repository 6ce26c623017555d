package transfer_test

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/git-records/git-records/transfer"
	"github.com/git-records/git-records/wikilink"
)

// TestRealVaultsKeepEveryLink imports each folder under $VAULTS_DIR (real
// public vaults, fetched by hand: they are not in the repository) and
// compares the edges the store holds with an independent count of the
// links each note makes: the store must hold at least 99% of them and no
// edge the source does not make. It is skipped without VAULTS_DIR.
//
// The count is written apart from the importer (countEdges): stock
// goldmark with its GFM table extension finds the code in a note and its
// Markdown links and images; wikilinks are found by a regular expression
// over the note with that code blanked out; a target is matched against
// the vault's files by path (from the root, then from the note's folder;
// a Markdown link from its folder first), a folder's URL (ending in '/')
// by the _index.md or index.md whose path ends so, and then by file name,
// with or without .md; where several files share a name every one of
// them counts as the target. A note of a folder holding dendron.yml
// writes [[label|target]], and dendron://vault/ before a target names
// another vault.
func TestRealVaultsKeepEveryLink(t *testing.T) {
	root := os.Getenv("VAULTS_DIR")
	if root == "" {
		t.Skip("VAULTS_DIR is not set: put real vaults under it to compare their links")
	}
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		vault := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			source := countEdges(t, vault)
			dir, rep := importWithFixedClockAndKey(t, vault)
			stored := storeEdges(t, dir, rep)
			made := map[edge]bool{} // every (note, file) a link of the source may mean
			for from, links := range source {
				for _, targets := range links {
					for to := range targets {
						made[edge{from, to}] = true
					}
				}
			}
			has := map[edge]bool{}
			var extra []string
			for _, e := range stored {
				has[e] = true
				if !made[e] {
					extra = append(extra, e.from+" -> "+e.to)
				}
			}
			var missing []string
			total, kept := 0, 0
			for from, links := range source {
				for name, targets := range links {
					total++
					found := false
					for to := range targets {
						found = found || has[edge{from, to}]
					}
					if found {
						kept++
					} else {
						missing = append(missing, from+" -> "+name)
					}
				}
			}
			sort.Strings(missing)
			t.Logf("%s (%s): %d notes read, %d records, %d skipped, %d unresolved links; source edges %d, store edges %d, kept %d (%.2f%%), extra %d",
				e.Name(), rep.Kind, rep.Read, len(rep.Created), len(rep.LeftOut()), len(rep.Unresolved), total, len(stored), kept, 100*float64(kept)/float64(max(total, 1)), len(extra))
			for _, s := range rep.LeftOut() {
				t.Logf("  skipped %s: %s", s.Origin, s.Message)
			}
			for i, m := range missing {
				if i == 15 {
					t.Logf("  … %d more missing", len(missing)-15)
					break
				}
				t.Logf("  missing %s", m)
			}
			assert.GreaterOrEqual(t, float64(kept), 0.99*float64(total), "the store keeps at least 99%% of the source's edges")
			assert.Empty(t, extra, "no edge the source does not make")
			same, notes, differ := bodiesAsWritten(t, vault, dir, rep)
			t.Logf("%s: %d of %d bodies come back byte for byte", e.Name(), same, notes)
			assert.Empty(t, differ, "every body comes back as the source wrote it")
		})
	}
}

type edge struct{ from, to string }

func excerpt(s string, at int) string { return s[max(0, at-20):min(len(s), at+40)] }

// bodiesAsWritten compares each imported note's body as the source wrote
// it (transfer.SourceBody: the record's body with its rewritten links
// written back) with the note's file after its front matter (cut by
// stripFrontMatter, apart from the importer's reader).
func bodiesAsWritten(t *testing.T, vault, dir string, rep *transfer.Report) (same, notes int, differ []string) {
	svc := svcOf(t, dir)
	for _, c := range rep.Created {
		if ext := strings.ToLower(path.Ext(c.Origin)); ext != ".md" && ext != ".markdown" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(c.Origin)))
		require.NoError(t, err)
		r, err := svc.Show(c.ID)
		require.NoError(t, err)
		notes++
		got, want := transfer.SourceBody(r), string(stripFrontMatter(data))
		if got == want {
			same++
			continue
		}
		at := 0
		for at < len(got) && at < len(want) && got[at] == want[at] {
			at++
		}
		differ = append(differ, fmt.Sprintf("%s at byte %d: %q, not %q", c.Origin, at, excerpt(got, at), excerpt(want, at)))
	}
	return same, notes, differ
}

// storeEdges are the edges the store holds: each record's body wikilinks
// as the index reads them (wikilink.Extract), each resolved by the store
// (show), from the note the record came from to the file its target came
// from; one per pair.
func storeEdges(t *testing.T, dir string, rep *transfer.Report) []edge {
	svc := svcOf(t, dir)
	origin := map[string]string{}
	for _, c := range append(append([]transfer.Created(nil), rep.Created...), rep.Updated...) {
		origin[c.ID] = c.Origin
	}
	seen := map[edge]bool{}
	var out []edge
	for id, from := range origin {
		r, err := svc.Show(id)
		require.NoError(t, err)
		for _, l := range wikilink.Extract([]byte(r.Body)) {
			target, err := svc.Show(l.Target)
			if err != nil || target == nil {
				continue // a link left as written: the report's unresolved
			}
			e := edge{from, origin[target.ID]}
			if !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	return out
}

var wikilinkPattern = regexp.MustCompile(`(!?)\[\[([^\[\]\n]+?)\]\]`)

// countEdges is the independent count: for each note, each name its
// links use, and the files that name may mean.
func countEdges(t *testing.T, vault string) map[string]map[string]map[string]bool {
	var notes, files []string
	require.NoError(t, filepath.WalkDir(vault, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != vault && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(vault, p)
		rel = filepath.ToSlash(rel)
		files = append(files, rel)
		if ext := strings.ToLower(path.Ext(rel)); ext == ".md" || ext == ".markdown" {
			notes = append(notes, rel)
		}
		return nil
	}))
	_, dendronErr := os.Stat(filepath.Join(vault, "dendron.yml"))
	labelFirst := dendronErr == nil
	byPath, byName := map[string][]string{}, map[string][]string{}
	for _, f := range files {
		lower := strings.ToLower(f)
		byPath[lower] = append(byPath[lower], f)
		byName[path.Base(lower)] = append(byName[path.Base(lower)], f)
		if ext := path.Ext(lower); ext == ".md" || ext == ".markdown" {
			byPath[strings.TrimSuffix(lower, ext)] = append(byPath[strings.TrimSuffix(lower, ext)], f)
			byName[strings.TrimSuffix(path.Base(lower), ext)] = append(byName[strings.TrimSuffix(path.Base(lower), ext)], f)
		}
	}
	find := func(from, name string, markdown bool) []string {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			return nil
		}
		dir := path.Dir(from)
		tries := []string{path.Clean(strings.TrimPrefix(name, "/")), path.Clean(path.Join(dir, name))}
		if markdown {
			tries[0], tries[1] = tries[1], tries[0]
		}
		for _, p := range tries {
			if got := byPath[p]; len(got) > 0 {
				return got
			}
		}
		if strings.HasSuffix(name, "/") {
			// A site's URL of a folder: its _index or index page.
			trimmed := strings.Trim(name, "/")
			var pages []string
			for _, f := range files {
				lower := strings.ToLower(f)
				for _, page := range []string{"/_index.md", "/index.md"} {
					if strings.HasSuffix(lower, "/"+trimmed+page) || lower == trimmed+page {
						pages = append(pages, f)
					}
				}
			}
			if len(pages) > 0 {
				return append(pages, byName[path.Base(name)]...)
			}
		}
		// By its file name (a path that is not one falls back to it too).
		return byName[path.Base(name)]
	}
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	out := map[string]map[string]map[string]bool{}
	add := func(from string, targets []string, key string) {
		if len(targets) == 0 {
			return
		}
		if out[from] == nil {
			out[from] = map[string]map[string]bool{}
		}
		if out[from][key] == nil {
			out[from][key] = map[string]bool{}
		}
		for _, to := range targets {
			out[from][key][to] = true
		}
	}
	for _, n := range notes {
		data, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(n)))
		require.NoError(t, err)
		body := stripFrontMatter(data)
		masked := append([]byte(nil), body...)
		doc := md.Parser().Parse(text.NewReader(body))
		require.NoError(t, ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch x := node.(type) {
			case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
				lines := node.Lines()
				for i := 0; i < lines.Len(); i++ {
					blank(masked, lines.At(i).Start, lines.At(i).Stop)
				}
				if f, ok := x.(*ast.FencedCodeBlock); ok && f.Info != nil {
					blank(masked, f.Info.Segment.Start, f.Info.Segment.Stop)
				}
			case *ast.CodeSpan, *ast.RawHTML, *ast.AutoLink:
				for c := node.FirstChild(); c != nil; c = c.NextSibling() {
					if tx, ok := c.(*ast.Text); ok {
						blank(masked, tx.Segment.Start, tx.Segment.Stop)
					}
				}
				if r, ok := x.(*ast.RawHTML); ok {
					for i := 0; i < r.Segments.Len(); i++ {
						blank(masked, r.Segments.At(i).Start, r.Segments.At(i).Stop)
					}
				}
			case *ast.Link:
				if dest, ok := localDest(string(x.Destination)); ok {
					add(n, find(n, dest, true), "md:"+dest)
				}
			case *ast.Image:
				if dest, ok := localDest(string(x.Destination)); ok {
					add(n, find(n, dest, true), "md:"+dest)
				}
			}
			return ast.WalkContinue, nil
		}))
		for _, m := range wikilinkPattern.FindAllSubmatch(masked, -1) {
			inner := strings.ReplaceAll(string(m[2]), `\|`, "|")
			target, label, hasLabel := strings.Cut(inner, "|")
			if labelFirst && hasLabel {
				target = label
			}
			if labelFirst && strings.HasPrefix(target, "dendron://") {
				if _, rest, ok := strings.Cut(target[len("dendron://"):], "/"); ok {
					target = rest
				}
			}
			target, _, _ = strings.Cut(target, "#")
			target = strings.ReplaceAll(target, `\`, "")
			add(n, find(n, target, false), "wiki:"+strings.ToLower(strings.TrimSpace(target)))
		}
	}
	return out
}

func blank(b []byte, start, stop int) {
	for i := start; i < stop && i < len(b); i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
}

// stripFrontMatter drops a leading front matter block (--- or +++ lines).
func stripFrontMatter(data []byte) []byte {
	s := string(data)
	for _, delim := range []string{"---", "+++"} {
		if strings.HasPrefix(s, delim+"\n") || strings.HasPrefix(s, delim+"\r\n") {
			rest := s[strings.Index(s, "\n")+1:]
			for off := 0; off < len(rest); {
				end := strings.IndexByte(rest[off:], '\n')
				line := rest[off:]
				if end >= 0 {
					line = rest[off : off+end]
				}
				if strings.TrimRight(line, "\r ") == delim {
					if end < 0 {
						return nil
					}
					return []byte(rest[off+end+1:])
				}
				if end < 0 {
					break
				}
				off += end + 1
			}
		}
	}
	return data
}

// localDest is a Markdown link's destination as a path in the vault, or
// false for a URL, a mail address or a link within the page.
func localDest(dest string) (string, bool) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "//") {
		return "", false
	}
	if u, err := url.Parse(dest); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		return "", false
	}
	dest, _, _ = strings.Cut(dest, "#")
	dest, _, _ = strings.Cut(dest, "?")
	if d, err := url.PathUnescape(dest); err == nil {
		dest = d
	}
	return dest, dest != ""
}
