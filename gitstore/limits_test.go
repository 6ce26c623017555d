//go:build unix

package gitstore

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/internal/testenv"
	"github.com/git-records/git-records/kernel"
)

// wikilinkBody is a body of n distinct [[links]], 9 bytes each, so that
// 100k of them fit the body limit.
func wikilinkBody(n int) string {
	var b strings.Builder
	for i := range n {
		id := strconv.FormatInt(int64(i), 36)
		b.WriteString("[[" + strings.Repeat("0", 4-len(id)) + id + "]]\n")
	}
	return b.String()
}

// TestBodyWikilinksReadInLinearTime pins break 7: de-duplicating a body's
// wikilinks against the record's links was quadratic, so one record with
// 100k links took 20 s to show. Reading it (decode, then the links show and
// get list) must scale linearly: ten times the links, well under the
// hundred times a quadratic cost takes. The bound is forty, not twenty:
// with links read without a Markdown parse, what is left is mostly hash
// maps of the links, and one of 100k strings misses the CPU caches where
// one of 10k does not (20-35 times on this machine, never near 100).
func TestBodyWikilinksReadInLinearTime(t *testing.T) {
	s := newTestStore(t)
	small := create(t, s, kernel.CreateInput{Title: "10k links", Body: wikilinkBody(10_000)})
	large := create(t, s, kernel.CreateInput{Title: "100k links", Body: wikilinkBody(100_000)})
	v, err := s.View()
	require.NoError(t, err)
	read := func(id string) func() {
		return func() {
			r, err := v.Get(id)
			require.NoError(t, err)
			require.NotEmpty(t, r.Links)
		}
	}
	testenv.RequireLinear(t, 40, read(small.ID), read(large.ID))
}

// TestDecodeRecordRefusesOversizedFileBeforeParsing: a file over the record
// limit is refused on its size alone (its YAML here would not even parse),
// and a frontmatter over its own limit is refused before YAML reads it.
func TestDecodeRecordRefusesOversizedFileBeforeParsing(t *testing.T) {
	t.Parallel()
	huge := "---\ntags: [" + strings.Repeat("x, ", kernel.MaxRecordBytes/3) + "\n---\nbody\n"
	_, err := DecodeRecord([]byte(huge))
	requireCode(t, err, kernel.CodeInvalidRecord)
	require.Contains(t, err.Error(), "record file is")

	var front strings.Builder
	front.WriteString("---\nid: x\ntags:\n")
	for i := 0; front.Len() <= kernel.MaxFrontmatterBytes; i++ {
		front.WriteString("  - tag" + strconv.Itoa(i) + "\n")
	}
	_, err = DecodeRecord([]byte(front.String() + "---\nbody\n"))
	requireCode(t, err, kernel.CodeInvalidRecord)
	require.Contains(t, err.Error(), "frontmatter is")
}

// TestEncodeRecordRefusesOversizedFrontmatter: the write path cannot make a
// record the decoder would refuse.
func TestEncodeRecordRefusesOversizedFrontmatter(t *testing.T) {
	t.Parallel()
	at := ts("2026-03-01T09:30:00.123Z")
	r := &kernel.Record{ID: "big", Type: "concept", Title: "t", Category: "c", CreatedAt: at, UpdatedAt: at,
		Provenance: kernel.Provenance{Agent: "a"}}
	for range kernel.MaxFrontmatterBytes / 1000 {
		r.MutationLog = append(r.MutationLog, kernel.MutationEntry{Op: "update", At: at, Agent: "a", Note: strings.Repeat("n", 1000)})
	}
	require.NoError(t, kernel.Validate(r))
	_, err := EncodeRecord(r)
	requireCode(t, err, kernel.CodeInvalidRecord)
	require.Contains(t, err.Error(), "frontmatter is")
}

// TestShowHostileBodyDoubling: bodies of nested brackets, unclosed link
// destinations or emphasis runs made reading a record's links (show, get)
// quadratic in goldmark's parse: 10 s for 1 MB of nested brackets.
// Reading such a record costs at most DoublingRatio times as much for
// twice the body.
func TestShowHostileBodyDoubling(t *testing.T) {
	s := newTestStore(t)
	small := create(t, s, kernel.CreateInput{Title: "hostile", Body: testenv.HostileBody(64 << 10)})
	large := create(t, s, kernel.CreateInput{Title: "hostile, twice", Body: testenv.HostileBody(128 << 10)})
	v, err := s.View()
	require.NoError(t, err)
	read := func(id string) func() {
		return func() {
			r, err := v.Get(id)
			require.NoError(t, err)
			require.NotEmpty(t, r.Links)
		}
	}
	testenv.RequireDoubling(t, read(small.ID), read(large.ID))
}
