//go:build unix

package transfer

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
)

// noHandles is a store with no records, for planning an import.
type noHandles struct{}

func (noHandles) Resolve(string) (string, error) { return "", nil }

// deepFrontMatter are notes of about n bytes whose front matter nests as
// deep as it may (their import reads), or past the bound in ways that made
// the TOML decoder quadratic or crash (their import refuses).
var deepFrontMatter = map[string]struct {
	note    func(n int) string
	refused bool
}{
	"toml arrays at the bound": {note: func(n int) string {
		value := strings.Repeat("[", maxFrontMatterDepth) + `"x"` + strings.Repeat("]", maxFrontMatterDepth)
		return "+++\n" + repeatLines(n, func(i int) string { return "k" + strconv.Itoa(i) + " = " + value }) + "+++\nbody\n"
	}},
	"json at the bound": {note: func(n int) string {
		value := strings.Repeat("[", maxFrontMatterDepth-1) + `"x"` + strings.Repeat("]", maxFrontMatterDepth-1)
		return ";;;\n{" + strings.TrimSuffix(repeatLines(n, func(i int) string { return `"k` + strconv.Itoa(i) + `": ` + value + "," }), ",\n") + "}\n;;;\nbody\n"
	}},
	"yaml at the bound": {note: func(n int) string {
		value := strings.Repeat("[", maxFrontMatterDepth) + "x" + strings.Repeat("]", maxFrontMatterDepth)
		return "---\n" + repeatLines(n, func(i int) string { return "k" + strconv.Itoa(i) + ": " + value }) + "---\nbody\n"
	}},
	"toml header of many parts": {refused: true, note: func(n int) string {
		return "+++\n[source" + strings.Repeat(".a", n/2) + "]\nx = 1\n+++\nbody\n"
	}},
	"toml arrays past the bound": {refused: true, note: func(n int) string {
		return "+++\na = " + strings.Repeat("[", n/2) + strings.Repeat("]", n/2) + "\n+++\nbody\n"
	}},
}

// repeatLines is line(0), line(1)… one a line, to about n bytes.
func repeatLines(n int, line func(int) string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(line(i) + "\n")
	}
	return b.String()
}

// TestImportDeepFrontMatterDoubling: planning the import of a note costs
// at most DoublingRatio times as much for twice its front matter, however
// deep it nests: within the bound it reads, past it the note is refused.
// A TOML table header of 64k parts took the decoder seconds and gigabytes,
// and arrays nested past 1M deep crashed the process.
func TestImportDeepFrontMatterDoubling(t *testing.T) {
	const n = 64 << 10
	for name, shape := range deepFrontMatter {
		t.Run(name, func(t *testing.T) {
			vault := func(size int) string {
				dir := t.TempDir()
				require.NoError(t, os.WriteFile(filepath.Join(dir, "deep.md"), []byte(shape.note(size)), 0o644))
				return dir
			}
			small, large := vault(n), vault(2*n)
			plan := func(dir string) func() {
				return func() {
					_, rep, err := Plan(noHandles{}, dir, ImportOptions{Agent: "a"})
					require.NoError(t, err)
					if shape.refused {
						require.Len(t, rep.LeftOut(), 1)
						require.Equal(t, "deep.md", rep.LeftOut()[0].Origin)
						require.Contains(t, rep.LeftOut()[0].Message, "its front matter does not parse: it nests arrays or tables more than 64 deep")
					} else {
						require.Empty(t, rep.LeftOut())
					}
				}
			}
			testenv.RequireDoubling(t, plan(small), plan(large))
		})
	}
}
