package hooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// TestTrustComesFromTheBranchItLandsOn: carol branches from before her key
// is removed (or she is demoted), commits on her branch, then merges the
// current branch in, with her branch as the first parent or the second.
// The server refuses the push either way, verify fails, and log does not
// call the merge signed by a removed key good: a merge is judged under the
// newest trust either parent carries.
func TestTrustComesFromTheBranchItLandsOn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, change := range []string{"demotion", "removed key"} {
		t.Run(change, func(t *testing.T) {
			if change == "demotion" {
				w.maintain(t, "policy", "set", fixturePath(t, "policy-carol-maintainer.yaml"), "--rationale", "carol maintains for a while", "--agent", userEmail)
			}
			dir := w.carolClone(t)
			git(t, dir, "branch", "side", "records")
			side := []string{"--ref", "refs/heads/side"}
			rule, says := "policy", "is signed by a key the current allowed_signers does not trust"
			if change == "demotion" {
				// What only a maintainer may do.
				mustRec(t, dir, append(side, "retire", w.concept, "--rationale", "I say so", "--agent", "carol")...)
				rule, says = "policy", carol+" may no longer retire concept "+w.concept
			} else {
				create(t, dir, append(side, "--type", "review.finding", "--title", "Mine", "--category", "eng.auth", "--agent", "carol", "--body", "b")...)
			}
			git(t, dir, "branch", "carol-side", "side")
			if change == "demotion" {
				w.maintain(t, "policy", "set", fixturePath(t, "policy.yaml"), "--rationale", "carol contributes again", "--agent", userEmail)
			} else {
				w.removeSigner(t, carol)
			}

			for _, sideFirst := range []bool{true, false} {
				name := "her branch second"
				if sideFirst {
					name = "her branch first"
				}
				t.Run(name, func(t *testing.T) {
					// Her branch first: carol merges the current branch
					// into hers and pushes that. Her branch second: the
					// maintainer merges her branch into the current one.
					at, ref, into := dir, "refs/heads/side", "origin/records"
					if sideFirst {
						git(t, dir, "fetch", "-q", "origin")
					} else {
						at, ref, into = w.origin, "refs/heads/records", "carol-side"
						git(t, w.origin, "fetch", "-q", dir, "+carol-side:carol-side")
						defer git(t, w.origin, "update-ref", "refs/heads/records", w.serverTip(t))
					}
					// The merge is judged under the newest trust before it
					// is written, as verify judges it: git records merge
					// refuses it. A client that skips that judgment writes
					// it anyway, for the server and verify to refuse.
					r := rec(t, at, "--ref", ref, "merge", into, "--agent", "merger")
					require.Equal(t, 4, r.code, "%s", r)
					if change == "removed key" && sideFirst {
						assert.Contains(t, r.stderr, "is not in .records/allowed_signers")
					} else {
						assert.Contains(t, r.stderr, says)
					}
					mergeUngated(t, at, ref, into)
					merge := revParse(t, at, ref)
					parents := strings.Fields(git(t, at, "log", "-1", "--format=%P", merge))
					require.Len(t, parents, 2, "a merge commit")

					before := w.serverTip(t)
					r = run(t, at, "", nil, "git", "push", w.server, merge+":refs/heads/records")
					requireRejected(t, r, rule, says)
					assert.Equal(t, before, w.serverTip(t))

					v := rec(t, at, "--ref", ref, "verify")
					assert.Equal(t, 1, v.code, "verify must fail:\n%s", v)
					assert.Contains(t, v.stdout, says)

					if change == "removed key" && sideFirst {
						log := mustJSON[[]obj](t, at, "--ref", ref, "log", "-n", "1")
						require.Len(t, log, 1)
						assert.Equal(t, merge, log[0]["commit"])
						assert.NotEqual(t, "good", log[0]["signature"], "a merge signed by a removed key is not good: %v", log[0])
					}
				})
			}
		})
	}
}

// mergeUngated merges rev into ref in dir without the write loop's
// judgment: what a client that skips it (an old or modified binary)
// writes, signed with the key dir's git config names.
func mergeUngated(t testing.TB, dir, ref, rev string) {
	t.Helper()
	s, err := gitstore.Open(dir, gitstore.Options{Ref: ref, Ungated: true})
	require.NoError(t, err)
	defer s.Close()
	other, err := s.ResolveRev(rev)
	require.NoError(t, err)
	out, err := s.Merge(other, "merger")
	require.NoError(t, err)
	require.Equal(t, "merged", out.Kind)
}

// maintain runs a git-records command as the maintainer in origin and
// pushes the records branch to the server.
func (w *world) maintain(t testing.TB, args ...string) {
	t.Helper()
	mustRec(t, w.origin, args...)
	r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)
}

// removeSigner has the maintainer drop a principal's lines from
// allowed_signers in a policy commit, and pushes it.
func (w *world) removeSigner(t testing.TB, principal string) {
	t.Helper()
	mutateAs(t, w.origin, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		cur, err := v.(kernel.Snapshot).ReadFile(kernel.AllowedSignersPath)
		if err != nil {
			return nil, err
		}
		var kept []string
		for _, l := range strings.SplitAfter(string(cur), "\n") {
			if !strings.HasPrefix(l, principal+" ") {
				kept = append(kept, l)
			}
		}
		return kernel.ChangePolicy(map[string][]byte{gitstore.AllowedSignersPath: []byte(strings.Join(kept, ""))},
			kernel.Evidence{Agent: userEmail, Rationale: "revoke " + principal})
	})
	r := run(t, w.origin, "", nil, "git", "push", w.server, "records")
	require.Equal(t, 0, r.code, "%s", r)
}
