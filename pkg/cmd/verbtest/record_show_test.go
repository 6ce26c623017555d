package verbtest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
	showcmd "github.com/git-records/git-records/pkg/cmd/record/show"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/pkg/cmdutil/cmdtest"
)

// TestNewCmdShow: the handle is the one argument; none or two is a usage
// error.
func TestNewCmdShow(t *testing.T) {
	st := cmdtest.NewRepo(t)
	f, _, _, _ := st.Factory()
	var got *showcmd.ShowOptions
	r := cmdtest.Run(f, showcmd.NewCmdShow(f, func(o *showcmd.ShowOptions) error { got = o; return nil }), "auth/token-refresh")
	require.Equal(t, 0, r.Code, r.String())
	assert.Equal(t, "auth/token-refresh", got.Handle)
	for _, args := range [][]string{{}, {"a", "b"}} {
		f, _, _, _ := st.Factory()
		r := cmdtest.Run(f, showcmd.NewCmdShow(f, func(*showcmd.ShowOptions) error { t.Fatal("ran"); return nil }), append([]string{"--json"}, args...)...)
		r.Error(t, kernel.CodeUsage, cmdutil.ExitUsage)
	}
}

// TestShowRun: the fields, scope and freshness as the working tree stands,
// each link and backlink with the title at its other end (a dangling one
// flagged), the body; a superseded record says by whom; --json is the
// record; a missing handle is NOT_FOUND.
func TestShowRun(t *testing.T) {
	st := cmdtest.NewStore(t)
	st.WriteFile(t, "auth.go", "package auth\n")
	st.Commit(t, "code")
	rfc := st.Create(t, kernel.CreateInput{Type: "raw", Title: "RFC 6749", Category: "auth", Body: "OAuth.", Aliases: []string{"rfc"}})
	finding := st.Create(t, kernel.CreateInput{Type: "review.finding", Title: "Reuse accepted", Category: "auth",
		Scope: &kernel.Scope{Paths: []string{"auth.go"}}, Body: "The handler accepts a rotated token; see [[rfc]] and [[nowhere]].",
		Links: []kernel.Link{{Kind: "source", TargetID: rfc}}})
	show := func(args ...string) cmdtest.Result {
		f, _, _, _ := st.Factory()
		return cmdtest.Run(f, showcmd.NewCmdShow(f, nil), args...)
	}

	r := show(finding)
	require.Equal(t, 0, r.Code, r.String())
	assert.Regexp(t, `(?m)^id\s+`+finding+`$`, r.Stdout)
	assert.Regexp(t, `scope\s+auth.go at [0-9a-f]{12}`, r.Stdout)
	assert.Regexp(t, `freshness\s+current`, r.Stdout)
	assert.Regexp(t, `link\s+source,related → `+rfc+`  RFC 6749`, r.Stdout, "a link names the title at its other end; the source field and [[rfc]] are one line")
	assert.Equal(t, 1, strings.Count(r.Stdout, rfc), "rfc is listed once: %s", r.Stdout)
	assert.Regexp(t, `link\s+related → nowhere  \(no such record\)`, r.Stdout, "a dangling wikilink is flagged")
	assert.NotRegexp(t, `related → rfc\b`, r.Stdout, "the body's [[rfc]] is the same record as the source link's: listed by id")
	assert.Contains(t, r.Stdout, "\nThe handler accepts a rotated token; see [[rfc]] and [[nowhere]].\n")
	back := show("rfc").Stdout
	assert.Regexp(t, `backlink\s+source,related ← `+finding+`  Reuse accepted`, back, "by alias, with its backlink")
	assert.Equal(t, 1, strings.Count(back, finding), "the finding is listed once: %s", back)

	st.WriteFile(t, "auth.go", "package auth // changed\n")
	assert.Regexp(t, `freshness\s+stale: .*auth.go`, show(finding).Stdout, "judged against the working tree as it is")

	newer := st.Create(t, kernel.CreateInput{Type: "raw", Title: "RFC 9700", Category: "auth"})
	_, err := st.Service(t).Supersede(newer, []string{rfc}, kernel.Evidence{Agent: cmdtest.Agent, Rationale: "replaced"}, kernel.Approval{})
	require.NoError(t, err)
	assert.Regexp(t, `status\s+active, superseded by `+newer, show(rfc).Stdout)

	var rec map[string]any
	show("--json", finding[:8]).JSON(t, &rec)
	assert.Equal(t, finding, rec["id"], "a prefix of 8 characters resolves")
	assert.Equal(t, "Reuse accepted", rec["title"])

	e := show("--json", "no-such-record").Error(t, kernel.CodeNotFound, cmdutil.ExitRefused)
	assert.Contains(t, e["message"], "no-such-record")
	r = show("no-such-record")
	assert.Equal(t, cmdutil.ExitRefused, r.Code)
	assert.Contains(t, r.Stderr, "git-records: NOT_FOUND: ")
	assert.Empty(t, r.Stdout)
}
