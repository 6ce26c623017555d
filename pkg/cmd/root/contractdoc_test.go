package root

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/pkg/cmd/agent/contract"
)

// contractDoc is the adapter protocol's documentation; its examples are a test.
var contractDoc = filepath.Join("..", "..", "..", "docs", "contract-protocol.md")

// docExample is one request block of the document and the answer block after it.
type docExample struct {
	op, request, answer string
	answerStart         int // byte offset of the answer block's content, for -update
	answerEnd           int
}

// updateGolden (-update) rewrites what the golden tests compare with from the
// current output: with -run TestContractProtocolDocExamples, the document's
// answers; TestGolden, testdata/cli; TestDiffGolden, testdata/diff;
// TestFormatFixturesRead, the current format's fixture (once):
// go test ./pkg/cmd/root -run TestContractProtocolDocExamples -update
var updateGolden = flag.Bool("update", false, "rewrite the golden files (docs/contract-protocol.md's answers, testdata/cli, testdata/diff) from the current output")

var (
	docHeading = regexp.MustCompile("(?m)^### `([a-z-]+)`")
	docBlock   = regexp.MustCompile("(?s)```json (request|answer)\n(.*?)```")
)

// parseContractDoc pairs each request block with the answer block that
// follows it, under the op named by the nearest ### heading above.
func parseContractDoc(t *testing.T, doc string) []docExample {
	t.Helper()
	var out []docExample
	for _, m := range docBlock.FindAllStringSubmatchIndex(doc, -1) {
		kind, body := doc[m[2]:m[3]], doc[m[4]:m[5]]
		switch kind {
		case "request":
			heads := docHeading.FindAllStringSubmatch(doc[:m[0]], -1)
			require.NotEmpty(t, heads, "a request block at byte %d has no ### `op` heading above it", m[0])
			out = append(out, docExample{op: heads[len(heads)-1][1], request: body})
		case "answer":
			require.NotEmpty(t, out, "an answer block at byte %d has no request before it", m[0])
			last := &out[len(out)-1]
			require.Empty(t, last.answer, "two answers follow the %s request", last.op)
			last.answer, last.answerStart, last.answerEnd = body, m[4], m[5]
		}
	}
	return out
}

var (
	docTimestamp   = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	docGeneratedID = regexp.MustCompile(`"[a-z2-7]{26}"`)
	// A proposal id hashes the propose entry's time, so it differs too.
	docProposalID = regexp.MustCompile(`"proposal_id": "[0-9a-f]{12}"`)
)

// normalizeAnswer hides what differs between runs: the clock and generated ids.
func normalizeAnswer(s string) string {
	s = docTimestamp.ReplaceAllString(s, "<time>")
	s = docProposalID.ReplaceAllString(s, `"proposal_id": "<proposal id>"`)
	return docGeneratedID.ReplaceAllString(s, `"<generated id>"`)
}

// TestContractProtocolDocExamples runs every request in
// docs/contract-protocol.md, in order, against one fresh store, and checks
// that the store answers what the document shows (up to times and
// generated ids). -update rewrites the answers from the store's output.
func TestContractProtocolDocExamples(t *testing.T) {
	data, err := os.ReadFile(contractDoc)
	require.NoError(t, err)
	doc := string(data)
	examples := parseContractDoc(t, doc)
	require.NotEmpty(t, examples)
	documented := map[string]bool{}
	for _, e := range examples {
		documented[e.op] = true
	}
	for _, op := range contract.Ops {
		assert.True(t, documented[op], "docs/contract-protocol.md has no example of %s", op)
	}

	store := filepath.Join(t.TempDir(), "kb")
	var rewritten bytes.Buffer
	last := 0
	for i, e := range examples {
		require.True(t, json.Valid([]byte(e.request)), "example %d (%s): the request is not JSON", i, e.op)
		r := contractCall(t, store, e.op, e.request)
		got := r.Stdout
		if *updateGolden {
			rewritten.WriteString(doc[last:e.answerStart])
			if normalizeAnswer(e.answer) == normalizeAnswer(got) {
				got = e.answer // keep the page's times: a rewrite should show only what changed
			}
			rewritten.WriteString(got)
			last = e.answerEnd
			continue
		}
		require.NotEmpty(t, e.answer, "example %d (%s) has no answer block", i, e.op)
		assert.Equal(t, normalizeAnswer(e.answer), normalizeAnswer(got), "example %d: contract %s %s", i, e.op, strings.TrimSpace(e.request))
		var envelope map[string]any
		require.NoError(t, json.Unmarshal([]byte(got), &envelope))
		if _, failed := envelope["error"]; failed {
			assert.NotEqual(t, 0, r.Code, "example %d: an error answer exits non-zero", i)
		} else {
			assert.Equal(t, 0, r.Code, "example %d: a result answer exits 0", i)
		}
	}
	if *updateGolden {
		rewritten.WriteString(doc[last:])
		require.NoError(t, os.WriteFile(contractDoc, rewritten.Bytes(), 0o644))
	}
}
