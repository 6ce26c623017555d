package gitdir_test

import (
	"errors"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// The write path of one mutation: objects first, synced, then the ref by
// compare-and-swap from the tip the op was validated against; on a lost
// race, validate again on the new tip and retry.
func Example() {
	repo, err := gitdir.Discover(".")
	if err != nil {
		return // gitdir.ErrNotARepository: not inside a repository
	}
	_ = mutate(repo, "refs/heads/records")
}

func mutate(repo *gitdir.Repo, ref string) error {
	w := repo.NewObjectWriter()
	var conflict *gitdir.RefConflict
	for range 10 {
		tip, err := repo.ReadRef(ref)
		if err != nil {
			return err
		}
		// Validate the op against tip, then write its blobs and trees with w.
		var tree plumbing.Hash
		sig := object.Signature{Name: "A U Thor", Email: "author@example.com", When: time.Now()}
		c := &object.Commit{Author: sig, Committer: sig, Message: "create(concept): T\n", TreeHash: tree}
		if !tip.IsZero() {
			c.ParentHashes = []plumbing.Hash{tip}
		}
		enc := &plumbing.MemoryObject{}
		if err := c.Encode(enc); err != nil {
			return err
		}
		h, err := w.WriteObject(enc)
		if err != nil {
			return err
		}
		if err := w.Sync(); err != nil { // before the ref can point at the objects
			return err
		}
		err = repo.UpdateRef(ref, h, tip, gitdir.Ident{Name: sig.Name, Email: sig.Email}, "create(concept): T")
		if !errors.As(err, &conflict) {
			return err // nil: done
		}
	}
	if conflict.Locked {
		return conflict // says which lock file blocks, and what to do
	}
	return kernel.Errorf(kernel.CodeConflict, "%s kept moving under 10 attempts; try again", ref)
}
