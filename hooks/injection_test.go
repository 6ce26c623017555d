package hooks_test

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// TestTrailerInjection: free text that tries to forge a trailer, in every
// free-text input of every op that takes one, is either refused (the ref
// does not move) or escaped, so that git, reading the commits the way
// reviewers and hooks do (git log's %(trailers), the parser of git
// interpret-trailers), sees exactly the trailers the op wrote; the store's
// own history reads the same ops, and verify accepts every commit. The ops
// run in-process through the gated write path every front-end calls; the
// CLI's mapping of flags to these inputs is pkg/cmd/root's TestTrailerInjection.
func TestTrailerInjection(t *testing.T) {
	t.Parallel()
	dir := initStore(t)
	s, err := gitstore.Open(dir, gitstore.Options{})
	require.NoError(t, err)
	defer s.Close()
	write := func(decide gitstore.Decision) (*gitstore.Written, error) {
		return s.MutateApproved(decide, kernel.Approval{})
	}
	mustWrite := func(decide gitstore.Decision) {
		t.Helper()
		w, err := write(decide)
		require.NoError(t, err)
		require.False(t, w.Commit.IsZero())
	}
	createIn := func(in kernel.CreateInput) gitstore.Decision {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) { return kernel.Create(v, in, env) }
	}
	propose := func(text string) gitstore.Decision {
		return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Propose(v, "victim", "prop", kernel.Evidence{Agent: "a", Proposal: text}, env)
		}
	}
	mustWrite(createIn(kernel.CreateInput{ID: "seed-raw", Type: "raw", Title: "Seed", Category: "c", Body: "b", Provenance: kernel.Provenance{Agent: "a"}}))
	mustWrite(createIn(kernel.CreateInput{ID: "victim", Type: "concept", Title: "Victim", Category: "c", Body: "b", Provenance: kernel.Provenance{Agent: "a"}}))
	mustWrite(createIn(kernel.CreateInput{ID: "prop", Type: "concept", Title: "Prop", Category: "c", Body: "b", Provenance: kernel.Provenance{Agent: "a"}}))
	mustWrite(propose("p"))

	forged := []string{
		"x\nRecord-Op: apply",
		"x\r\nRecord-Op: apply",
		"x\n\nRecord-Op: apply\nRecord-Id: forged",
		"Record-Op: apply\n---",
		"Record-Op: apply\n---\t\nmore",
		"x\x0b\nRecord-Op: apply\x7f",
	}
	// Each op with the forged text in the free-text inputs its command
	// takes (title, --note, --session, --proposal, --rationale, the new
	// body, --reason).
	injections := []struct {
		op     string
		decide func(v string) gitstore.Decision
	}{
		{"create", func(v string) gitstore.Decision {
			return createIn(kernel.CreateInput{Type: "concept", Title: v, Category: "c", Body: "b", Provenance: kernel.Provenance{Agent: "a"}})
		}},
		{"create", func(v string) gitstore.Decision {
			return createIn(kernel.CreateInput{Type: "concept", Title: "t", Category: "c", Body: "b", Provenance: kernel.Provenance{Agent: "a", Note: v}, CommitNote: v})
		}},
		{"create", func(v string) gitstore.Decision {
			return createIn(kernel.CreateInput{Type: "concept", Title: "t", Category: "c", Body: "b", Provenance: kernel.Provenance{Agent: "a", SessionID: v}})
		}},
		{"update", func(v string) gitstore.Decision {
			title := "t " + v
			return func(vw kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Update(vw, "victim", kernel.UpdateFields{Title: &title}, kernel.Evidence{Agent: "a", Note: v}, env)
			}
		}},
		{"propose", func(v string) gitstore.Decision {
			return func(vw kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Propose(vw, "victim", "prop", kernel.Evidence{Agent: "a", Proposal: v, Note: v}, env)
			}
		}},
		{"apply", func(v string) gitstore.Decision {
			return func(vw kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Apply(vw, "victim", "prop", kernel.Evidence{Agent: "a", Rationale: v, NewBody: "new " + v}, env)
			}
		}},
		{"reject", func(v string) gitstore.Decision {
			return func(vw kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Reject(vw, "victim", "prop", kernel.Evidence{Agent: "a", Reason: v}, env)
			}
		}},
		{"supersede", func(v string) gitstore.Decision {
			return func(vw kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Supersede(vw, "victim", []string{"seed-raw"}, kernel.Evidence{Agent: "a", Rationale: v, Note: v}, env)
			}
		}},
	}
	type written struct{ commit, op string }
	var wrote []written // oldest first
	refused := 0
	for _, v := range forged {
		for _, inj := range injections {
			before, err := s.Tip()
			require.NoError(t, err)
			w, err := write(inj.decide(v))
			if err != nil {
				assert.Contains(t, []kernel.Code{kernel.CodeInvalidRecord, kernel.CodeMissingEvidence}, kernel.CodeOf(err), "%s of %q: %v", inj.op, v, err)
				after, tipErr := s.Tip()
				require.NoError(t, tipErr)
				assert.Equal(t, before, after, "%s of %q was refused and moved nothing", inj.op, v)
				refused++
				continue
			}
			require.False(t, w.Commit.IsZero(), "%s of %q", inj.op, v)
			wrote = append(wrote, written{w.Commit.String(), inj.op})
		}
		// A forged apply must never have happened: the proposal is still
		// pending, or was settled by the real apply or reject above; a new
		// one opens the next round.
		w, err := write(propose("again"))
		require.NoError(t, err)
		wrote = append(wrote, written{w.Commit.String(), "propose"})
	}
	require.Greater(t, len(wrote), len(forged)*len(injections)/2, "most injections are escaped and written, not refused (%d refused)", refused)

	// git's trailer reader, commit by commit, in one git log.
	out := git(t, dir, "log", "--format=%H%x00%(trailers:only,unfold)%x1e", "refs/heads/records")
	byCommit := map[string][]string{}
	for _, entry := range strings.Split(out, "\x1e") {
		h, block, ok := strings.Cut(strings.TrimLeft(entry, "\n"), "\x00")
		if ok {
			byCommit[h] = strings.Split(strings.TrimSpace(block), "\n")
		}
	}
	for _, w := range wrote {
		got, ok := byCommit[w.commit]
		require.True(t, ok, "commit %s (%s) is on the branch", w.commit, w.op)
		assert.Equal(t, []string{w.op}, trailerValues(got, kernel.TrailerOp), "git reads a forged op in %s:\n%s", w.commit, strings.Join(got, "\n"))
		assert.NotContains(t, trailerValues(got, kernel.TrailerID), "forged", "%s", w.commit)
		for _, line := range got {
			assert.NotContains(t, line, "\r", "a trailer line of %s carries a raw CR", w.commit)
		}
	}

	// The store reads its history back the same way.
	history, err := s.History("", len(wrote))
	require.NoError(t, err)
	require.Len(t, history, len(wrote))
	for i, e := range history {
		want := wrote[len(wrote)-1-i]
		assert.Equal(t, want.commit, e.Commit)
		assert.Equal(t, want.op, e.Op, "%s", e.Commit)
	}

	git(t, dir, "fsck", "--strict", "--no-dangling", "--no-progress")
	var all []plumbing.Hash
	for _, h := range strings.Fields(git(t, dir, "rev-list", "--reverse", "refs/heads/records")) {
		all = append(all, plumbing.NewHash(h))
	}
	rep, err := hooks.Verify(s, all, hooks.Options{})
	require.NoError(t, err)
	assert.True(t, rep.OK, "verify accepts every commit: %+v", rep.Violations)
	assert.Equal(t, len(all), rep.Commits)
}
