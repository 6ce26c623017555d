package transfer

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/kernel"
)

// A link the source wrote one way is kept once and written back wherever
// it appears; one it wrote several ways is kept for each appearance, in
// order; a link kept as written needs no entry unless another way of
// writing it became the same text.
func TestWrittenAsWritesEveryLinkBackAsItWas(t *testing.T) {
	occurrences := []kernel.WrittenLink{
		{Link: "[[a|Note]]", Source: "[[Note]]"},
		{Link: "[[home]]", Source: "[[home]]"},
		{Link: "[[a|Note]]", Source: "[[Note|Note]]"},
		{Link: "[[b|x]]", Source: "[x](b.md)"},
		{Link: "[[home]]", Source: "[[Welcome|home]]"},
		{Link: "[[b|x]]", Source: "[x](b.md)"},
		{Link: "[[same]]", Source: "[[same]]"},
	}
	w := writtenAs(occurrences)
	assert.Equal(t, []kernel.WrittenLink{
		{Link: "[[a|Note]]", Source: "[[Note]]"},
		{Link: "[[home]]", Source: "[[home]]"},
		{Link: "[[a|Note]]", Source: "[[Note|Note]]"},
		{Link: "[[b|x]]", Source: "[x](b.md)"},
		{Link: "[[home]]", Source: "[[Welcome|home]]"},
	}, w)
	r := &kernel.Record{Body: "[[a|Note]] [[home]] [[a|Note]] [[b|x]] [[home]] [[b|x]] [[same]] `[[a|Note]]`", WrittenAs: w}
	assert.Equal(t, "[[Note]] [[home]] [[Note|Note]] [x](b.md) [[Welcome|home]] [x](b.md) [[same]] `[[a|Note]]`", SourceBody(r))
}
