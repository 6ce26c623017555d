//go:build unix

package hooks_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/kernel"
)

// TestPushOfOversizedRecordIsRefused pins break 7 on the server: 7 MB of
// tags were accepted. A record file over the size limit is refused by the
// hooks on its size, before any YAML is parsed.
func TestPushOfOversizedRecordIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.clone(t)
	tags := "  - " + strings.Repeat("x", kernel.MaxTagLength) + "\n"
	edit(t, recordFile(t, dir, w.concept), func(s string) string {
		s = appendLog(t, s, updateEntry)
		return strings.Replace(s, "\ntitle:", "\ntags:\n"+strings.Repeat(tags, 2*kernel.MaxRecordBytes/len(tags))+"title:", 1)
	})
	commit(t, dir, w.key, w.updateMsg("Evidence-Fields: tags"))
	r := push(t, dir, "records")
	requireRejected(t, r, hooks.RuleRecord, "record file is")
}

// TestVerifyManyWikilinksInLinearTime pins break 7 in verify: a record with
// 100k body links took 20 s to judge. Ten times the links must cost well
// under twenty times the time (5k and 50k links here, to keep the test
// short; gitstore's read test takes 10k and 100k).
func TestVerifyManyWikilinksInLinearTime(t *testing.T) {
	t.Parallel()
	dir := initStore(t)
	commitWithLinks := func(n int) plumbing.Hash {
		var b strings.Builder
		for i := range n {
			id := strconv.FormatInt(int64(i), 36)
			b.WriteString("[[" + strings.Repeat("0", 4-len(id)) + id + "]]\n")
		}
		body := b.String()
		return plumbing.NewHash(mutateAs(t, dir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Create(v, kernel.CreateInput{Type: "concept", Title: strconv.Itoa(n) + " links", Category: "dos",
				Body: body, Provenance: kernel.Provenance{Agent: "attacker"}}, env)
		}))
	}
	small, large := commitWithLinks(5_000), commitWithLinks(50_000)
	s, err := gitstore.Open(dir, gitstore.Options{})
	require.NoError(t, err)
	defer s.Close()
	verify := func(c plumbing.Hash) func() {
		return func() {
			rep, err := hooks.Verify(s, []plumbing.Hash{c}, hooks.Options{})
			require.NoError(t, err)
			require.True(t, rep.OK, "%+v", rep.Violations)
		}
	}
	testenv.RequireLinear(t, 20, verify(small), verify(large))
}

// TestVerifyHostileBodyDoubling: bodies of nested brackets, unclosed link
// destinations or emphasis runs made verify and the server hooks
// quadratic in goldmark's parse (a hooked push of 1 MB of nested brackets
// was held 46 s). Judging such a commit costs at most DoublingRatio times
// as much for twice the body.
func TestVerifyHostileBodyDoubling(t *testing.T) {
	// One store each, so that judging the larger commit reads no other record.
	commitHostile := func(n int) (*gitstore.Store, plumbing.Hash) {
		dir := initStore(t)
		c := plumbing.NewHash(mutateAs(t, dir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Create(v, kernel.CreateInput{Type: "concept", Title: strconv.Itoa(n) + " hostile", Category: "dos",
				Body: testenv.HostileBody(n), Provenance: kernel.Provenance{Agent: "attacker"}}, env)
		}))
		s, err := gitstore.Open(dir, gitstore.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s, c
	}
	verify := func(s *gitstore.Store, c plumbing.Hash) func() {
		return func() {
			rep, err := hooks.Verify(s, []plumbing.Hash{c}, hooks.Options{})
			require.NoError(t, err)
			require.True(t, rep.OK, "%+v", rep.Violations)
		}
	}
	testenv.RequireDoubling(t, verify(commitHostile(64<<10)), verify(commitHostile(128<<10)))
}

// TestPushHostileBodyCostsAsAnOrdinaryOne pins break 6 on a real server: a
// push of a 1 MB body of nested brackets held the hooks 46 s. Pushed to a
// bare repository with the hooks installed, a body made of every shape
// goldmark parses in quadratic time costs the push (git and the hooks it
// runs: this process's children) at most three times the CPU of an
// ordinary Markdown body of the same size. Not parallel: the children of parallel
// tests would count.
func TestPushHostileBodyCostsAsAnOrdinaryOne(t *testing.T) {
	w := newWorld(t)
	dir := w.clone(t)
	const size = 900 << 10
	pushBody := func(title, body string) time.Duration {
		p := filepath.Join(t.TempDir(), "body.md")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		mustRec(t, dir, "create", "--type", "concept", "--title", title, "--category", "dos", "--agent", "attacker", "--body-file", p)
		before := childrenCPU(t)
		r := push(t, dir, "records")
		took := childrenCPU(t) - before
		require.Equal(t, 0, r.code, "%s", r)
		require.Equal(t, revParse(t, dir, "refs/heads/records"), w.serverTip(t), "accepted")
		return took
	}
	const section = "## Rotation\n\nThe gateway rotates *refresh* tokens on use, as [[rfc-6749|the RFC]] allows; see `rotate()`.\n\n" +
		"- a reused token revokes the family\n- clients persist the new token first ([notes](https://example.com/a))\n\n"
	ordinary := pushBody("ordinary", strings.Repeat(section, size/len(section)))
	hostile := pushBody("hostile", testenv.HostileBody(size))
	t.Logf("push of an ordinary body: %v, of a hostile one: %v (x%.2f)", ordinary, hostile, float64(hostile)/float64(ordinary))
	require.LessOrEqual(t, float64(hostile), 3*float64(ordinary), "a hostile body costs the push %v against %v for an ordinary one", hostile, ordinary)
}

// childrenCPU is the CPU time of this process's children that have ended.
func childrenCPU(t *testing.T) time.Duration {
	var r syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r))
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
