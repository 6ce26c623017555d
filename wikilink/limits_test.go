//go:build unix

package wikilink

import (
	"testing"

	"github.com/git-records/git-records/internal/testenv"
)

// TestExtractHostileBodiesDoubling: Extract's CPU time on each body that
// goldmark's full parse takes quadratic time over is at most DoublingRatio
// times as much for twice the body. The sizes are where that parse
// already quadruples.
func TestExtractHostileBodiesDoubling(t *testing.T) {
	const n = 64 << 10
	for name, body := range testenv.HostileMarkdown {
		t.Run(name, func(t *testing.T) {
			small, large := []byte(body(n)), []byte(body(2*n))
			if len(Extract(small)) == 0 {
				t.Fatalf("no link in %q", small[:50])
			}
			testenv.RequireDoubling(t, func() { Extract(small) }, func() { Extract(large) })
		})
	}
}
