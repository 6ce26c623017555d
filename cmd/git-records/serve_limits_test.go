//go:build unix

package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
)

// TestServeHostileRecordCostsAsAnOrdinaryOne pins break 6 in the web view:
// a record's page rendered its body with goldmark's full parser, so the
// page of a 1 MB body of nested brackets burned a core for minutes. Served
// as `serve` serves it, the page of a record whose body is made of every
// shape goldmark lays out in quadratic time costs at most four times the
// CPU of the page of an ordinary Markdown body of the same size: those
// shapes are Markdown of a node or more a byte, where prose has a few a
// line, and the metered parsers may spend their budget on top.
func TestServeHostileRecordCostsAsAnOrdinaryOne(t *testing.T) {
	const size = 256 << 10
	dir := seedRepo(t)
	create := func(id, body string) {
		p := filepath.Join(t.TempDir(), id+".md")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		seed(t, dir, "create", "--id", id, "--type", "concept", "--title", id, "--category", "dos", "--agent", "attacker", "--body-file", p)
	}
	const section = "## Rotation\n\nThe gateway rotates *refresh* tokens on use, as [[rfc-6749|the RFC]] allows; see `rotate()`.\n\n" +
		"- a reused token revokes the family\n- clients persist the new token first ([notes](https://example.com/a))\n\n"
	create("ordinary", strings.Repeat(section, size/len(section)))
	create("hostile", hostileRenderingBody(size))
	srv := webOf(t, dir)
	page := func(id string) time.Duration {
		least := time.Duration(1<<63 - 1)
		for range 5 {
			before := processCPU(t)
			code, body := get(t, srv, "/r/"+id)
			least = min(least, processCPU(t)-before)
			require.Equal(t, 200, code, body)
		}
		return least
	}
	page("ordinary") // the first page opens the store's indexes
	ordinary, hostile := page("ordinary"), page("hostile")
	t.Logf("page of an ordinary body: %v, of a hostile one: %v (x%.2f)", ordinary, hostile, float64(hostile)/float64(ordinary))
	require.LessOrEqual(t, float64(hostile), 4*float64(ordinary), "a hostile body's page costs %v against %v for an ordinary one", hostile, ordinary)
}

// hostileRenderingBody is a body of about n bytes made of every shape of
// testenv's HostileBody and HostileRendering, as paragraphs.
func hostileRenderingBody(n int) string {
	names := make([]string, 0, len(testenv.HostileRendering))
	for name := range testenv.HostileRendering {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := []string{testenv.HostileBody(n / 2)}
	for _, name := range names {
		parts = append(parts, testenv.HostileRendering[name](n/2/len(names)))
	}
	return strings.Join(parts, "\n\n")
}

// processCPU is the CPU time this process has used: the server runs in it.
func processCPU(t *testing.T) time.Duration {
	var r syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &r))
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
