package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/pkg/cmdutil"
)

// notUTF8 holds a byte that is never UTF-8: a JSON decoder turns it into
// U+FFFD, which is what a front-end that decodes before it checks stores.
const notUTF8 = "caf\xe9"

// TestInvalidUTF8RefusedByEveryFrontEnd: text that is not UTF-8 is refused
// as INVALID_RECORD, writing nothing, whichever front-end it comes through:
// a flag or an argument of any command (naming the flag), a body read from
// a file or stdin, and a contract request, checked raw before it is
// decoded (a lone surrogate escape in it too). MCP's tool calls are checked the same way (pkg/cmd/server).
func TestInvalidUTF8RefusedByEveryFrontEnd(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	id := createID(t, dir, "--type", "concept", "--title", "T", "--category", "c", "--body", "b", "--agent", "a")
	bodyFile := filepath.Join(t.TempDir(), "body.md")
	require.NoError(t, os.WriteFile(bodyFile, []byte(notUTF8), 0o644))
	create := []string{"create", "--type", "concept", "--title", "T", "--category", "c", "--agent", "a"}

	for _, c := range []struct {
		args  []string
		stdin string
		flag  string
	}{
		{append(create, "--body", "b", "--note", notUTF8), "", "--note"},
		{append(create, "--body", "b", "--session", notUTF8), "", "--session"},
		{append(create, "--body", "b", "--tag", "ok", "--tag", notUTF8), "", "--tag"},
		{append(create, "--body", notUTF8), "", "--body"},
		{append(create, "--body-file", bodyFile), "", "--body-file"},
		{append(create, "-"), notUTF8, ""},
		{[]string{"update", id, "--title", notUTF8, "--agent", "a"}, "", "--title"},
		{[]string{"link", id, "--to", id, "--label", notUTF8, "--agent", "a"}, "", "--label"},
		{[]string{"retire", id, "--rationale", notUTF8, "--agent", "a"}, "", "--rationale"},
		{[]string{"show", notUTF8}, "", ""},
	} {
		before := stateOf(t, dir)
		r := recIn(t, dir, c.stdin, append([]string{"--json"}, c.args...)...)
		e := requireError(t, r, "INVALID_RECORD", cmdutil.ExitRefused)
		assert.Contains(t, e["message"], "is not valid UTF-8", "%q", c.args)
		if c.flag != "" {
			assert.Equal(t, c.flag, e["flag"], "%q", c.args)
			assert.True(t, strings.HasPrefix(e["message"].(string), c.flag), "the message starts with the flag: %s", e["message"])
		}
		assert.Equal(t, before, stateOf(t, dir), "%q wrote nothing", c.args)
	}

	// The contract: the same code (as the protocol spells it, with the
	// store's own in store_code), and nothing stored with U+FFFD in it.
	store := t.TempDir()
	for _, c := range []struct{ op, request string }{
		{"create", `{"input":{"type":"concept","title":"` + notUTF8 + `","category":"c","body":"b","provenance":{"agent":"a"}}}`},
		{"create", `{"input":{"type":"concept","title":"T","category":"c","body":"b","tags":["` + notUTF8 + `"],"provenance":{"agent":"a"}}}`},
		{"get", `{"id":"` + notUTF8 + `"}`},
		// A lone surrogate escape decodes to U+FFFD too.
		{"create", `{"input":{"type":"concept","title":"T\udc80","category":"c","body":"b","provenance":{"agent":"a"}}}`},
	} {
		r := contractCall(t, store, c.op, c.request)
		e := requireError(t, r, "MISSING_EVIDENCE", cmdutil.ExitRefused)
		assert.Equal(t, "INVALID_RECORD", e["store_code"], "%s", c.request)
		assert.Regexp(t, `^the request (is not valid UTF-8|holds the escape \\uDC80)`, e["message"])
	}
	assert.Equal(t, map[string]any{"result": []any{}}, jsonOf[map[string]any](t,
		contractCall(t, store, "list-by-type", `{"type":"concept"}`)), "no record was created")
}
