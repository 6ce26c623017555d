package root

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/pkg/cmdutil"
)

// seedRepo is a store with a few records of each kind the handle and
// ambiguous-prefix tests need.
func seedRepo(t testing.TB) string {
	t.Helper()
	dir := newRepo(t)
	for _, args := range [][]string{
		{"--id", "seed-concept", "--type", "concept", "--alias", "seed/alias"},
		{"--id", "seed-proposer", "--type", "concept"},
		{"--id", "seed-raw", "--type", "raw"},
		{"--id", "aaaaaaaa-one", "--type", "concept"},
		{"--id", "aaaaaaaa-two", "--type", "concept"},
		{"--id", "seed-retired", "--type", "concept"},
	} {
		mustRec(t, dir, append([]string{"create", "--title", "Seed", "--category", "seed", "--body", "seed body", "--agent", "seeder"}, args...)...)
	}
	mustRec(t, dir, "retire", "seed-retired", "--rationale", "gone", "--agent", "seeder")
	return dir
}

// ids are the records' ids, sorted.
func ids(rs []obj) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r["id"].(string))
	}
	slices.Sort(out)
	return out
}

// TestListHandlesResolve: every handle `list` prints for people resolves
// to its record, however many ids share a prefix.
func TestListHandlesResolve(t *testing.T) {
	t.Parallel()
	dir := seedRepo(t)
	for _, id := range []string{"payment-api-v1-design", "payment-api-v2-design", "payment", "paymentsvc-runbook-2024"} {
		mustRec(t, dir, "create", "--id", id, "--type", "concept", "--title", "T "+id, "--category", "pay", "--body", "b", "--agent", "a")
	}
	createID(t, dir, "--type", "concept", "--title", "generated", "--category", "pay", "--body", "b", "--agent", "a")
	want := ids(mustJSON[[]obj](t, dir, "list", "--include-retired"))
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(mustRec(t, dir, "list", "--include-retired")), "\n") {
		handle := strings.Fields(line)[0]
		r := rec(t, dir, "--json", "show", handle)
		require.Equal(t, 0, r.Code, "list printed %q, which does not resolve:\n%s", handle, r)
		id := jsonOf[obj](t, r)["id"].(string)
		assert.True(t, strings.HasPrefix(id, handle), "%q is a prefix of %q", handle, id)
		assert.GreaterOrEqual(t, len(handle), min(len(id), 8), "handles have at least 8 characters")
		got = append(got, id)
	}
	sort.Strings(got)
	assert.Equal(t, want, got, "one line per record, each handle naming its own")
}

// TestAmbiguousPrefix: a prefix of 8+ characters that matches two records
// is AMBIGUOUS_ID naming both, never a guess, for reads and writes alike.
func TestAmbiguousPrefix(t *testing.T) {
	t.Parallel()
	dir := seedRepo(t)
	for _, args := range [][]string{
		{"show", "aaaaaaaa"},
		{"show", "aaaaaaaa-"},
		{"log", "aaaaaaaa"},
		{"links", "aaaaaaaa"},
		{"update", "aaaaaaaa", "--title", "x", "--agent", "a"},
	} {
		before := stateOf(t, dir)
		e := requireError(t, rec(t, dir, append([]string{"--json"}, args...)...), "AMBIGUOUS_ID", cmdutil.ExitRefused)
		assert.ElementsMatch(t, []any{"aaaaaaaa-one", "aaaaaaaa-two"}, e["matches"], "%q", args)
		assert.Equal(t, before, stateOf(t, dir))
	}
	// One more character makes it unique.
	assert.Equal(t, "aaaaaaaa-one", mustJSON[obj](t, dir, "show", "aaaaaaaa-o")["id"])
}
