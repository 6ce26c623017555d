package gitstore

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// layoutPath is the documented layout, computed here independently of
// RecordPath: records/<type>/<first byte of sha256(id) in hex>/<id>.md.
func layoutPath(typ, id string) string {
	sum := sha256.Sum256([]byte(id))
	return "records/" + typ + "/" + hex.EncodeToString(sum[:1]) + "/" + id + ".md"
}

func TestEveryOpIsOneSignedCommitOnTheTip(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	dir := gitDir(s)
	ids := map[string]string{}
	steps := []struct {
		name   string
		op     kernel.Op
		decide func() Decision
		writes []string // keys of ids, in the order the op writes them
	}{
		{"create a concept", kernel.OpCreate, func() Decision {
			return createOp(kernel.CreateInput{Title: "Token refresh", Aliases: []string{"token-refresh"}})
		}, []string{"concept"}},
		{"create a raw record", kernel.OpCreate, func() Decision {
			return createOp(kernel.CreateInput{Type: "raw", Title: "Incident report", Category: "incidents"})
		}, []string{"raw"}},
		{"create a compiled record", kernel.OpCreate, func() Decision {
			return createOp(kernel.CreateInput{Type: "compiled", Title: "Review of PR 42"})
		}, []string{"compiled"}},
		{"create a relation record", kernel.OpCreate, func() Decision {
			return createOp(kernel.CreateInput{Type: "relation", Title: "raw depends on concept", Category: "links",
				From: ids["raw"], To: "token-refresh", Relation: "depends_on"})
		}, []string{"relation"}},
		{"update", kernel.OpUpdate, func() Decision {
			return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Update(v, "token-refresh", kernel.UpdateFields{Title: ptr("Token refresh policy"), Tags: &[]string{"auth"}}, ev(), env)
			}
		}, []string{"concept"}},
		{"link", kernel.OpLink, func() Decision {
			return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.LinkRecords(v, ids["raw"], []kernel.Link{{TargetID: ids["concept"], Kind: kernel.LinkSource}}, ev(), env)
			}
		}, []string{"raw"}},
		{"propose", kernel.OpPropose, func() Decision {
			return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Propose(v, ids["concept"], ids["compiled"], kernel.Evidence{Agent: testAgent, Proposal: "shorter TTL"}, env)
			}
		}, []string{"concept", "compiled"}},
		{"reject", kernel.OpReject, func() Decision {
			return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Reject(v, ids["concept"], ids["compiled"], kernel.Evidence{Agent: testAgent, Reason: "too aggressive"}, env)
			}
		}, []string{"concept"}},
		{"propose again", kernel.OpPropose, func() Decision {
			// the rejected proposal is spent: apply needs a pending one
			return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Propose(v, ids["concept"], ids["compiled"], kernel.Evidence{Agent: testAgent, Proposal: "refresh at 80%"}, env)
			}
		}, []string{"concept"}},
		{"apply", kernel.OpApply, func() Decision {
			return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Apply(v, ids["concept"], ids["compiled"], kernel.Evidence{Agent: testAgent, NewBody: "Refresh at 80% of the TTL.\n", Rationale: "matches the RFC"}, env)
			}
		}, []string{"concept"}},
		{"supersede", kernel.OpSupersede, func() Decision {
			return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Supersede(v, ids["compiled"], []string{ids["raw"]}, kernel.Evidence{Agent: testAgent, Rationale: "compiled from it"}, env)
			}
		}, []string{"compiled", "raw"}},
		{"retire", kernel.OpRetire, func() Decision {
			return func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Retire(v, ids["concept"], kernel.StatusImplemented, kernel.Evidence{Agent: testAgent, Rationale: "shipped", ImplementedByRef: "PR 43"}, env)
			}
		}, []string{"concept"}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			before, err := s.Tip()
			require.NoError(t, err)
			w := mutate(t, s, step.decide())
			require.Equal(t, 1, w.Attempts)
			if step.op == kernel.OpCreate {
				ids[step.writes[0]] = w.Mutation.Writes[0].ID
			}

			tip, err := s.Tip()
			require.NoError(t, err)
			require.Equal(t, w.Commit, tip, "the branch moved to the new commit")
			require.Equal(t, before.String(), git(t, dir, "rev-parse", w.Commit.String()+"^"), "its only parent is the previous tip")
			require.Equal(t, w.Commit.String(), git(t, dir, "rev-parse", s.Ref()), "git sees the same tip")
			requireVerifiedByGit(t, s, w.Commit)

			require.Equal(t, string(step.op), strings.TrimSpace(git(t, dir, "log", "-1", "--format=%(trailers:key=Record-Op,valueonly)", w.Commit.String())))
			require.Equal(t, w.Mutation.Subject(), git(t, dir, "log", "-1", "--format=%s", w.Commit.String()))

			var wantPaths, gotPaths []string
			for i, key := range step.writes {
				r := w.Mutation.Writes[i]
				require.Equal(t, ids[key], r.ID, "the op writes %s", key)
				p := layoutPath(r.Type, r.ID)
				wantPaths = append(wantPaths, p)
				data, err := EncodeRecord(r)
				require.NoError(t, err)
				require.Equal(t, string(data), gitShow(t, dir, w.Commit.String(), p), "the file is the record, encoded")
			}
			for _, p := range strings.Split(git(t, dir, "diff-tree", "-r", "--no-commit-id", "--name-only", before.String(), w.Commit.String()), "\n") {
				gotPaths = append(gotPaths, p)
			}
			sort.Strings(wantPaths)
			require.Equal(t, wantPaths, gotPaths, "the commit changes exactly the records the op wrote")
		})
	}

	t.Run("the branch holds the format files and one file per record", func(t *testing.T) {
		var want []string
		for _, key := range []string{"concept", "raw", "compiled", "relation"} {
			typ := key
			want = append(want, layoutPath(typ, ids[key]))
		}
		want = append(want, AllowedSignersPath, FormatPath)
		sort.Strings(want)
		require.Equal(t, want, strings.Split(git(t, dir, "ls-tree", "-r", "--name-only", s.Ref()), "\n"))
		require.Equal(t, kernel.FormatVersion+"\n", gitShow(t, dir, s.Ref(), FormatPath))
	})

	t.Run("every commit verifies and fsck is clean", func(t *testing.T) {
		out := git(t, dir, "-c", "gpg.ssh.allowedSignersFile="+s.AllowedSignersExport(), "log", "--format=%G?", s.Ref())
		require.Equal(t, strings.Repeat("G\n", len(steps)+1), out+"\n", "init and every op are signed by an allowed signer")
		tip, err := s.Tip()
		require.NoError(t, err)
		empty := filepath.Join(t.TempDir(), "no_signers")
		require.NoError(t, os.WriteFile(empty, nil, 0o644))
		out, err = verifyCommit(dir, empty, tip)
		require.Error(t, err, "a signer git does not trust fails verification: %s", out)
		requireFsckClean(t, dir)
	})
}

func TestMutateChangesNothingWhenTheOpDoesNot(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "a"})
	b := create(t, s, kernel.CreateInput{Title: "b", Links: []kernel.Link{{TargetID: a.ID, Kind: "related"}}})
	tip, err := s.Tip()
	require.NoError(t, err)

	w, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.LinkRecords(v, b.ID, []kernel.Link{{TargetID: a.ID, Kind: "related"}}, ev(), env)
	})
	require.NoError(t, err)
	require.True(t, w.Commit.IsZero(), "an existing link is not written again")

	_, err = s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, "no-such-record", kernel.UpdateFields{Title: ptr("x")}, ev(), env)
	})
	requireCode(t, err, kernel.CodeNotFound)

	_, err = s.Mutate(createOp(kernel.CreateInput{ID: a.ID}))
	requireCode(t, err, kernel.CodeIDConflict)

	after, err := s.Tip()
	require.NoError(t, err)
	require.Equal(t, tip, after)
}

// TestLostRaceIsDecidedAgainOnTheNewTip: another writer moves the branch
// while an op is deciding; the op runs again on the new tip, and its
// commit's parent is that tip, never the one it first read.
func TestLostRaceIsDecidedAgainOnTheNewTip(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	other := reopen(t, s)
	a := create(t, s, kernel.CreateInput{Title: "a", Aliases: []string{"shared-slug"}})

	var seen []plumbing.Hash
	var sneaked plumbing.Hash
	w, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		seen = append(seen, v.(*View).Tip())
		if len(seen) == 1 {
			sneaked = mutate(t, other, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
				return kernel.Update(v, a.ID, kernel.UpdateFields{Body: ptr("changed by the other writer\n")}, ev(), env)
			}).Commit
		}
		return kernel.Update(v, a.ID, kernel.UpdateFields{Title: ptr("renamed")}, ev(), env)
	})
	require.NoError(t, err)
	require.Equal(t, 2, w.Attempts)
	require.Len(t, seen, 2)
	require.Equal(t, sneaked, seen[1], "the second attempt reads the other writer's tip")
	require.Equal(t, sneaked.String(), git(t, gitDir(s), "rev-parse", w.Commit.String()+"^"))

	r := get(t, s, a.ID)
	require.Equal(t, "renamed", r.Title)
	require.Equal(t, "changed by the other writer\n", r.Body, "the other writer's change is kept")

	t.Run("a rule checked on the old tip is checked again", func(t *testing.T) {
		attempts := 0
		_, err := s.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			attempts++
			if attempts == 1 {
				mutate(t, other, createOp(kernel.CreateInput{Title: "slug thief", Aliases: []string{"taken-slug"}}))
			}
			return kernel.Create(v, kernel.CreateInput{Type: "concept", Title: "late", Body: "x", Category: "c",
				Aliases: []string{"taken-slug"}, Provenance: kernel.Provenance{Agent: testAgent}}, env)
		})
		require.Equal(t, 2, attempts)
		requireCode(t, err, kernel.CodeSlugConflict)
	})
}

// userCheckout is what a user has in a working repository: a commit on
// main, a staged change, an unstaged edit and an untracked file.
type userCheckout struct {
	head, headRef, status string
	index                 []byte
	files                 map[string]string
}

func snapshotCheckout(t *testing.T, dir string) userCheckout {
	t.Helper()
	gitDirPath := git(t, dir, "rev-parse", "--absolute-git-dir")
	idx, err := os.ReadFile(filepath.Join(gitDirPath, "index"))
	require.NoError(t, err)
	headRef, err := os.ReadFile(filepath.Join(gitDirPath, "HEAD"))
	require.NoError(t, err)
	files := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(data)
	}
	return userCheckout{head: git(t, dir, "rev-parse", "HEAD"), headRef: string(headRef),
		status: git(t, dir, "status", "--porcelain=v1", "--untracked-files=all"), index: idx, files: files}
}

func newUserRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "--object-format=sha1", "-b", "main", ".")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "code.go"), []byte("package main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "staged.txt"), []byte("v1\n"), 0o644))
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "code")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "staged.txt"), []byte("v2 staged\n"), 0o644))
	git(t, dir, "add", "staged.txt")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "code.go"), []byte("package main // dirty\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("mine\n"), 0o644))
	return dir
}

func TestWritesLeaveTheUsersCheckoutAlone(t *testing.T) {
	t.Parallel()
	dir := newUserRepo(t)
	before := snapshotCheckout(t, dir)
	require.Contains(t, before.status, "M  staged.txt")
	require.Contains(t, before.status, " M code.go")

	s := openTestStore(t, dir)
	a := create(t, s, kernel.CreateInput{Title: "a"})
	mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Update(v, a.ID, kernel.UpdateFields{Body: ptr("new body\n")}, ev(), env)
	})

	after := snapshotCheckout(t, dir)
	require.Equal(t, before.head, after.head, "HEAD's commit")
	require.Equal(t, before.headRef, after.headRef, "HEAD still names main")
	require.Equal(t, before.index, after.index, ".git/index is byte for byte the same")
	require.Equal(t, before.files, after.files, "working tree files")
	require.Equal(t, before.status, after.status)
	_, err := gitInput(dir, nil, nil, "merge-base", "main", s.Ref())
	require.Error(t, err, "the records branch shares no history with main")
}

func TestStoreInALinkedWorktree(t *testing.T) {
	t.Parallel()
	main := newUserRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", "-b", "feature", wt)

	s := openTestStore(t, wt)
	require.NotEqual(t, s.repo.GitDir, s.repo.CommonDir, "a linked worktree has its own git dir")
	wtBefore := snapshotCheckout(t, wt)
	r := create(t, s, kernel.CreateInput{Title: "from the worktree"})
	require.Equal(t, wtBefore, snapshotCheckout(t, wt))

	// The branch is shared: the main checkout sees the record and git
	// verifies the commit there.
	fromMain, err := Open(main, Options{})
	require.NoError(t, err)
	require.Equal(t, "from the worktree", get(t, fromMain, r.ID).Title)
	tip, err := fromMain.Tip()
	require.NoError(t, err)
	requireVerifiedByGit(t, fromMain, tip)
	require.Equal(t, s.indexPath(), fromMain.indexPath(), "one index cache per repository, in the common dir")
	requireFsckClean(t, main)
}

func TestStoreInABareRepository(t *testing.T) {
	t.Parallel()
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare", "--object-format=sha1", ".")
	s := openTestStore(t, bare)
	require.True(t, s.repo.Bare)
	r := create(t, s, kernel.CreateInput{Title: "in a bare repository"})
	tip, err := s.Tip()
	require.NoError(t, err)
	requireVerifiedByGit(t, s, tip)
	require.Equal(t, "in a bare repository", get(t, reopen(t, s), r.ID).Title)
	require.Equal(t, layoutPath("concept", r.ID), git(t, bare, "ls-tree", "-r", "--name-only", s.Ref(), "records/"))
	requireFsckClean(t, bare)

	// A clone gets the branch like any other.
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, t.TempDir(), "clone", "-q", bare, clone)
	require.Equal(t, tip.String(), git(t, clone, "rev-parse", "origin/records"))
}

func TestGetResolvesHandles(t *testing.T) {
	t.Parallel()
	// Two generated ids share their first 8 characters; a third is unrelated.
	idA, idB, idC := "abcdefgh2222aaaaaaaaaaaaaa", "abcdefgh3333bbbbbbbbbbbbbb", "zzzzzzzz4444cccccccccccccc"
	s := newTestStore(t, Options{NewID: fixedIDs(idA, idB, idC)})
	create(t, s, kernel.CreateInput{Title: "A", Aliases: []string{"token-refresh"}})
	create(t, s, kernel.CreateInput{Title: "B"})
	create(t, s, kernel.CreateInput{Title: "C", Body: "See [[token-refresh|the policy]].\n"})
	slug := create(t, s, kernel.CreateInput{ID: "abcdefgh", Title: "a slug id that is also a prefix"})

	tests := []struct {
		handle string
		want   string // "" for no record
		code   kernel.Code
	}{
		{idA, idA, ""},
		{"token-refresh", idA, ""},
		{"zzzzzzzz", idC, ""},                  // 8-character prefix
		{"abcdefgh2", idA, ""},                 // longer unique prefix
		{"abcdefgh", slug.ID, ""},              // an exact id wins over a prefix
		{"abcdefgh3333bbbbbbbbbbbbb", idB, ""}, // all but the last character
		{"abcdefg", "", ""},                    // 7 characters is no prefix
		{"zzzzzzz", "", ""},
		{"nothing-here", "", ""},
		{"", "", ""},
	}
	v, err := s.View()
	require.NoError(t, err)
	for _, tt := range tests {
		r, err := v.Get(tt.handle)
		require.NoError(t, err, tt.handle)
		if tt.want == "" {
			require.Nil(t, r, "%q resolves to nothing", tt.handle)
			continue
		}
		require.NotNil(t, r, tt.handle)
		require.Equal(t, tt.want, r.ID, tt.handle)
	}

	t.Run("a prefix that two ids share is AMBIGUOUS_ID", func(t *testing.T) {
		s2 := newTestStore(t, Options{NewID: fixedIDs(idA, idB)})
		create(t, s2, kernel.CreateInput{Title: "A"})
		create(t, s2, kernel.CreateInput{Title: "B"})
		v, err := s2.View()
		require.NoError(t, err)
		_, err = v.Get("abcdefgh")
		requireCode(t, err, kernel.CodeAmbiguousID)
		require.Contains(t, err.Error(), idA)
		require.Contains(t, err.Error(), idB)
		var ke *kernel.Error
		require.ErrorAs(t, err, &ke)
		require.Equal(t, []string{idA, idB}, ke.Extra["matches"])
		// The same ambiguity stops an op that names the prefix.
		_, err = s2.Mutate(func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, "abcdefgh", kernel.UpdateFields{Title: ptr("x")}, ev(), env)
		})
		requireCode(t, err, kernel.CodeAmbiguousID)
	})

	t.Run("get adds the body's wikilinks to the links", func(t *testing.T) {
		r := get(t, s, idC)
		require.Equal(t, []kernel.Link{{TargetID: "token-refresh", Kind: kernel.LinkRelated, Label: "the policy"}}, r.Links)
		raw, err := v.Record(idC)
		require.NoError(t, err)
		require.Empty(t, raw.Links, "the file stores no links; they come from the body")
	})
}

func TestLinksForwardAndBack(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	a := create(t, s, kernel.CreateInput{Title: "A", Aliases: []string{"alpha"}})
	c := create(t, s, kernel.CreateInput{Title: "C"})
	b := create(t, s, kernel.CreateInput{Title: "B",
		Body:  "Builds on [[alpha|the alpha note]] and [[" + c.ID[:8] + "]].\nNot a link: `[[" + a.ID + "]]`.\n\n    [[in-a-code-block]]\n",
		Links: []kernel.Link{{TargetID: a.ID, Kind: kernel.LinkSource}}})
	rel := create(t, s, kernel.CreateInput{Type: "relation", Title: "B depends on C", Category: "links", From: b.ID, To: c.ID, Relation: "depends_on"})
	dangling := create(t, s, kernel.CreateInput{Title: "D", Body: "Points at [[nowhere-yet]].\n"})

	v, err := s.View()
	require.NoError(t, err)
	links := func(handle string) Links {
		l, err := v.Links(handle)
		require.NoError(t, err)
		return l
	}

	require.Equal(t, Links{
		Forward: []Edge{
			{Target: a.ID, Kind: kernel.LinkSource},
			{Target: a.ID, Kind: kernel.LinkRelated, Label: "the alpha note"},
			{Target: c.ID, Kind: kernel.LinkRelated},
			{Target: c.ID, Kind: "depends_on"},
		},
		Reverse:       []Edge{},
		ForwardTitles: []EndTitle{{"A", true}, {"A", true}, {"C", true}, {"C", true}},
		ReverseTitles: []EndTitle{},
	}, links(b.ID), "frontmatter links, body wikilinks resolved to ids (code is not linked), then typed edges of relation records from b")

	require.ElementsMatch(t, []Edge{
		{Source: b.ID, Kind: kernel.LinkSource},
		{Source: b.ID, Kind: kernel.LinkRelated, Label: "the alpha note"},
	}, links("alpha").Reverse, "backlinks by alias")
	require.Empty(t, links(a.ID).Forward)

	require.ElementsMatch(t, []Edge{
		{Source: b.ID, Kind: kernel.LinkRelated},
		{Source: b.ID, Kind: "depends_on"},
	}, links(c.ID).Reverse, "a relation record is an edge from its from record to its to record")
	require.Equal(t, []EndTitle{{"B", true}, {"B", true}}, links(c.ID).ReverseTitles, "the title of a relation's from record")
	require.Empty(t, links(rel.ID).Forward, "the relation record itself links nowhere")

	require.Equal(t, []Edge{{Target: "nowhere-yet", Kind: kernel.LinkRelated}}, links(dangling.ID).Forward, "a dangling target stays as written")
	require.Equal(t, []EndTitle{{}}, links(dangling.ID).ForwardTitles, "a dangling target has no title")
	require.Equal(t, Links{Forward: []Edge{}, Reverse: []Edge{}, ForwardTitles: []EndTitle{}, ReverseTitles: []EndTitle{}}, links("unknown-handle"), "an unknown handle has empty lists")

	t.Run("a record created later resolves the dangling link", func(t *testing.T) {
		late := create(t, s, kernel.CreateInput{ID: "nowhere-yet", Title: "now here"})
		v, err := s.View()
		require.NoError(t, err)
		l, err := v.Links(late.ID)
		require.NoError(t, err)
		require.Equal(t, []Edge{{Source: dangling.ID, Kind: kernel.LinkRelated}}, l.Reverse)
	})
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	mk := func(title string, in kernel.CreateInput) string {
		in.Title = title
		return create(t, s, in).ID
	}
	eng := mk("eng", kernel.CreateInput{Category: "eng", Tags: []string{"auth"}})
	engAPI := mk("eng.api", kernel.CreateInput{Category: "eng.api", Tags: []string{"auth", "api"}})
	engineering := mk("engineering", kernel.CreateInput{Category: "engineering"})
	raw := mk("raw", kernel.CreateInput{Type: "raw", Category: "eng.api.v2"})
	expired := mk("expires", kernel.CreateInput{Category: "ops", ExpiresAt: kernel.ExpiresAt(kernel.At(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)))})
	ttl := mk("ttl", kernel.CreateInput{Category: "ops", TTLSeconds: kernel.TTL(3600)})
	retired := mk("retired", kernel.CreateInput{Category: "eng"})
	implemented := mk("implemented", kernel.CreateInput{Category: "eng"})
	mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Retire(v, retired, kernel.StatusRetired, kernel.Evidence{Agent: testAgent, Rationale: "obsolete"}, env)
	})
	mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		return kernel.Retire(v, implemented, kernel.StatusImplemented, kernel.Evidence{Agent: testAgent, Rationale: "done", ImplementedByRef: "PR 1"}, env)
	})
	ttlRecord := get(t, s, ttl)

	all := []string{eng, engAPI, engineering, raw, expired, ttl, implemented}
	tests := []struct {
		name   string
		filter Filter
		want   []string
	}{
		{"no filter: everything but retired, oldest first", Filter{}, all},
		{"type", Filter{Type: "raw"}, []string{raw}},
		{"category is exact", Filter{Category: "eng"}, []string{eng, implemented}},
		{"category prefix takes descendants, not siblings", Filter{Category: "eng", CategoryPrefix: true}, []string{eng, engAPI, raw, implemented}},
		{"category prefix of a deeper level", Filter{Category: "eng.api", CategoryPrefix: true}, []string{engAPI, raw}},
		{"a partial segment matches nothing", Filter{Category: "en", CategoryPrefix: true}, nil},
		{"tag", Filter{Tag: "auth"}, []string{eng, engAPI}},
		{"tag and category", Filter{Tag: "auth", Category: "eng.api"}, []string{engAPI}},
		{"status", Filter{Status: kernel.StatusImplemented}, []string{implemented}},
		{"retired only when asked by status", Filter{Status: kernel.StatusRetired}, []string{retired}},
		{"retired included when asked", Filter{Category: "eng", IncludeRetired: true}, []string{eng, retired, implemented}},
		{"kind", Filter{Kind: kernel.KindEntity, Type: "raw"}, []string{raw}},
		{"stale: expiry passed", Filter{StaleOnly: true, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}, []string{expired, ttl}},
		{"stale: before any expiry", Filter{StaleOnly: true, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
		{"stale: the expiry instant itself is stale", Filter{StaleOnly: true, Now: ttlRecord.CreatedAt.Add(time.Hour)}, []string{ttl}},
		{"stale: a millisecond before it is not", Filter{StaleOnly: true, Now: ttlRecord.CreatedAt.Add(time.Hour - time.Millisecond)}, nil},
	}
	v, err := s.View()
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := v.List(tt.filter)
			require.NoError(t, err)
			var got []string
			for _, r := range rs {
				got = append(got, r.ID)
			}
			assert.Equal(t, tt.want, got)
			es, err := v.ListEntries(tt.filter)
			require.NoError(t, err)
			assert.Len(t, es, len(tt.want))
		})
	}
}

func TestInitIsIdempotent(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	tip, err := s.Tip()
	require.NoError(t, err)
	pub, err := os.ReadFile(s.SigningKeyPath() + ".pub")
	require.NoError(t, err)

	again := reopen(t, s)
	line, err := again.GenerateSigningKey(testEmail)
	require.NoError(t, err)
	w, err := again.Init(testAgent, line)
	require.NoError(t, err)
	require.True(t, w.Commit.IsZero(), "a second init changes nothing")
	after, err := s.Tip()
	require.NoError(t, err)
	require.Equal(t, tip, after)
	pubAfter, err := os.ReadFile(s.SigningKeyPath() + ".pub")
	require.NoError(t, err)
	require.Equal(t, string(pub), string(pubAfter), "the key is kept: its signatures are already trusted")
	require.Equal(t, line+"\n", gitShow(t, gitDir(s), s.Ref(), AllowedSignersPath))
	require.FileExists(t, s.AllowedSignersExport())
	require.Equal(t, "ssh", git(t, gitDir(s), "config", "records.signingFormat"))
}
