package service

import "github.com/git-records/git-records/kernel"

// MigrateResult is what migrate did: the store's format now and, when it
// rewrote anything, the commit and how many records.
type MigrateResult struct {
	Format    int    `json:"format"`
	Unchanged bool   `json:"unchanged"`
	Commit    string `json:"commit,omitempty"`
	Records   int    `json:"records,omitempty"`
}

// Migrate rewrites the store to the format this build writes, in one
// signed commit (nothing when it is current).
func (s *Service) Migrate(agent string, approval kernel.Approval) (*MigrateResult, error) {
	g, err := s.needsGit("migrate")
	if err != nil {
		return nil, err
	}
	w, err := g.Migrate(agent, approval)
	if err != nil {
		return nil, err
	}
	v, err := g.View()
	if err != nil {
		return nil, err
	}
	f, err := v.Format()
	if err != nil {
		return nil, err
	}
	res := &MigrateResult{Format: f, Unchanged: w.Commit.IsZero()}
	if !res.Unchanged {
		res.Commit, res.Records = w.Commit.String(), len(w.Mutation.Writes)
	}
	return res, nil
}
