package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// Attacks on group commit (group.go): ops that each pass alone but
// conflict together, rules that an earlier op of the group changes, a lost
// race, an op that panics. A group must decide every op as the same ops
// written one after another would be.

// groupOps are ops on a store seeded with record "seed-r": pairs that
// each pass alone and conflict together, and rules (policy, allowed
// signers, execution ownership) changed by an earlier op of the group.
func groupOps(t *testing.T, otherSigner string) []Decision {
	policy := func(files map[string][]byte) Decision {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.ChangePolicy(files, kernel.Evidence{Agent: testAgent, Rationale: "tighten"})
		}
	}
	retire := func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Retire(v, "seed-r", kernel.StatusRetired, kernel.Evidence{Agent: testAgent, Rationale: "gone"}, env)
	}
	manage := func(session string) Decision {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Manage(v, kernel.OpCancel, "run-1", kernel.ManageInput{Agent: testAgent, Session: session, Reason: "stop"}, env)
		}
	}
	return []Decision{
		createOp(kernel.CreateInput{ID: "twice", Title: "first"}),
		createOp(kernel.CreateInput{ID: "twice", Title: "second"}), // the same id, created earlier in the group
		// Aliases, links and supersession resolve through the index, which
		// the group moves op by op.
		createOp(kernel.CreateInput{ID: "al-1", Title: "aliased", Aliases: []string{"shared-alias"}}),
		createOp(kernel.CreateInput{ID: "al-2", Title: "same alias", Aliases: []string{"shared-alias"}}),
		func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, "shared-alias", kernel.UpdateFields{Title: ptr("renamed by alias")}, ev(), env)
		},
		func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.LinkRecords(v, "seed-r", []kernel.Link{{TargetID: "twice", Kind: kernel.LinkRelated}}, ev(), env)
		},
		func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.LinkRecords(v, "seed-r", []kernel.Link{{TargetID: "twice", Kind: kernel.LinkRelated}}, ev(), env) // already linked
		},
		func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Supersede(v, "twice", []string{"shared-alias"}, kernel.Evidence{Agent: testAgent, Rationale: "merged"}, env)
		},
		func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Supersede(v, "twice", []string{"al-1"}, kernel.Evidence{Agent: testAgent, Rationale: "again"}, env) // superseded earlier in the group
		},
		retire,
		retire, // retired earlier in the group
		func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, "seed-r", kernel.UpdateFields{Title: ptr("after retirement")}, ev(), env)
		},
		func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Start(v, kernel.StartInput{Type: kernel.TypeRun, ID: "run-1", Title: "A run", Agent: testAgent, Session: "s-1"}, env)
		},
		manage("s-2"), // not the owner's session
		manage("s-1"),
		policy(map[string][]byte{PolicyPath: []byte("version: 1\nrules:\n  - profile: maintainer\n  - category: secret\n    profile: read-only\n")}),
		createOp(kernel.CreateInput{Title: "forbidden by the policy before it", Category: "secret"}),
		createOp(kernel.CreateInput{Title: "allowed", Category: "open"}),
		policy(map[string][]byte{AllowedSignersPath: []byte(otherSigner + "\n")}), // our key leaves the allowed signers
		createOp(kernel.CreateInput{Title: "signed by a key no longer allowed"}),
	}
}

// seededStore is a store with record seed-r and ids handed out in order.
func seededStore(t *testing.T) *Store {
	s := newTestStore(t, Options{NewID: fixedIDs(idSeq(40)...)})
	create(t, s, kernel.CreateInput{ID: "seed-r", Title: "Seed"})
	return s
}

func idSeq(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("gen%02dxxxxxxxxxxxxxxxxxxxxxx", i)
	}
	return ids
}

// otherSignerLine is an allowed-signers line for a key that is not the
// store's.
func otherSignerLine(t *testing.T) string {
	key := filepath.Join(t.TempDir(), "other")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", key).CombinedOutput()
	require.NoError(t, err, "%s", out)
	pub, err := os.ReadFile(key + ".pub")
	require.NoError(t, err)
	return "other@example.com " + strings.TrimSpace(string(pub))
}

// outcome is what an op's caller heard: its error code ("" when it
// landed) and whether it made a commit.
func outcome(w *Written, err error) string {
	if err != nil {
		return string(kernel.CodeOf(err))
	}
	if w == nil || w.Commit.IsZero() {
		return "nothing"
	}
	return "landed"
}

// TestGroupDecidesAsOneAfterAnother: the same ops, written one at a time
// on one store and as one group on another, are answered the same, land
// the same records, and each refused op refuses only itself.
func TestGroupDecidesAsOneAfterAnother(t *testing.T) {
	t.Parallel()
	signer := otherSignerLine(t)
	serial, grouped := seededStore(t), seededStore(t)
	var want, got []string
	for _, op := range groupOps(t, signer) {
		w, err := serial.Mutate(op)
		want = append(want, outcome(w, err))
	}
	var reqs []*writeRequest
	for _, op := range groupOps(t, signer) {
		reqs = append(reqs, &writeRequest{call: Call{Op: "op"}, decide: planOf(op), start: time.Now()})
	}
	require.Empty(t, grouped.runGroup(reqs))
	for _, r := range reqs {
		require.True(t, r.done)
		got = append(got, outcome(r.w, r.err))
	}
	require.Equal(t, []string{
		"landed", string(kernel.CodeIDConflict),
		"landed", string(kernel.CodeSlugConflict), "landed", "landed", "nothing", "landed", "landed",
		"landed", string(kernel.CodeMissingEvidence), "landed",
		"landed", string(kernel.CodeNotOwner), "landed",
		"landed", string(kernel.CodePermissionDenied), "landed",
		"landed", string(kernel.CodePermissionDenied),
	}, want, "written one at a time")
	require.Equal(t, want, got, "written as one group, each op is answered as one at a time")

	// The same records at both tips, each op its own commit.
	for _, id := range []string{"twice", "seed-r", "run-1", "al-1"} {
		a, b := get(t, serial, id), get(t, grouped, id)
		require.Equal(t, a.Title, b.Title, id)
		require.Equal(t, a.Status, b.Status, id)
		require.Equal(t, a.Execution, b.Execution, id)
		require.Equal(t, len(a.MutationLog), len(b.MutationLog), id)
	}
	count := func(s *Store) string { return git(t, gitDir(s), "rev-list", "--count", s.ref) }
	require.Equal(t, count(serial), count(grouped))
	requireFsckClean(t, gitDir(grouped))
}

// ensureOp creates id unless a record with it exists: an op whose answer
// (nothing to do) depends on what an earlier op of its group wrote.
func ensureOp(id, category string) Decision {
	return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		if r, err := v.(*View).Record(id); err == nil && r != nil {
			return nil, nil
		}
		return createOp(kernel.CreateInput{ID: id, Title: "ensured", Category: category})(v, env)
	}
}

// An op refused or changing nothing because of an earlier op of its group
// is not answered before that op lands: when the group loses a race and
// the earlier op is refused on the new tip, the later one is decided
// again there, instead of having been told of a record that never landed.
func TestGroupHeldAnswersFollowTheGroup(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	rival := reopen(t, s)
	raced := false
	first := planOf(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		if !raced {
			raced = true
			// The rival forbids the category of the first op.
			mutate(t, rival, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.ChangePolicy(map[string][]byte{PolicyPath: []byte("version: 1\nrules:\n  - profile: maintainer\n  - category: secret\n    profile: read-only\n")},
					kernel.Evidence{Agent: testAgent, Rationale: "close secret"})
			})
		}
		return createOp(kernel.CreateInput{ID: "shared-id", Title: "secret", Category: "secret"})(v, env)
	})
	reqs := []*writeRequest{
		{call: Call{Op: "create"}, decide: first},
		{call: Call{Op: "create"}, decide: planOf(ensureOp("shared-id", "open"))},
		{call: Call{Op: "create"}, decide: planOf(createOp(kernel.CreateInput{ID: "shared-id", Title: "again", Category: "open"}))},
	}
	require.Empty(t, s.runGroup(reqs))
	requireCode(t, reqs[0].err, kernel.CodePermissionDenied)
	require.NoError(t, reqs[1].err, "decided again on the tip the group landed on")
	require.False(t, reqs[1].w.Commit.IsZero(), "the record the first op would have written never landed: the second creates it")
	requireCode(t, reqs[2].err, kernel.CodeIDConflict)
	require.Equal(t, "ensured", get(t, reopen(t, s), "shared-id").Title)
}

// A group that loses its race after it was cut short (an op that must go
// alone, a fast-forward here) keeps the ops it left for the next group:
// none is lost.
func TestGroupLostRaceKeepsOpsLeftForLater(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	rival := reopen(t, s)
	raced := false
	first := planOf(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		if !raced {
			raced = true
			mutate(t, rival, createOp(kernel.CreateInput{Title: "rival"}))
		}
		return createOp(kernel.CreateInput{Title: "A"})(v, env)
	})
	stay := func(v *View, env kernel.Env) (*plannedWrite, error) { return &plannedWrite{moveTo: v.tip}, nil }
	reqs := []*writeRequest{
		{call: Call{Op: "create"}, decide: first},
		{call: Call{Op: "sync"}, decide: stay},
		{call: Call{Op: "create"}, decide: planOf(createOp(kernel.CreateInput{Title: "C"}))},
	}
	later := s.runGroup(reqs)
	require.NoError(t, reqs[0].err)
	require.Equal(t, 2, reqs[0].w.Attempts, "the first op lost a race")
	require.Len(t, later, 2, "the ops after the fast-forward wait for the next group")
	require.Same(t, reqs[1], later[0])
	require.Same(t, reqs[2], later[1])
	for len(later) > 0 {
		later = s.runGroup(later)
	}
	for _, r := range reqs {
		require.True(t, r.done)
		require.NoError(t, r.err)
	}
	titles := requireBranchWhole(t, s)
	require.Equal(t, map[string]int{"rival": 1, "A": 1, "C": 1}, titles)
}

// An op whose decision panics fails alone: the panic reaches its own
// caller, and the other ops of its group land and are answered.
func TestGroupPanickingOpFailsAlone(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	var mu sync.Mutex
	s.ShareWrites(&mu)
	const writers = 6
	var wg sync.WaitGroup
	panics := make(chan any, writers)
	errs := make(chan error, writers)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					mu.Unlock() // the front-end's lock, held when the panic reached it
					panics <- p
				}
			}()
			op := createOp(kernel.CreateInput{Title: fmt.Sprintf("writer %d", g)})
			if g%3 == 1 {
				op = func(kernel.View, kernel.Env) (*kernel.Mutation, error) { panic(fmt.Sprintf("op %d panics", g)) }
			}
			mu.Lock()
			_, err := s.Mutate(op)
			mu.Unlock()
			errs <- err
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("writers still waiting a minute after a panicking op")
	}
	close(panics)
	close(errs)
	var got []string
	for p := range panics {
		got = append(got, fmt.Sprint(p))
	}
	require.ElementsMatch(t, []string{"op 1 panics", "op 4 panics"}, got, "each panic reaches its own caller")
	for err := range errs {
		require.NoError(t, err)
	}
	titles := requireBranchWhole(t, s)
	require.Len(t, titles, writers-2)
	log, err := s.ReadAudit(time.Time{})
	require.NoError(t, err)
	failed := 0
	for _, l := range log.Lines {
		if l.Result == kernel.AuditFailed {
			failed++
		}
	}
	require.Equal(t, 2, failed, "a panicking op has its audit line")
}

// A group that fails (here: out of compare-and-swap attempts) answers its
// built ops with the failure, and decides its held ops again in the next
// group: they were decided on commits that never landed.
func TestGroupFailedGroupDecidesHeldOpsAgain(t *testing.T) {
	t.Parallel()
	s := newTestStore(t, Options{MaxRetries: 1})
	rival := reopen(t, s)
	first := planOf(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		mutate(t, rival, createOp(kernel.CreateInput{Title: "rival"}))
		return createOp(kernel.CreateInput{ID: "shared-id", Title: "first"})(v, env)
	})
	reqs := []*writeRequest{
		{call: Call{Op: "create"}, decide: first},
		{call: Call{Op: "create"}, decide: planOf(ensureOp("shared-id", "open"))},
	}
	later := s.runGroup(reqs)
	requireCode(t, reqs[0].err, kernel.CodeConflict)
	require.False(t, reqs[1].done, "held on a commit that did not land")
	require.Len(t, later, 1)
	require.Same(t, reqs[1], later[0])
	require.Empty(t, s.runGroup(later))
	require.NoError(t, reqs[1].err)
	require.False(t, reqs[1].w.Commit.IsZero(), "decided again, it creates the record")
	require.Equal(t, "ensured", get(t, reopen(t, s), "shared-id").Title)
}
