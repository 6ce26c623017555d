package verbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	exportcmd "github.com/git-records/git-records/pkg/cmd/store/export"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestExportRun: a vault is one Markdown file per record in folders by
// category, wikilinks rewritten to titles; jsonl to - is one record per
// line on stdout (and refuses --json, which would mix two outputs); the
// destination and format land in the options.
func TestExportRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	a := st.Create(t, kernel.CreateInput{Type: "concept", Title: "Token refresh", Category: "auth.tokens", Body: "Rotate.\n"})
	st.Create(t, kernel.CreateInput{Type: "concept", Title: "Sessions", Category: "auth", Body: "See [[" + a + "]].\n"})
	export := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, exportcmd.NewCmdExport(f, nil), args...)
	}

	vault := filepath.Join(t.TempDir(), "vault")
	r := export(vault)
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "exported 2 records to "+vault+" (vault)\n", r.Stdout)
	sessions, err := os.ReadFile(filepath.Join(vault, "auth", "Sessions.md"))
	require.NoError(t, err)
	assert.Contains(t, string(sessions), "See [[Token refresh|"+a+"]].", "the link names the note, its label keeps the id")
	assert.FileExists(t, filepath.Join(vault, "auth", "tokens", "Token refresh.md"))

	r = export("-", "--format", "jsonl")
	require.Equal(t, 0, r.Code, r.String())
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	assert.Len(t, lines, 2)
	assert.Contains(t, r.Stdout, `"title":"Token refresh"`)
	export("--json", "-", "--format", "jsonl").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)

	var rep map[string]any
	export("--json", filepath.Join(t.TempDir(), "v2")).JSON(t, &rep)
	assert.EqualValues(t, 2, rep["records"])
	r = export(vault)
	assert.NotEqual(t, 0, r.Code, "an export never writes into a vault that is not empty\n%s", r)
}
