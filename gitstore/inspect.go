package gitstore

import (
	"bytes"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-records/git-records/kernel"
)

// What verify, diff and sync need to look at history: commits, raw bytes,
// tree diffs and views of any commit, not only the tip.

// Commit reads a commit object.
func (s *Store) Commit(h plumbing.Hash) (*Commit, error) { return s.commit(h) }

// RawCommit returns a commit object's bytes as git hashes them, which is
// what its signature covers.
func (s *Store) RawCommit(h plumbing.Hash) ([]byte, error) {
	o, err := s.objects.EncodedObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "read commit %s", h)
	}
	return readAll(o)
}

// ViewAt returns a view of any commit (zero: the empty store).
func (s *Store) ViewAt(commit plumbing.Hash) (*View, error) { return s.viewAt(commit) }

// Changes lists every file that differs between the trees of two commits
// (zero commit = empty tree), descending only where subtrees differ.
func (s *Store) Changes(from, to plumbing.Hash) ([]Change, error) {
	a, err := s.rootOf(from)
	if err != nil {
		return nil, err
	}
	b, err := s.rootOf(to)
	if err != nil {
		return nil, err
	}
	var out []Change
	err = diffTrees(newTreeReader(s.objects), a, b, "", &out)
	return out, err
}

// RecordFromBlob decodes the record stored in a blob.
func (s *Store) RecordFromBlob(h plumbing.Hash) (*kernel.Record, error) { return s.readRecord(h) }

// Blob returns a blob's content.
func (s *Store) Blob(h plumbing.Hash) ([]byte, error) { return s.blob(h) }

// ResolveRev turns a revision (a ref, a hash, HEAD~2, records@{1}) into a
// commit with git's own parser, so every spelling git accepts works.
func (s *Store) ResolveRev(rev string) (plumbing.Hash, error) {
	out, err := s.git("rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return plumbing.ZeroHash, kernel.Errorf(kernel.CodeNotFound, "unknown revision %q: %s", rev, err)
	}
	return plumbing.NewHash(strings.TrimSpace(out)), nil
}

// RevList lists the commits of a range in git's syntax ("a..b", "b", "^a b"),
// parents before children. Its cost follows the range, not the branch.
func (s *Store) RevList(args ...string) ([]plumbing.Hash, error) {
	out, err := s.git(append([]string{"rev-list", "--reverse", "--topo-order"}, args...)...)
	if err != nil {
		return nil, kernel.Errorf(kernel.CodeNotFound, "bad range %q: %s", strings.Join(args, " "), err)
	}
	var hs []plumbing.Hash
	for _, line := range strings.Fields(out) {
		hs = append(hs, plumbing.NewHash(line))
	}
	return hs, nil
}

// MergeBase returns the best common ancestor of two commits (zero if none).
func (s *Store) MergeBase(a, b plumbing.Hash) (plumbing.Hash, error) {
	run := s.repo.Git("", "merge-base", a.String(), b.String())
	switch {
	case run.Err == nil:
		return plumbing.NewHash(strings.TrimSpace(string(run.Stdout))), nil
	case run.ExitCode() == 1 && len(bytes.TrimSpace(run.Stderr)) == 0:
		return plumbing.ZeroHash, nil // git's answer for unrelated histories
	}
	// Anything else (a missing object, a broken repository) is not "no
	// common history", and must not be reported as one.
	return plumbing.ZeroHash, kernel.Errorf(kernel.CodeInternal, "git merge-base %s %s: %s", a.String()[:12], b.String()[:12], run.Message())
}

// git runs a read-only git command in this repository.
func (s *Store) git(args ...string) (string, error) {
	return s.gitIn("", args...)
}

type gitError struct{ msg string }

func (e *gitError) Error() string { return e.msg }

// emptyTree is git's well-known empty tree, the parent of a first commit.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// StagedChanges lists what the index changes against HEAD, as a commit
// would (for hooks on a checked-out records branch). The index's blobs are
// already in the object store, so records read from them directly.
func (s *Store) StagedChanges() ([]Change, error) {
	base := "HEAD"
	if _, err := s.git("rev-parse", "--verify", "-q", "HEAD"); err != nil {
		base = emptyTree
	}
	out, err := s.gitIn(s.repo.WorkTree, "diff-index", "--cached", "--no-renames", "-z", base)
	if err != nil {
		return nil, kernel.Errorf(kernel.CodeInternal, "git diff-index: %v", err)
	}
	var changes []Change
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) < 5 {
			continue
		}
		c := Change{Path: fields[i+1], Old: plumbing.NewHash(meta[2]), New: plumbing.NewHash(meta[3])}
		if m, err := filemode.New(meta[1]); err == nil {
			c.Mode = m
		}
		if meta[4] == "D" {
			c.New = plumbing.ZeroHash
		}
		if meta[4] == "A" {
			c.Old = plumbing.ZeroHash
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// HeadBranch is the branch HEAD points at ("" when detached).
func (s *Store) HeadBranch() string {
	out, err := s.git("symbolic-ref", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// IsAncestor reports whether a is an ancestor of (or equal to) b.
func (s *Store) IsAncestor(a, b plumbing.Hash) bool {
	_, err := s.git("merge-base", "--is-ancestor", a.String(), b.String())
	return err == nil
}

func (s *Store) gitIn(dir string, args ...string) (string, error) {
	run := s.repo.Git(dir, args...)
	if run.Err != nil {
		return "", &gitError{run.Message()}
	}
	return string(run.Stdout), nil
}
