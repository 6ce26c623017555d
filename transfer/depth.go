package transfer

import (
	"fmt"

	"github.com/adrg/frontmatter"

	"github.com/git-records/git-records/internal/nesting"
)

// maxFrontMatterDepth bounds how deeply a note's front matter may nest
// arrays and tables (objects, maps). The TOML decoder recurses once per
// level of arrays with no limit of its own, so a front matter nested
// deep enough overflows the Go stack and kills the process, and it takes
// time and memory quadratic in the parts of a dotted key; the JSON and
// YAML decoders stop at 10,000 levels. Nothing a note's front matter says
// to a record nests more than a few levels.
const maxFrontMatterDepth = 64

// bounded is unmarshal after a linear scan that refuses a front matter
// nesting arrays and tables more than maxFrontMatterDepth deep.
func bounded(s nesting.Syntax, unmarshal frontmatter.UnmarshalFunc) frontmatter.UnmarshalFunc {
	return func(data []byte, v any) error {
		if nesting.Depth(data, s, maxFrontMatterDepth) > maxFrontMatterDepth {
			return fmt.Errorf("it nests arrays or tables more than %d deep", maxFrontMatterDepth)
		}
		return unmarshal(data, v)
	}
}
