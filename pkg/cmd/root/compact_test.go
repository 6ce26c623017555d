package root

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompact: noise created before the date is rolled up into one rollup
// record and retired in one commit whose evidence names the rule for each
// record; every decision-bearing record is kept with its rule; naming one
// with --record refuses the compaction; verify accepts the history.
func TestCompact(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	event := func(title string, extra ...string) string {
		return createID(t, dir, append([]string{"--type", "raw", "--kind", "event", "--title", title, "--category", "ops.log", "--agent", "bot", "--body", title}, extra...)...)
	}
	noise1, noise2 := event("heartbeat 1"), event("heartbeat 2")
	blocked := event("build blocked", "--tag", "blocked")
	decided := event("chose plan B", "--role", "decision")
	cited := event("latency spike")
	createID(t, dir, "--type", "ops.report", "--title", "Weekly report", "--category", "ops", "--agent", "bot", "--body", "See [["+cited+"]].")
	concept := createID(t, dir, "--type", "concept", "--title", "Not noise", "--category", "ops", "--agent", "bot", "--body", "knowledge")

	dry := mustJSON[obj](t, dir, "compact", "--before", "2999-01-01", "--agent", "janitor", "--dry-run")
	assert.Len(t, dry["compacted"], 2)
	head := tip(t, dir)
	assert.Equal(t, head, tip(t, dir), "a dry run writes nothing")

	e := requireError(t, rec(t, dir, "--json", "compact", "--before", "2999-01-01", "--agent", "janitor", "--record", noise1, "--record", blocked), "PERMISSION_DENIED", 4)
	assert.Equal(t, "decision-bearing: marks-state", e["rule"])
	assert.Equal(t, head, tip(t, dir), "a refused compaction writes nothing")

	out := mustJSON[obj](t, dir, "compact", "--before", "2999-01-01", "--agent", "janitor")
	rollup, _ := out["rollup"].(string)
	require.NotEmpty(t, rollup)
	verdicts := func(key string) map[string]string {
		m := map[string]string{}
		list, _ := out[key].([]any)
		for _, x := range list {
			v := x.(map[string]any)
			m[v["id"].(string)] = v["rule"].(string)
		}
		return m
	}
	assert.Equal(t, map[string]string{noise1: "noise", noise2: "noise"}, verdicts("compacted"))
	assert.Equal(t, map[string]string{blocked: "marks-state", decided: "decision", cited: "cited"}, verdicts("retained"))

	for _, id := range []string{noise1, noise2} {
		assert.Equal(t, "retired", mustJSON[obj](t, dir, "show", id)["status"], "%s is retired", id)
	}
	for _, id := range []string{blocked, decided, cited, concept} {
		assert.Equal(t, "active", mustJSON[obj](t, dir, "show", id)["status"], "%s is kept", id)
	}
	trailers := parsedTrailers(t, dir, tip(t, dir))
	assert.Contains(t, trailers, "Evidence-Compacted: "+noise1+" noise")
	assert.Contains(t, trailers, "Evidence-Retained: "+blocked+" marks-state")
	mustRec(t, dir, "verify")

	again := mustJSON[obj](t, dir, "compact", "--before", "2999-01-01", "--agent", "janitor")
	assert.Equal(t, true, again["unchanged"], "nothing left to compact, the rollup itself is no candidate")
}
