package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgentRunCarriesOverOpenWorkUnderBindings plays a short agent run
// with the built binary: the project binds an extension slot; a parent run
// spawns two child runs and a background task under those bindings; the
// run ends (its cleanup terminates what does not survive it); the next
// run's `continue` shows exactly the open work; the session's cleanup
// closes it with receipts; verify passes on the whole history; and the
// audit has one line per op.
func TestAgentRunCarriesOverOpenWorkUnderBindings(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "repo")
	gitc(t, "", "init", "-q", dir)
	gitc(t, dir, "config", "user.email", "agent@example.com")
	gitc(t, dir, "config", "user.name", "Agent")
	mustRec(t, dir, "init", "--generate-key")
	ops := 1 // init

	// The implementations a slot can be bound to, each declaring its contract.
	impl := func(typ, id string, accepts, produces string) {
		t.Helper()
		mustRec(t, dir, "create", "--type", typ, "--id", id, "--title", id, "--category", "kit", "--agent", "maintainer",
			"--body", "An implementation.", "--accepts", accepts, "--produces", produces)
		ops++
	}
	impl("kit.routine", "routine-final-verification", "implementationPlan,acceptanceCriteria", "final-verification-findings.md")
	impl("kit.workflow", "workflow-release-readiness-review", "implementationPlan,acceptanceCriteria,invariants", "final-verification-findings.md")
	impl("kit.routine", "routine-lazy-check", "implementationPlan", "final-verification-findings.md")

	bindings := func(bound string) string {
		path := filepath.Join(t.TempDir(), "bindings.yaml")
		require.NoError(t, os.WriteFile(path, []byte(`version: 1
slots:
  final_verification:
    purpose: Verify implementation against acceptance criteria.
    default: routine-final-verification
    accepted_kinds: [routine, workflow]
    required_inputs: [implementationPlan, acceptanceCriteria]
    required_outputs: [final-verification-findings.md]
bindings:
  final_verification: `+bound+"\n"), 0o644))
		return path
	}
	// An implementation whose contract does not cover the slot is refused.
	r := rec(t, dir, "--json", "bindings", "set", bindings("routine-lazy-check"), "--rationale", "try", "--agent", "maintainer")
	assert.Equal(t, 1, r.code, "%s", r)
	assert.Contains(t, r.stdout, "does not accept the required inputs acceptanceCriteria")
	ops++ // refused, and audited
	mustRec(t, dir, "bindings", "set", bindings("workflow-release-readiness-review"), "--rationale", "our release bar", "--agent", "maintainer")
	ops++
	inspect := jsonOf[struct {
		Slots []struct {
			Slot   string `json:"slot"`
			Active struct {
				ResolvedTo string `json:"resolved_to"`
				Source     string `json:"source"`
			} `json:"active"`
		} `json:"slots"`
	}](t, mustRec(t, dir, "--json", "inspect", "--bindings"))
	require.Len(t, inspect.Slots, 1)
	assert.Equal(t, "workflow-release-readiness-review", inspect.Slots[0].Active.ResolvedTo)
	assert.Equal(t, "project", inspect.Slots[0].Active.Source)

	// The run: a sandbox, a parent run, two child runs, a background task.
	mustRec(t, dir, "create", "--type", "execution.sandbox", "--id", "sb-1", "--title", "CI sandbox", "--category", "sandboxes",
		"--agent", "ops", "--body", "where the run executes")
	ops++
	start := func(args ...string) string {
		t.Helper()
		ops++
		return jsonOf[struct{ ID string }](t, mustRec(t, dir, append([]string{"--json", "exec", "start", "--session", "s-1", "--agent", "planner"}, args...)...)).ID
	}
	run := start("--kind", "run", "--title", "Ship the release", "--sandbox", "sb-1", "--creator-job", "job-1", "--creator-dispatch", "d-1")
	reviewer := start("--kind", "child_run", "--title", "Review the diff", "--parent-job", run, "--creator-job", "job-1")
	verifier := start("--kind", "child_run", "--title", "Verify the release", "--parent-job", run, "--keep-after-run",
		"--fallback", "final_verification", "--creator-job", "job-1")
	indexer := start("--kind", "background_task", "--title", "Reindex docs", "--parent-job", run, "--keep-after-run", "--creator-job", "job-1")

	// Each commit of the run shows what produced it: the binding manifest.
	manifestOf := func(rev string) []map[string]string {
		t.Helper()
		return jsonOf[struct {
			Manifest []map[string]string `json:"manifest"`
		}](t, mustRec(t, dir, "--json", "inspect", "--bindings", "--at", rev)).Manifest
	}
	verifierCommit := gitc(t, dir, "log", "-1", "--format=%H", "--grep", "Record-Id: "+verifier, "refs/heads/records")
	m := manifestOf(verifierCommit)
	require.Len(t, m, 1)
	assert.Equal(t, "routine-final-verification", m[0]["resolved_to"])
	assert.Equal(t, "fallback-to-default", m[0]["source"])
	assert.Equal(t, "workflow-release-readiness-review", m[0]["failed"])
	assert.Contains(t, mustRec(t, dir, "show", verifier, "--json"), "final_verification: fallback-to-default (workflow-release-readiness-review failed)",
		"the fallback is in the record's provenance")
	runManifest := manifestOf(gitc(t, dir, "log", "-1", "--format=%H", "--grep", "Record-Id: "+run, "refs/heads/records"))
	assert.Equal(t, "project", runManifest[0]["source"])

	// The run ends: its cleanup terminates the child that does not survive it.
	out := jsonOf[struct {
		Terminated []string `json:"terminated"`
	}](t, mustRec(t, dir, "--json", "exec", "end-run", run, "--session", "s-1", "--agent", "planner"))
	assert.Equal(t, []string{reviewer}, out.Terminated)
	ops += 2 // the cleanup and the run's close

	// Someone else's session cannot manage the open work.
	r = rec(t, dir, "--json", "exec", "cancel", indexer, "--session", "s-2", "--agent", "intruder", "--reason", "mine")
	assert.Equal(t, 4, r.code, "%s", r)
	assert.Contains(t, r.stdout, "NOT_OWNER")
	ops++

	// The next run: continue shows exactly the open work, parents rebound.
	co := jsonOf[struct {
		Owner string `json:"owner"`
		Open  []struct {
			ID      string `json:"id"`
			Parents []struct {
				Kind, ID, State string
			} `json:"parents"`
		} `json:"open"`
	}](t, mustRec(t, dir, "--json", "continue", "--owner", "s-1"))
	var open []string
	for _, o := range co.Open {
		open = append(open, o.ID)
		require.Len(t, o.Parents, 1)
		assert.Equal(t, run, o.Parents[0].ID)
		assert.Equal(t, "completed", o.Parents[0].State)
	}
	want := []string{verifier, indexer}
	sort.Strings(want)
	sort.Strings(open)
	assert.Equal(t, want, open)
	md := mustRec(t, dir, "continue", "--owner", "s-1")
	assert.Contains(t, md, "# Carry-over for session s-1")
	assert.Contains(t, md, "`"+indexer+"` Reindex docs")

	// The resumed run asks for exactly the bindings of the run's commit.
	resumed := start("--kind", "child_run", "--title", "Resume verification", "--parent-work-item", verifier,
		"--bindings-from", verifierCommit, "--keep-after-run")
	rm := manifestOf("refs/heads/records")
	assert.Equal(t, "resumed", rm[0]["source"])
	assert.Equal(t, "routine-final-verification", rm[0]["resolved_to"])

	// Session close: archive everything still open, a receipt each.
	closed := jsonOf[struct {
		Closed []string `json:"closed"`
		State  string   `json:"state"`
	}](t, mustRec(t, dir, "--json", "exec", "end-session", "--session", "s-1", "--agent", "planner", "--archive"))
	ops++
	want = append(want, resumed)
	sort.Strings(want)
	sort.Strings(closed.Closed)
	assert.Equal(t, want, closed.Closed)
	assert.Equal(t, "archived", closed.State)
	receipts := gitc(t, dir, "log", "-1", "--format=%(trailers:key=Evidence-Creator,valueonly)", "refs/heads/records")
	assert.Contains(t, receipts, indexer+" job=job-1 dispatch= work_item=", "the receipt keeps the creator lineage")
	assert.Contains(t, mustRec(t, dir, "continue", "--owner", "s-1"), "nothing to continue")
	mustRec(t, dir, "exec", "retire-sandbox", "sb-1", "--agent", "ops", "--reason", "run finished")
	ops++

	requireValid(t, dir)

	// One audit line per op, allowed or refused: every commit on the
	// branch is one allowed line, and the two refusals are there with
	// their codes.
	type auditLine struct {
		Op           string `json:"op"`
		Front        string `json:"front"`
		Result       string `json:"result"`
		Code         string `json:"code"`
		InputDigest  string `json:"input_digest"`
		EvidenceRefs struct {
			Commit string `json:"commit"`
		} `json:"evidence_refs"`
	}
	audit := jsonOf[struct {
		Audit   []auditLine `json:"audit"`
		Skipped int         `json:"skipped"`
	}](t, mustRec(t, dir, "--json", "audit"))
	assert.Zero(t, audit.Skipped)
	require.Len(t, audit.Audit, ops, "one line per op")
	commits := strings.Fields(gitc(t, dir, "rev-list", "refs/heads/records"))
	var allowed []string
	var refused []string
	for _, l := range audit.Audit {
		assert.Equal(t, "cli", l.Front)
		assert.True(t, strings.HasPrefix(l.InputDigest, "sha256:"), "%+v", l)
		if l.Result == "allowed" {
			allowed = append(allowed, l.EvidenceRefs.Commit)
		} else {
			refused = append(refused, l.Op+" "+l.Result+" "+l.Code)
		}
	}
	assert.ElementsMatch(t, commits, allowed, "each commit is one allowed op")
	assert.Equal(t, []string{"bindings set failed INVALID_RECORD", "cancel failed NOT_OWNER"}, refused, "a refusal before the op is decided is audited as the command asked for")
}
