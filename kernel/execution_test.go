package kernel_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// ExecutionRecords makes memView a kernel.ExecutionLister.
func (v *memView) ExecutionRecords() ([]*kernel.Record, error) {
	var out []*kernel.Record
	for _, id := range v.sortedIDs() {
		if r := v.records[id]; kernel.IsExecutionType(r.Type) {
			out = append(out, r)
		}
	}
	return out, nil
}

const (
	alice = "alice@example.com"
	bob   = "bob@example.com"
)

// execEnv signs as principal; ids count on across calls, so records
// started one after another never collide.
func execEnv(principal string) kernel.Env {
	return kernel.Env{Now: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), NewID: func() string {
		execIDs++
		return fmt.Sprintf("ex%05d", execIDs)
	}, Principal: func() (string, error) { return principal, nil }}
}

var execIDs int

// land checks m as the write path and verify would (CheckWrite and
// CheckExecution for its signer) and lands it.
func land(t *testing.T, v *memView, principal string) func(*kernel.Mutation, error) *kernel.Mutation {
	return func(m *kernel.Mutation, err error) *kernel.Mutation {
		t.Helper()
		require.NoError(t, err)
		require.NoError(t, kernel.CheckWrite(v, m))
		changes, err := kernel.MutationChanges(v, m)
		require.NoError(t, err)
		require.Empty(t, kernel.CheckExecution(m.Op, m.Trailers, changes, v, principal, kernel.ExecutionLimits{}))
		v.commit(m)
		return m
	}
}

func start(t *testing.T, v *memView, in kernel.StartInput) string {
	t.Helper()
	if in.Agent == "" {
		in.Agent = "planner"
	}
	m := land(t, v, alice)(kernel.Start(v, in, execEnv(alice)))
	return m.Writes[0].ID
}

// runTree: sandbox sb-1, a run owned by session s-1 in it, two child runs
// (one surviving run end) and a surviving background task.
func runTree(t *testing.T) (v *memView, run, child1, child2, task string) {
	v = newMemView()
	land(t, v, alice)(kernel.Create(v, kernel.CreateInput{ID: "sb-1", Type: kernel.TypeSandbox, Title: "Sandbox", Body: "b", Category: "sandboxes",
		Provenance: kernel.Provenance{Agent: "ops"}}, execEnv(alice)))
	keep := false
	run = start(t, v, kernel.StartInput{Type: kernel.TypeRun, Title: "Parent", Session: "s-1", Owner: kernel.Owner{SandboxName: "sb-1"},
		Creator: kernel.Creator{JobID: "job-1", DispatchID: "d-1"}})
	child1 = start(t, v, kernel.StartInput{Type: kernel.TypeChildRun, Title: "One", Session: "s-1", ParentJob: run, Creator: kernel.Creator{JobID: "job-1"}})
	child2 = start(t, v, kernel.StartInput{Type: kernel.TypeChildRun, Title: "Two", Session: "s-1", ParentJob: run, CleanupOnRunEnd: &keep})
	task = start(t, v, kernel.StartInput{Type: kernel.TypeBackgroundTask, Title: "Task", Session: "s-1", ParentJob: run, CleanupOnRunEnd: &keep})
	return
}

func TestStartInheritsOwnerFromParentRun(t *testing.T) {
	v, run, child1, _, _ := runTree(t)
	r, c := get(t, v, run), get(t, v, child1)
	assert.Equal(t, &kernel.Owner{Principal: alice, SessionKey: "s-1", AgentID: "planner", SandboxName: "sb-1"}, r.Owner)
	assert.Equal(t, r.Owner, c.Owner, "a child run inherits its parent run's owner")
	assert.Equal(t, 0, r.Execution.Depth)
	assert.Equal(t, 1, c.Execution.Depth)
	assert.Equal(t, run, c.ParentID(kernel.LinkParentJob), "the parent is an explicit link")
	assert.Equal(t, &kernel.Creator{JobID: "job-1"}, c.Creator)

	// Overridden: another session owns the handoff.
	h := start(t, v, kernel.StartInput{Type: kernel.TypeHandoff, Title: "Relay", Session: "s-1", ParentJob: run, Owner: kernel.Owner{SessionKey: "s-9", AgentID: "reviewer"}})
	assert.Equal(t, "s-9", get(t, v, h).Owner.SessionKey)
	assert.Equal(t, "reviewer", get(t, v, h).Owner.AgentID)
	assert.Equal(t, "sb-1", get(t, v, h).Owner.SandboxName, "what is not overridden is inherited")
}

func TestManageIsTheOwnersAlone(t *testing.T) {
	v, _, child1, _, _ := runTree(t)
	cancel := func(session string) *kernel.Mutation {
		m, err := kernel.Manage(v, kernel.OpCancel, child1, kernel.ManageInput{Agent: "x", Session: session, Reason: "stop"}, execEnv(alice))
		require.NoError(t, err)
		return m
	}
	for _, c := range []struct {
		name, principal, session string
	}{{"another signer, the owner's session", bob, "s-1"}, {"the owner's key, another session", alice, "s-2"}} {
		t.Run(c.name, func(t *testing.T) {
			m := cancel(c.session)
			changes, err := kernel.MutationChanges(v, m)
			require.NoError(t, err)
			vs := kernel.CheckExecution(m.Op, m.Trailers, changes, v, c.principal, kernel.ExecutionLimits{})
			require.Len(t, vs, 1)
			assert.Equal(t, kernel.RuleOwnership, vs[0].Rule)
			assert.Equal(t, kernel.CodeNotOwner, kernel.CodeOf(kernel.ExecutionError(vs)))
		})
	}
	m := land(t, v, alice)(kernel.Manage(v, kernel.OpCancel, child1, kernel.ManageInput{Agent: "x", Session: "s-1", Reason: "stop"}, execEnv(alice)))
	assert.Equal(t, kernel.ExecCancelled, get(t, v, child1).Execution.State)
	assert.Equal(t, []string{child1 + " job=job-1 dispatch= work_item="}, trailerValues(m, kernel.TrailerCreator), "the receipt keeps the creator lineage")
	entry := lastLog(t, get(t, v, child1))
	assert.Equal(t, "cancel", entry.Op)
	assert.Equal(t, "job=job-1 dispatch= work_item=", entry.Evidence["creator"])

	_, err := kernel.Manage(v, kernel.OpClose, child1, kernel.ManageInput{Agent: "x", Session: "s-1", State: kernel.ExecCompleted}, execEnv(alice))
	assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err), "a closed record stays closed")
}

// TestForgedManageCommits: what an attacker with a valid key writes by
// hand, verify (CheckExecution on the commit) refuses.
func TestForgedManageCommits(t *testing.T) {
	v, run, child1, _, _ := runTree(t)
	good, err := kernel.Manage(v, kernel.OpCancel, child1, kernel.ManageInput{Agent: "x", Session: "s-1", Reason: "stop"}, execEnv(alice))
	require.NoError(t, err)
	judge := func(m *kernel.Mutation, principal string) []string {
		changes, err := kernel.MutationChanges(v, m)
		require.NoError(t, err)
		var rules []string
		for _, x := range kernel.CheckExecution(m.Op, m.Trailers, changes, v, principal, kernel.ExecutionLimits{MaxDepth: 1}) {
			rules = append(rules, x.Rule)
		}
		return rules
	}
	edit := func(f func(m *kernel.Mutation)) *kernel.Mutation {
		m := *good
		m.Writes = []*kernel.Record{good.Writes[0].Clone()}
		m.Trailers = append([]kernel.Trailer(nil), good.Trailers...)
		f(&m)
		return &m
	}
	assert.Empty(t, judge(good, alice))
	assert.Equal(t, []string{kernel.RuleOwnership}, judge(good, bob), "bob's valid key does not manage alice's record")
	assert.Equal(t, []string{kernel.RuleOwnership}, judge(edit(func(m *kernel.Mutation) {
		for i := range m.Trailers {
			if m.Trailers[i].Key == kernel.TrailerSession {
				m.Trailers[i].Value = "s-2"
			}
		}
	}), alice), "the session trailer must be the owner's")
	assert.Equal(t, []string{kernel.RuleExecution}, judge(edit(func(m *kernel.Mutation) {
		m.Trailers = dropTrailer(m.Trailers, kernel.TrailerCreator)
	}), alice), "a receipt without the creator lineage")
	assert.Equal(t, []string{kernel.RuleExecution}, judge(edit(func(m *kernel.Mutation) {
		m.Writes[0].Execution.State = kernel.ExecCompleted
	}), alice), "cancel closes as cancelled only")
	assert.Equal(t, []string{kernel.RuleOwnership}, judge(edit(func(m *kernel.Mutation) {
		m.Op = kernel.OpForceClose
		m.Writes[0].Execution.State = kernel.ExecForceClosed
	}), bob), "force-close outside a sandbox's retirement")

	// A forged create: owned by someone else, or deeper than its parent says.
	forged, err := kernel.Start(v, kernel.StartInput{Type: kernel.TypeChildRun, Title: "Deep", Session: "s-1", Agent: "a", ParentJob: child1}, execEnv(alice))
	require.NoError(t, err)
	assert.Contains(t, judge(forged, bob), kernel.RuleOwnership, "the owner principal is the signer")
	assert.Equal(t, []string{kernel.RuleExecLimit}, judge(forged, alice), "depth 2 is over the policy's max_depth 1")
	forged.Writes[0].Execution.Depth = 0
	assert.Contains(t, judge(forged, alice), kernel.RuleExecution, "a depth that lies about the parent")
	_ = run
}

func dropTrailer(ts []kernel.Trailer, key string) []kernel.Trailer {
	var out []kernel.Trailer
	for _, t := range ts {
		if t.Key != key {
			out = append(out, t)
		}
	}
	return out
}

func TestMaxChildren(t *testing.T) {
	v, run, _, _, _ := runTree(t) // the run has three open children
	m, err := kernel.Start(v, kernel.StartInput{Type: kernel.TypeChildRun, Title: "Four", Session: "s-1", Agent: "a", ParentJob: run}, execEnv(alice))
	require.NoError(t, err)
	changes, err := kernel.MutationChanges(v, m)
	require.NoError(t, err)
	vs := kernel.CheckExecution(m.Op, m.Trailers, changes, v, alice, kernel.ExecutionLimits{MaxChildren: 3})
	require.Len(t, vs, 1)
	assert.Equal(t, kernel.RuleExecLimit, vs[0].Rule)
	assert.Equal(t, kernel.CodePermissionDenied, kernel.CodeOf(kernel.ExecutionError(vs)))
	assert.Empty(t, kernel.CheckExecution(m.Op, m.Trailers, changes, v, alice, kernel.ExecutionLimits{MaxChildren: 4}))
}

func TestRunEndAndSessionCleanup(t *testing.T) {
	v, run, child1, child2, task := runTree(t)
	m := land(t, v, alice)(kernel.EndRun(v, run, kernel.ManageInput{Agent: "planner", Session: "s-1"}, execEnv(alice)))
	assert.Equal(t, []string{child1}, kernel.SortedIDs(m.Writes), "only what cleans up on run end")
	assert.Equal(t, kernel.ExecTerminated, get(t, v, child1).Execution.State)
	land(t, v, alice)(kernel.Manage(v, kernel.OpClose, run, kernel.ManageInput{Agent: "planner", Session: "s-1", State: kernel.ExecCompleted}, execEnv(alice)))

	co, err := kernel.Continue(v, alice, "s-1")
	require.NoError(t, err)
	var open []string
	for _, r := range co.Open {
		open = append(open, r.ID)
		require.Len(t, r.Parents, 1)
		assert.Equal(t, kernel.Relative{Kind: kernel.LinkParentJob, ID: run, Type: kernel.TypeRun, Title: "Parent", State: kernel.ExecCompleted}, r.Parents[0])
	}
	want := []string{child2, task}
	sort.Strings(want)
	sort.Strings(open)
	assert.Equal(t, want, open, "the carry-over is exactly the open work")
	md := co.Markdown()
	assert.Contains(t, md, "# Carry-over for session s-1")
	assert.Contains(t, md, "parent-job: `"+run+"` Parent (completed)")

	m = land(t, v, alice)(kernel.EndSession(v, kernel.ManageInput{Agent: "planner", Session: "s-1", State: kernel.ExecArchived}, execEnv(alice)))
	assert.Len(t, trailerValues(m, kernel.TrailerCreator), 2, "a receipt per record")
	co, err = kernel.Continue(v, alice, "s-1")
	require.NoError(t, err)
	assert.Empty(t, co.Open)
	assert.True(t, strings.Contains(co.Markdown(), "nothing to continue"))
}

func TestSandboxRetirement(t *testing.T) {
	v, _, _, _, _ := runTree(t)
	env := execEnv(alice)
	_, err := kernel.RetireSandbox(v, "sb-1", false, kernel.ManageInput{Agent: "ops", Reason: "done"}, env)
	assert.Equal(t, kernel.CodeOpenRecords, kernel.CodeOf(err))

	// A plain retire of the sandbox, written by hand, breaks the rule.
	m, err := kernel.Retire(v, "sb-1", kernel.StatusRetired, kernel.Evidence{Agent: "ops", Rationale: "done"}, env)
	require.NoError(t, err)
	changes, err := kernel.MutationChanges(v, m)
	require.NoError(t, err)
	vs := kernel.CheckExecution(m.Op, m.Trailers, changes, v, alice, kernel.ExecutionLimits{})
	require.Len(t, vs, 1)
	assert.Equal(t, kernel.RuleSandbox, vs[0].Rule)

	// Forced: each open record force-closed with a receipt, in the commit
	// that retires the sandbox; any principal the policy allows.
	m = land(t, v, bob)(kernel.RetireSandbox(v, "sb-1", true, kernel.ManageInput{Agent: "ops", Reason: "decommissioned"}, env))
	assert.Equal(t, kernel.OpForceClose, m.Op)
	assert.Len(t, trailerValues(m, kernel.TrailerCreator), 4)
	assert.Equal(t, kernel.StatusRetired, get(t, v, "sb-1").Status)
	all, _ := v.ExecutionRecords()
	for _, r := range all {
		assert.Equal(t, kernel.ExecForceClosed, r.Execution.State, r.ID)
	}
	_, err = kernel.Start(v, kernel.StartInput{Type: kernel.TypeRun, Title: "Late", Session: "s-1", Agent: "a", Owner: kernel.Owner{SandboxName: "sb-1"}}, env)
	require.NoError(t, err, "the op resolves the sandbox; the rule refuses a retired one")
}

func TestExecutionFieldsOnlyOnExecutionRecords(t *testing.T) {
	v := newMemView()
	_, err := kernel.Create(v, kernel.CreateInput{Type: "concept", Title: "C", Body: "b", Category: "a", Provenance: kernel.Provenance{Agent: "a"},
		Owner: &kernel.Owner{SessionKey: "s"}}, execEnv(alice))
	assert.Equal(t, kernel.CodeInvalidRecord, kernel.CodeOf(err))
	_, err = kernel.Create(v, kernel.CreateInput{Type: kernel.TypeRun, Title: "R", Body: "b", Category: "a", Provenance: kernel.Provenance{Agent: "a"}}, execEnv(alice))
	assert.Equal(t, kernel.CodeMissingEvidence, kernel.CodeOf(err), "an execution record needs an owner")
	_, err = kernel.Start(v, kernel.StartInput{Type: kernel.TypeRun, Title: "R", Agent: "a"}, execEnv(alice))
	assert.Equal(t, kernel.CodeMissingEvidence, kernel.CodeOf(err), "a start needs the session")
}

// TestChildWorkIsTheRunOwners: starting a child under a run is managing
// the run, so only its owner (signer and session) may. Another signer, or
// the owner's key in another session, is refused with NOT_OWNER, however
// the session it names is spelt.
func TestChildWorkIsTheRunOwners(t *testing.T) {
	v, run, _, _, _ := runTree(t)
	for _, c := range []struct {
		name, principal, session string
	}{{"another signer naming the owner's session", bob, "s-1"}, {"the owner's key in another session", alice, "s-2"}} {
		t.Run(c.name, func(t *testing.T) {
			m, err := kernel.Start(v, kernel.StartInput{Type: kernel.TypeChildRun, Title: "Squat", Session: c.session, Agent: "mallory", ParentJob: run}, execEnv(c.principal))
			require.NoError(t, err, "the op decides; the rule judges")
			changes, err := kernel.MutationChanges(v, m)
			require.NoError(t, err)
			vs := kernel.CheckExecution(m.Op, m.Trailers, changes, v, c.principal, kernel.ExecutionLimits{})
			require.Len(t, vs, 1, "%v", vs)
			assert.Equal(t, kernel.RuleOwnership, vs[0].Rule)
			assert.Contains(t, vs[0].Message, "run "+run+` is owned by alice@example.com (session "s-1")`)
			assert.Equal(t, kernel.CodeNotOwner, kernel.CodeOf(kernel.ExecutionError(vs)))
		})
	}
	start(t, v, kernel.StartInput{Type: kernel.TypeChildRun, Title: "Mine", Session: "s-1", ParentJob: run})
}

// TestForeignRecordsUnderARun: a store may hold another principal's
// children under a run, written before starting one needed the run's
// owner, in the owner's session string. They neither fill the run's
// max_children, nor block its end-run or its session's close, nor show in
// its carry-over; they stay open, bob's to manage.
func TestForeignRecordsUnderARun(t *testing.T) {
	v, run, child1, _, _ := runTree(t) // three open children of alice's
	var squat []string
	for i := range 2 {
		m, err := kernel.Start(v, kernel.StartInput{Type: kernel.TypeChildRun, Title: fmt.Sprint("Squat ", i), Session: "s-1", Agent: "mallory", ParentJob: run}, execEnv(bob))
		require.NoError(t, err)
		v.commit(m) // as an old store holds it: no rule judged it
		squat = append(squat, m.Writes[0].ID)
	}
	assert.Equal(t, &kernel.Owner{Principal: bob, SessionKey: "s-1", AgentID: "planner", SandboxName: "sb-1"}, get(t, v, squat[0]).Owner)

	m, err := kernel.Start(v, kernel.StartInput{Type: kernel.TypeChildRun, Title: "Four", Session: "s-1", Agent: "planner", ParentJob: run}, execEnv(alice))
	require.NoError(t, err)
	changes, err := kernel.MutationChanges(v, m)
	require.NoError(t, err)
	assert.Empty(t, kernel.CheckExecution(m.Op, m.Trailers, changes, v, alice, kernel.ExecutionLimits{MaxChildren: 4}), "bob's two do not count")
	vs := kernel.CheckExecution(m.Op, m.Trailers, changes, v, alice, kernel.ExecutionLimits{MaxChildren: 3})
	require.Len(t, vs, 1)
	assert.Contains(t, vs[0].Message, "already has 3 open children")

	co, err := kernel.Continue(v, alice, "s-1")
	require.NoError(t, err)
	assert.Len(t, co.Open, 4, "the run and its three children, not bob's")
	co, err = kernel.Continue(v, bob, "s-1")
	require.NoError(t, err)
	assert.Len(t, co.Open, 2, "bob's carry-over is his")

	_, err = kernel.EndRun(v, run, kernel.ManageInput{Agent: "mallory", Session: "s-1"}, execEnv(bob))
	assert.Equal(t, kernel.CodeNotOwner, kernel.CodeOf(err), "bob does not end alice's run: %v", err)
	m = land(t, v, alice)(kernel.EndRun(v, run, kernel.ManageInput{Agent: "planner", Session: "s-1"}, execEnv(alice)))
	assert.Equal(t, []string{child1}, kernel.SortedIDs(m.Writes), "alice's child that cleans up on run end, not bob's")
	land(t, v, alice)(kernel.Manage(v, kernel.OpClose, run, kernel.ManageInput{Agent: "planner", Session: "s-1", State: kernel.ExecCompleted}, execEnv(alice)))
	m = land(t, v, alice)(kernel.EndSession(v, kernel.ManageInput{Agent: "planner", Session: "s-1", State: kernel.ExecTerminated}, execEnv(alice)))
	assert.Len(t, m.Writes, 2, "alice's two survivors")
	for _, id := range squat {
		assert.True(t, get(t, v, id).IsOpen(), "%s stays open", id)
		assert.NoError(t, kernel.CheckAwait(get(t, v, id), bob, "s-1"))
		assert.Equal(t, kernel.CodeNotOwner, kernel.CodeOf(kernel.CheckAwait(get(t, v, id), alice, "s-1")), "the session alone is not ownership")
	}
}
