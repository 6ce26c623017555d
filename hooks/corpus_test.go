package hooks_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

// corpusCommit is one commit of the corpus: where it is, what it is, and
// whether it is valid.
type corpusCommit struct {
	name, dir, commit string
	valid             bool
}

// TestWritePathAndVerifyAgree: one corpus of commits, valid and forged, is
// judged by the write path's pre-land judgment (gitstore.JudgeLanding: the
// facts the write loop gathers for a commit it is about to land) and by
// verify (the facts the hooks gather from git), and both name the same
// rules for each: the same judgment on the same facts. The forgeries are
// the ones the push tests build (an unsigned edit, an edit without its log
// entry, two Record-Op trailers, a signer added by a contributor, an
// executable record file, a stray file, a record that does not parse, a
// field the evidence does not name, a hijacked id) and each break the
// judgment closed (two records with one id in one commit and through a
// merge, a contributor's relation that supersedes).
func TestWritePathAndVerifyAgree(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var corpus []corpusCommit
	add := func(name, dir, commit string, valid bool) {
		corpus = append(corpus, corpusCommit{name, dir, commit, valid})
	}

	// Commits by hand on a checked-out records branch, each on the tip.
	dir := w.clone(t)
	base := revParse(t, dir, "HEAD")
	hand := func(name string, valid bool, key string, change func(t *testing.T), msg string) {
		git(t, dir, "reset", "-q", "--hard", base)
		git(t, dir, "clean", "-qfd")
		change(t)
		add(name, dir, commit(t, dir, key, msg), valid)
	}
	newFile := func(t *testing.T, id, typ string) {
		data, err := os.ReadFile(recordFile(t, dir, w.concept))
		require.NoError(t, err)
		s := replace(t, strings.ReplaceAll(string(data), w.concept, id), "type: concept", "type: "+typ)
		path := filepath.Join(dir, "records", typ, idShard(id), id+".md")
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	}
	createMsg := func(ids ...string) string {
		ts := []string{"Record-Op: create"}
		for _, id := range ids {
			ts = append(ts, "Record-Id: "+id)
		}
		return handMsg("create(concept): by hand", append(ts, "Record-Agent: hand-editor", "Record-Format: 1")...)
	}
	hand("a hand update", true, w.key, func(t *testing.T) { w.editBody(t, dir) }, w.updateMsg())
	hand("an unsigned edit", false, "", func(t *testing.T) { w.editBody(t, dir) }, w.updateMsg())
	hand("an edit without its log entry", false, w.key, func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string { return s + "\nNo entry." })
	}, w.updateMsg())
	hand("two Record-Op trailers", false, w.key, func(t *testing.T) { w.editBody(t, dir) }, w.updateMsg("Record-Op: create"))
	hand("an executable record file", false, w.key, func(t *testing.T) {
		w.editBody(t, dir)
		require.NoError(t, os.Chmod(recordFile(t, dir, w.concept), 0o755))
	}, w.updateMsg())
	hand("a stray file", false, w.key, func(t *testing.T) {
		w.editBody(t, dir)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("hi\n"), 0o644))
	}, w.updateMsg())
	hand("a record that does not parse", false, w.key, func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string { return replace(t, s, "title: Token refresh", "title: [unclosed") })
	}, w.updateMsg())
	hand("a field the evidence does not name", false, w.key, func(t *testing.T) {
		edit(t, recordFile(t, dir, w.concept), func(s string) string {
			return appendLog(t, replace(t, s, "authority: local", "authority: external"), updateEntry) + "\nDrift."
		})
	}, w.updateMsg())
	hand("an update that changes the policy", false, w.key, func(t *testing.T) {
		w.editBody(t, dir)
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".records", "policy.yaml"), []byte(fixture(t, "policy-carol-maintainer.yaml")), 0o644))
	}, w.updateMsg())
	hand("a signer added by a contributor", false, carolKey, func(t *testing.T) {
		pub, err := os.ReadFile(malloryKey + ".pub")
		require.NoError(t, err)
		f, err := os.OpenFile(filepath.Join(dir, ".records", "allowed_signers"), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString("mallory@example.com " + strings.TrimSpace(string(pub)) + "\n")
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}, handMsg("policy(store): add mallory", "Record-Op: policy", "Record-Agent: carol", "Record-Format: 1", "Evidence-Rationale: she helps"))
	hand("a new record with an id another type holds", false, w.key, func(t *testing.T) { newFile(t, w.concept, "raw") }, createMsg(w.concept))
	hand("two new records of one commit with one id", false, w.key, func(t *testing.T) {
		newFile(t, "rfc-1", "concept")
		newFile(t, "rfc-1", "decision")
	}, createMsg("rfc-1", "rfc-1"))
	hand("a new record", true, w.key, func(t *testing.T) { newFile(t, "rfc-2", "concept") }, createMsg("rfc-2"))

	// Two branches that each create dup-1 under another type, merged with
	// plain git either way round; and a merge of two that do not clash.
	side := func(id, typ string) string {
		git(t, dir, "reset", "-q", "--hard", base)
		git(t, dir, "clean", "-qfd")
		newFile(t, id, typ)
		return commit(t, dir, w.key, createMsg(id))
	}
	merge := func(name string, valid bool, ours, theirs string) {
		git(t, dir, "reset", "-q", "--hard", ours)
		git(t, dir, "merge", "-q", "--no-ff", "--no-commit", "--no-verify", theirs)
		var ids []string
		for _, l := range strings.Fields(git(t, dir, "diff", "--cached", "--name-only", "HEAD")) {
			if strings.HasPrefix(l, "records/") {
				ids = append(ids, "Record-Id: "+strings.TrimSuffix(filepath.Base(l), ".md"))
			}
		}
		msg := handMsg("merge(records): side", append(append([]string{"Record-Op: merge"}, ids...),
			"Record-Agent: merger", "Record-Format: 1", "Evidence-Merged-From: "+theirs)...)
		add(name, dir, commit(t, dir, w.key, msg), valid)
	}
	concept, decision, other := side("dup-1", "concept"), side("dup-1", "decision"), side("solo-1", "concept")
	merge("a merge bringing in an id the first parent holds", false, concept, decision)
	merge("the same merge, the other parent first", false, decision, concept)
	merge("a merge of records with their own ids", true, concept, other)

	// Ops a contributor may not write, written by a client that skips the
	// write path's judgment.
	carolDir := w.carolClone(t)
	add("a contributor's relation that supersedes", carolDir, mutateAs(t, carolDir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Create(v, kernel.CreateInput{Type: "relation", Title: "finding supersedes concept", Body: "Replaced.", Category: "eng.auth",
			From: w.finding, To: w.concept, Relation: "supersedes", Provenance: kernel.Provenance{Agent: "carol"}}, env)
	}), false)
	add("a contributor's supersedes link", carolDir, mutateAs(t, carolDir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.LinkRecords(v, w.finding, []kernel.Link{{TargetID: w.concept, Kind: kernel.LinkSupersedes}}, kernel.Evidence{Agent: "carol"}, env)
	}), false)
	add("a contributor's create", carolDir, mutateAs(t, carolDir, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Create(v, kernel.CreateInput{Type: "concept", Title: "Carol's", Body: "b", Category: "eng", Provenance: kernel.Provenance{Agent: "carol"}}, env)
	}), true)

	now := time.Now()
	stores := map[string]*gitstore.Store{}
	for _, c := range corpus {
		s := stores[c.dir]
		if s == nil {
			var err error
			s, err = gitstore.Open(c.dir, gitstore.Options{})
			require.NoError(t, err)
			defer s.Close()
			stores[c.dir] = s
		}
		h := plumbing.NewHash(c.commit)
		rep, err := hooks.Verify(s, []plumbing.Hash{h}, hooks.Options{Now: now})
		require.NoError(t, err, c.name)
		var verified []string
		for _, f := range rep.Violations {
			verified = append(verified, f.Rule)
		}
		sig, err := hooks.LandingSignature(s, h)
		require.NoError(t, err, c.name)
		judged, err := s.JudgeLanding(h, sig, now)
		require.NoError(t, err, c.name)
		var landed []string
		for _, v := range judged.Violations {
			if !v.Warning {
				landed = append(landed, v.Rule)
			}
		}
		sort.Strings(verified)
		sort.Strings(landed)
		assert.Equal(t, verified, landed, "%s: verify found %v, the write path's judgment %v", c.name, rep.Violations, judged.Violations)
		if c.valid {
			assert.Empty(t, verified, "%s is valid", c.name)
		} else {
			assert.NotEmpty(t, verified, "%s is refused", c.name)
		}
	}
}
