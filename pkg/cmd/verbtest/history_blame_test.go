package verbtest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	blamecmd "github.com/git-records/git-records/pkg/cmd/history/blame"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestBlame: each field names the newest commit that changed it (a field
// changed twice: the second; never changed: the create), with op, agent
// and date; text is one line per field with its current value.
func TestBlame(t *testing.T) {
	st := cmdtest.NewStore(t)
	svc := st.Service(t)
	id := st.Create(t, kernel.CreateInput{ID: "token-refresh", Type: "concept", Title: "Token refresh", Category: "auth.tokens",
		Tags: []string{"auth"}, Body: "Rotate on use.\n", Provenance: kernel.Provenance{Agent: "alice"}})
	create := st.Tip(t)
	other := st.Create(t, kernel.CreateInput{ID: "session-policy", Type: "concept", Title: "Session policy"})
	update := func(agent string, f kernel.UpdateFields) string {
		_, err := svc.Update(id, f, kernel.Evidence{Agent: agent}, kernel.Approval{})
		require.NoError(t, err)
		return st.Tip(t)
	}
	str := func(s string) *string { return &s }
	update("bob", kernel.UpdateFields{Title: str("Token refresh, v2")})
	tags := update("carol", kernel.UpdateFields{Tags: &[]string{"auth", "rotation"}})
	title := update("dave", kernel.UpdateFields{Title: str("Token refresh policy")})
	_, err := svc.Link(id, []kernel.Link{{Kind: "related", TargetID: other}}, kernel.Evidence{Agent: "erin"}, kernel.Approval{})
	require.NoError(t, err)
	link := st.Tip(t)
	_, err = svc.Retire(id, kernel.StatusRetired, kernel.Evidence{Agent: "frank", Rationale: "replaced"}, kernel.Approval{})
	require.NoError(t, err)
	retire := st.Tip(t)
	_, err = svc.Update(other, kernel.UpdateFields{Title: str("Other record")}, kernel.Evidence{Agent: "gina"}, kernel.Approval{})
	require.NoError(t, err)
	blame := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, blamecmd.NewCmdBlame(f, nil), args...)
	}

	var b struct {
		ID     string           `json:"id"`
		Fields []map[string]any `json:"fields"`
	}
	blame("--json", "token-ref").JSON(t, &b)
	assert.Equal(t, id, b.ID, "a prefix resolves")
	origin := map[string]map[string]any{}
	var order []string
	for _, f := range b.Fields {
		origin[f["field"].(string)] = f
		order = append(order, f["field"].(string))
	}
	assert.Equal(t, []string{"title", "body", "category", "tags", "aliases", "status", "links", "expires_at", "ttl_seconds",
		"scope", "freshness", "kind", "role", "authority", "source", "properties", "written_as", "observed_at", "from", "to", "relation", "maps_to", "execution"}, order)
	for field, want := range map[string]struct{ commit, op, agent string }{
		"title":     {title, "update", "dave"},
		"tags":      {tags, "update", "carol"},
		"links":     {link, "link", "erin"},
		"status":    {retire, "retire", "frank"},
		"body":      {create, "create", "alice"},
		"category":  {create, "create", "alice"},
		"freshness": {create, "create", "alice"},
	} {
		assert.Equal(t, want.commit, origin[field]["commit"], "%s", field)
		assert.Equal(t, want.op, origin[field]["op"], "%s", field)
		assert.Equal(t, want.agent, origin[field]["agent"], "%s", field)
	}

	r := blame(id)
	require.Equal(t, 0, r.Code, r.String())
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	require.Len(t, lines, 23)
	assert.Regexp(t, `^title\s+`+title[:12]+`\s+update\s+dave\s+\d{4}-\d\d-\d\d\s+Token refresh policy$`, lines[0])
	assert.Regexp(t, `^status\s+`+retire[:12]+`\s+retire\s+frank\s+\d{4}-\d\d-\d\d\s+retired$`, lines[5])
	assert.Regexp(t, `^links\s+`+link[:12]+`\s+link\s+erin\s+\S+\s+related:`+other+`$`, lines[6])

	blame("--json", "nothing-here").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
	blame("--json").Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
}

// TestFieldPreview: one line, at most 48 characters, "-" for nothing.
func TestFieldPreview(t *testing.T) {
	r := &kernel.Record{Title: "a\nb", Body: strings.Repeat("x", 60)}
	assert.Equal(t, "a b", blamecmd.FieldPreview(r, "title"))
	assert.Equal(t, strings.Repeat("x", 47)+"…", blamecmd.FieldPreview(r, "body"))
	assert.Equal(t, "-", blamecmd.FieldPreview(r, "scope"))
}
