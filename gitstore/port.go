package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// Store and View are the git implementation of the kernel's store port;
// kernel/storetest holds them to the same suite as every other store.
var (
	_ kernel.Store        = (*Store)(nil)
	_ kernel.GatedWriter  = (*Store)(nil)
	_ kernel.StreamWriter = (*Store)(nil)
	_ kernel.Snapshot     = (*View)(nil)
)

// Snapshot is View as the store port returns it.
func (s *Store) Snapshot() (kernel.Snapshot, error) {
	v, err := s.View()
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Revision is the tip commit's hash; "" while the branch does not exist.
func (s *Store) Revision() (string, error) {
	tip, err := s.Tip()
	if err != nil {
		return "", err
	}
	return revision(tip), nil
}

// Write is Mutate as the store port reports it.
func (s *Store) Write(decide kernel.DecideFunc) (kernel.Written, error) {
	return s.WriteApproved(decide, kernel.Approval{})
}

// WriteApproved is MutateApproved as the store port reports it.
func (s *Store) WriteApproved(decide kernel.DecideFunc, approval kernel.Approval) (kernel.Written, error) {
	w, err := s.MutateApproved(decide, approval)
	if err != nil || w == nil {
		return kernel.Written{}, err
	}
	return kernel.Written{Revision: revision(w.Commit), Mutation: w.Mutation, Attempts: w.Attempts}, nil
}

// WriteStream is MutateStream as the store port reports it.
func (s *Store) WriteStream(decide kernel.StreamFunc, approval kernel.Approval) (kernel.Written, error) {
	w, err := s.MutateStream(decide, approval)
	if err != nil || w == nil {
		return kernel.Written{}, err
	}
	return kernel.Written{Revision: revision(w.Commit), Mutation: w.Mutation, Attempts: w.Attempts}, nil
}

// Revision is the hash of the commit this view reads; "" for a branch that
// does not exist yet.
func (v *View) Revision() string { return revision(v.tip) }

// IDs lists every record id at this view's tip, sorted, from the index.
func (v *View) IDs() ([]string, error) {
	ix, err := v.Index()
	if err != nil {
		return nil, err
	}
	return ix.IDs(), nil
}

func revision(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}
