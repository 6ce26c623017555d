//go:build unix

package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
)

// TestRenderHostileBodiesDoubling: a record's page rendered each body
// goldmark parses in quadratic time with goldmark's full parser, so one
// page of 1 MB took minutes of CPU. Rendering a body of each shape costs
// at most DoublingRatio times as much for twice the body. The sizes are
// where goldmark's full parse already more than doubles (nested brackets
// cost it a walk of up to 999 bytes at each ']': quadratic below that
// size, linear with that factor above) and the budget of the metered
// parsers is spent at both.
func TestRenderHostileBodiesDoubling(t *testing.T) {
	br := emptyRenderer(t)
	for name, shape := range hostileShapes() {
		n := 16 << 10
		if name == "nested brackets" {
			n = 1 << 10
		}
		t.Run(name, func(t *testing.T) {
			render := func(body string) func() {
				return func() {
					_, err := br.render(body, "")
					require.NoError(t, err)
				}
			}
			testenv.RequireDoubling(t, render(shape(n)), render(shape(2*n)))
		})
	}
}
