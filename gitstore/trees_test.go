package gitstore

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"

	"github.com/git-records/git-records/kernel"
)

// gitTrees builds trees with git's own index machinery in a scratch index
// file, so the repository's real index is never touched.
type gitTrees struct {
	t     *testing.T
	dir   string
	index string
}

func newGitTrees(t *testing.T, dir string) *gitTrees {
	return &gitTrees{t: t, dir: dir, index: filepath.Join(t.TempDir(), "index")}
}

func (g *gitTrees) run(args ...string) string {
	g.t.Helper()
	out, err := gitInput(g.dir, nil, []string{"GIT_INDEX_FILE=" + g.index}, args...)
	require.NoError(g.t, err)
	return out
}

func (g *gitTrees) blob(content string) plumbing.Hash {
	g.t.Helper()
	out, err := gitInput(g.dir, []byte(content), nil, "hash-object", "-w", "--stdin")
	require.NoError(g.t, err)
	return plumbing.NewHash(out)
}

// set stages path → blob (or removes path when blob is zero); write returns
// the tree git writes for the staged files.
func (g *gitTrees) set(files map[string]plumbing.Hash) {
	g.t.Helper()
	var removals, additions strings.Builder
	for p, h := range files {
		if h.IsZero() {
			fmt.Fprintf(&removals, "0 %s\t%s\n", h, p)
		} else {
			fmt.Fprintf(&additions, "100644 %s\t%s\n", h, p)
		}
	}
	_, err := gitInput(g.dir, []byte(removals.String()+additions.String()), []string{"GIT_INDEX_FILE=" + g.index}, "update-index", "--index-info")
	require.NoError(g.t, err)
}

func (g *gitTrees) write() plumbing.Hash { return plumbing.NewHash(g.run("write-tree")) }

func (g *gitTrees) commit(tree plumbing.Hash, msg string) plumbing.Hash {
	return plumbing.NewHash(g.run("commit-tree", tree.String(), "-m", msg))
}

func TestWriteTreeMatchesGit(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	g := newGitTrees(t, gitDir(s))
	b1, b2, b3 := g.blob("one\n"), g.blob("two\n"), g.blob("three\n")
	reader := newTreeReader(s.objects)
	sink := s.repo.NewObjectWriter()

	t.Run("flat tree equals git mktree", func(t *testing.T) {
		files := map[string]plumbing.Hash{"b.md": b2, "a": b1, "a-b": b3}
		got, err := writeTree(reader, sink, plumbing.ZeroHash, files)
		require.NoError(t, err)
		var in strings.Builder
		for name, h := range files {
			fmt.Fprintf(&in, "100644 blob %s\t%s\n", h, name)
		}
		want, err := gitInput(g.dir, []byte(in.String()), nil, "mktree")
		require.NoError(t, err)
		require.Equal(t, want, got.String())
	})

	// Names chosen so that git's order (a directory sorts as "name/")
	// differs from plain string order: "foo-bar" < "foo.md" < "foo/" and
	// "relation.x/" < "relation/".
	base := map[string]plumbing.Hash{
		"a":                       b1,
		"foo-bar":                 b1,
		"foo.md":                  b2,
		"foo/z":                   b3,
		"foo/y/deep":              b1,
		"relation/b.md":           b2,
		"relation.x/a.md":         b1,
		"records/concept/ab/x.md": b2,
		".records/format":         b3,
	}
	var baseTree plumbing.Hash
	t.Run("nested tree equals git write-tree", func(t *testing.T) {
		got, err := writeTree(reader, sink, plumbing.ZeroHash, base)
		require.NoError(t, err)
		g.set(base)
		require.Equal(t, g.write(), got)
		baseTree = got
	})

	t.Run("rewriting a few paths on a base equals git write-tree", func(t *testing.T) {
		require.False(t, baseTree.IsZero())
		change := map[string]plumbing.Hash{
			"foo/y/deep":              b2, // modified, nested
			"foo/y/new":               b3, // added next to it
			"new/dir/file":            b1, // added in new directories
			"a":                       b3, // modified at the root
			"records/concept/ab/y.md": b1,
		}
		got, err := writeTree(reader, sink, baseTree, change)
		require.NoError(t, err)
		g.set(change)
		require.Equal(t, g.write(), got)
		// Only the trees on changed paths are new; untouched subtrees are shared.
		_, _, err = reader.lookup(got, "relation.x")
		require.NoError(t, err)
		before, _, _ := reader.lookup(baseTree, "relation.x")
		after, _, _ := reader.lookup(got, "relation.x")
		require.Equal(t, before, after)
	})

	t.Run("a file where a directory is needed is an error", func(t *testing.T) {
		_, err := writeTree(reader, sink, baseTree, map[string]plumbing.Hash{"a/under-a-file": b1})
		require.ErrorContains(t, err, "a is a file where a directory is expected")
	})
	requireFsckClean(t, g.dir)
}

// diffTree runs git diff-tree -r --no-renames and returns its changes.
func gitDiffTree(t *testing.T, dir string, a, b plumbing.Hash) []string {
	t.Helper()
	out := git(t, dir, "diff-tree", "-r", "--no-renames", "--no-commit-id", a.String(), b.String())
	var changes []Change
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		meta, path, ok := strings.Cut(line, "\t")
		require.True(t, ok, line)
		f := strings.Fields(meta) // :oldmode newmode old new status
		require.Len(t, f, 5, line)
		changes = append(changes, Change{Path: path, Old: plumbing.NewHash(f[2]), New: plumbing.NewHash(f[3])})
	}
	return sortedChanges(changes)
}

// sortedChanges renders changes as "path old new" lines, sorted, so two
// lists compare order-independently and a failure reads well.
func sortedChanges(cs []Change) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Path+" "+c.Old.String()+" "+c.New.String())
	}
	sort.Strings(out)
	return out
}

func TestDiffTreesMatchesGitDiffTree(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	dir := gitDir(s)
	blob := newGitTrees(t, dir).blob
	b1, b2, b3 := blob("one\n"), blob("two\n"), blob("three\n")
	z := plumbing.ZeroHash

	tests := []struct {
		name     string
		from, to map[string]plumbing.Hash // to: applied on top of from; zero deletes
	}{
		{"adds, modifies and deletes, nested",
			map[string]plumbing.Hash{"a": b1, "d/x": b1, "d/e/y": b2, "d/e/gone": b3, "keep/k": b1},
			map[string]plumbing.Hash{"a": b2, "d/e/y": b3, "d/e/gone": z, "d/new/n": b1, "b": b1}},
		{"a whole directory added and one deleted",
			map[string]plumbing.Hash{"old/1": b1, "old/2/3": b2, "stay": b1},
			map[string]plumbing.Hash{"old/1": z, "old/2/3": z, "fresh/1": b1, "fresh/2/3": b2}},
		{"a file becomes a directory and a directory a file",
			map[string]plumbing.Hash{"f": b1, "dir/x": b2},
			map[string]plumbing.Hash{"f": z, "f/inside": b1, "dir/x": z, "dir": b3}},
		{"a new type directory that sorts before an existing one",
			map[string]plumbing.Hash{"records/relation/aa/r1.md": b1, "records/concept/bb/c1.md": b2},
			map[string]plumbing.Hash{"records/relation.x/cc/r2.md": b3, "records/concept.note/dd/n.md": b1}},
		{"names that sort differently as files and directories",
			map[string]plumbing.Hash{"foo/z": b1, "foo.md": b2},
			map[string]plumbing.Hash{"foo-bar": b3, "foo/z": b2, "foo.md": z}},
		{"nothing changes",
			map[string]plumbing.Hash{"a": b1, "d/x": b2},
			map[string]plumbing.Hash{"a": b1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGitTrees(t, dir)
			g.set(tt.from)
			t1 := g.write()
			g.set(tt.to)
			t2 := g.write()
			c1, c2 := g.commit(t1, "from"), g.commit(t2, "to")

			for _, pair := range [][2]plumbing.Hash{{t1, t2}, {t2, t1}} {
				var got []Change
				require.NoError(t, diffTrees(newTreeReader(s.objects), pair[0], pair[1], "", &got))
				want := gitDiffTree(t, dir, c1, c2)
				if pair[0] == t2 {
					want = gitDiffTree(t, dir, c2, c1)
				}
				require.Equal(t, want, sortedChanges(got))
				// The same with either side decoded first (a diff then
				// walks one tree decoded and the other in place).
				for _, decoded := range pair {
					r := newTreeReader(s.objects)
					_, err := r.tree(decoded)
					require.NoError(t, err)
					var mixed []Change
					require.NoError(t, diffTrees(r, pair[0], pair[1], "", &mixed))
					require.Equal(t, got, mixed)
				}
			}
			var fromEmpty []Change
			require.NoError(t, diffTrees(newTreeReader(s.objects), z, t2, "", &fromEmpty))
			emptyTree := plumbing.NewHash(git(t, dir, "hash-object", "-t", "tree", "-w", "--stdin"))
			require.Equal(t, gitDiffTree(t, dir, emptyTree, t2), sortedChanges(fromEmpty), "from the zero tree every file is added")
		})
	}

	t.Run("between two store commits", func(t *testing.T) {
		before, err := s.Tip()
		require.NoError(t, err)
		a := create(t, s, kernel.CreateInput{Title: "a"})
		create(t, s, kernel.CreateInput{Type: "relation", Title: "rel", Category: "links", From: a.ID, To: a.ID, Relation: "references"})
		create(t, s, kernel.CreateInput{Type: "relation.x", Title: "rel x", Category: "links"})
		mutate(t, s, func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
			return kernel.Update(v, a.ID, kernel.UpdateFields{Body: ptr("changed\n")}, ev(), env)
		})
		after, err := s.Tip()
		require.NoError(t, err)
		r1, err := s.rootOf(before)
		require.NoError(t, err)
		r2, err := s.rootOf(after)
		require.NoError(t, err)
		var got []Change
		require.NoError(t, diffTrees(newTreeReader(s.objects), r1, r2, "", &got))
		require.Len(t, got, 3)
		require.Equal(t, gitDiffTree(t, dir, before, after), sortedChanges(got))
	})
}

// A file is never written over a directory: that would drop every file
// below it without a word.
func TestWriteTreeRefusesAFileOverADirectory(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	v, err := s.View()
	require.NoError(t, err)
	w := s.repo.NewObjectWriter()
	blob, err := w.Write(plumbing.BlobObject, []byte("x\n"))
	require.NoError(t, err)
	_, err = writeTree(v.trees, w, v.root, map[string]plumbing.Hash{".records": blob})
	require.ErrorContains(t, err, ".records is a directory where a file is to be written")
}

// compareGitOrder orders entries exactly as comparing their gitOrderName
// does: names that are prefixes of each other, directories against files
// of the same name and of names one byte longer ('.' and '-' sort before
// '/', letters after).
func TestCompareGitOrderIsGitOrderName(t *testing.T) {
	names := []string{"", "a", "a.x", "a-x", "a/", "a0", "ab", "abc", "b", "relation", "relation.x", "relation-x", "relationx", "r"}
	modes := []filemode.FileMode{filemode.Dir, filemode.Regular, filemode.Executable, filemode.Symlink}
	for _, an := range names {
		for _, bn := range names {
			for _, am := range modes {
				for _, bm := range modes {
					a, b := treeEntry{Name: an, Mode: am}, treeEntry{Name: bn, Mode: bm}
					require.Equal(t, strings.Compare(gitOrderName(&a), gitOrderName(&b)), compareGitOrder(&a, &b), "%q %v vs %q %v", an, am, bn, bm)
				}
			}
		}
	}
}

// Entries are edited in place in a sorted base; a tree someone wrote out of
// order (git writes one when told to, fsck refuses it) is refused as a base,
// never edited nor written again as if it were in order.
func TestWriteTreeRefusesABaseOutOfOrder(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	g := newGitTrees(t, gitDir(s))
	b1, b2, b3 := g.blob("one\n"), g.blob("two\n"), g.blob("three\n")
	reader := newTreeReader(s.objects)
	sink := s.repo.NewObjectWriter()
	foo, err := writeTree(reader, sink, plumbing.ZeroHash, map[string]plumbing.Hash{"z": b3, "y/deep": b1})
	require.NoError(t, err)
	var raw []byte
	for _, e := range []treeEntry{
		{Name: "foo.md", Mode: filemode.Regular, Hash: b2},
		{Name: "foo", Mode: filemode.Dir, Hash: foo},
		{Name: "a", Mode: filemode.Regular, Hash: b1},
	} {
		mode := "100644"
		if e.Mode == filemode.Dir {
			mode = "40000"
		}
		raw = append(append(append(raw, mode+" "+e.Name...), 0), e.Hash[:]...)
	}
	out, err := gitInput(g.dir, raw, nil, "hash-object", "--literally", "-t", "tree", "-w", "--stdin")
	require.NoError(t, err)
	_, err = writeTree(reader, sink, plumbing.NewHash(out), map[string]plumbing.Hash{"foo-bar": b3, "foo/z": b1})
	require.ErrorIs(t, err, errMalformedTree)
}

// encodeTree writes what go-git's Tree.Encode writes, for every mode, and
// refuses a name git could not read back.
func TestEncodeTreeIsGoGits(t *testing.T) {
	t.Parallel()
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	gg := []object.TreeEntry{
		{Name: "a.md", Mode: filemode.Regular, Hash: h},
		{Name: "b", Mode: filemode.Dir, Hash: h},
		{Name: "c", Mode: filemode.Executable, Hash: h},
		{Name: "d", Mode: filemode.Symlink, Hash: h},
		{Name: "e", Mode: filemode.Submodule, Hash: h},
	}
	var es []treeEntry
	for _, e := range gg {
		es = append(es, fromGoGit(e))
	}
	want := &plumbing.MemoryObject{}
	require.NoError(t, (&object.Tree{Entries: gg}).Encode(want))
	got, err := encodeTree(es)
	require.NoError(t, err)
	require.Equal(t, want.Hash(), got.Hash())
	require.Equal(t, plumbing.TreeObject, got.Type())
	for _, bad := range []string{"", "a\x00b"} {
		_, err := encodeTree([]treeEntry{{Name: bad, Mode: filemode.Regular, Hash: h}})
		require.Error(t, err, "%q", bad)
	}
}
