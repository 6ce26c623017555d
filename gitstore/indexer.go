package gitstore

import (
	"maps"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// indexAt returns the index at tip. It starts from the freshest index it has
// (this process's, else the on-disk cache) and applies the tree diff from the
// tip that index reflects: one commit of change costs a few tree reads and one
// record decode, whatever the size of the store. With no usable cache it
// builds from scratch.
func (s *Store) indexAt(tip plumbing.Hash, trees *treeReader) (*Index, error) {
	base := s.index
	if base == nil {
		if ix, err := loadIndex(s.indexPath()); err == nil {
			base = ix
			if _, current := loadHandles(handlesPath(s.indexPath()), ix.Tip); !current && ix.Tip == tip {
				_ = ix.saveHandles(handlesPath(s.indexPath())) // lost or from an older version
			}
		}
	}
	if base != nil && base.Tip == tip {
		s.index = base
		return base, nil
	}
	if base != nil {
		ix, err := s.catchUp(base, tip, trees)
		if err == nil {
			s.index = ix
			_ = ix.save(s.indexPath()) // a cache: failing to save only costs speed
			return ix, nil
		}
		// The cached tip may be gone (a rewritten branch, a gc): rebuild.
	}
	ix, _, err := s.buildIndex(tip, trees)
	if err != nil {
		return nil, err
	}
	s.index = ix
	_ = ix.save(s.indexPath())
	return ix, nil
}

// rootOf returns the root tree of a commit, zero for the zero commit.
func (s *Store) rootOf(commit plumbing.Hash) (plumbing.Hash, error) {
	if commit.IsZero() {
		return plumbing.ZeroHash, nil
	}
	c, err := s.commit(commit)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// catchUp returns a copy of base moved to tip by the tree diff between them.
// base itself is not modified: views of older tips may still hold it.
func (s *Store) catchUp(base *Index, tip plumbing.Hash, trees *treeReader) (*Index, error) {
	from, err := s.rootOf(base.Tip)
	if err != nil {
		return nil, err
	}
	to, err := s.rootOf(tip)
	if err != nil {
		return nil, err
	}
	changes, err := recordChanges(trees, from, to)
	if err != nil {
		return nil, err
	}
	ix := base.clone()
	ix.Tip = tip
	for _, c := range changes {
		if err := s.applyChange(ix, c); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// recordChanges diffs the records/ subtrees of two root trees.
func recordChanges(trees *treeReader, fromRoot, toRoot plumbing.Hash) ([]Change, error) {
	from, _, err := trees.lookup(fromRoot, "records")
	if err != nil {
		return nil, err
	}
	to, _, err := trees.lookup(toRoot, "records")
	if err != nil {
		return nil, err
	}
	var changes []Change
	err = diffTrees(trees, from, to, "records/", &changes)
	return changes, err
}

func (s *Store) applyChange(ix *Index, c Change) error {
	_, id, ok := ParseRecordPath(c.Path)
	if !ok {
		return nil // not a record file; verify reports stray files
	}
	if c.New.IsZero() {
		ix.remove(id)
		return nil
	}
	r, err := s.readRecord(c.New)
	if err != nil {
		if kernel.CodeOf(err) == kernel.CodeInternal {
			// Not read at all (I/O, a missing object): no cache may be
			// saved for this tip without the record, as buildIndex agrees.
			return err
		}
		// A record that does not parse is left out of the index; verify
		// names it. The index must not make a broken file look healthy.
		ix.remove(id)
		return nil
	}
	ix.put(entryOf(r, c.New))
	return nil
}

func (ix *Index) clone() *Index {
	c := newIndex()
	c.Tip = ix.Tip
	c.Entries = maps.Clone(ix.Entries) // entries are replaced, never mutated, so sharing is safe
	c.aliases = maps.Clone(ix.aliases)
	c.sorted = slices.Clone(ix.sorted)
	return c
}

// buildIndex reads every record at tip. It also returns the files under
// records/ that failed to decode, for reindex to report.
func (s *Store) buildIndex(tip plumbing.Hash, trees *treeReader) (*Index, []string, error) {
	root, err := s.rootOf(tip)
	if err != nil {
		return nil, nil, err
	}
	changes, err := recordChanges(trees, plumbing.ZeroHash, root)
	if err != nil {
		return nil, nil, err
	}
	ix := newIndex()
	ix.Tip = tip
	var broken []string
	for _, c := range changes {
		if _, _, ok := ParseRecordPath(c.Path); !ok {
			broken = append(broken, c.Path)
			continue
		}
		r, err := s.readRecord(c.New)
		if err != nil {
			if kernel.CodeOf(err) == kernel.CodeInternal {
				return nil, nil, err
			}
			broken = append(broken, c.Path)
			continue
		}
		ix.put(entryOf(r, c.New))
	}
	return ix, broken, nil
}
