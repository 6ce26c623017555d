package service

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFrontEndsImportNoStore: the front-ends (the commands and what they
// share, the MCP server, the web view), their tests too, reach a store only
// through this package: none imports gitstore (or a package under it),
// hooks or transfer, and the graph they draw with imports none either.
func TestFrontEndsImportNoStore(t *testing.T) {
	const module = "github.com/git-records/git-records/"
	stores := []string{"gitstore", "hooks", "transfer"}
	checked := 0
	for _, dir := range []string{"../pkg", "../mcpserver", "../web", "../graph"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				for _, s := range stores {
					if p == module+s || strings.HasPrefix(p, module+s+"/") {
						t.Errorf("%s imports %s: a front-end reaches the store through service", path, p)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 100 {
		t.Fatalf("read %d files: the front-ends' sources were not found", checked)
	}
}
