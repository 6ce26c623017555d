package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/gitstore/signing"
)

// The repository around the store, as far as callers above gitstore need
// it: where it lives and what its config says. The repository and config
// objects themselves stay inside, so every read and write of them goes
// through gitstore's rules (one ref protocol, one git runner).

// GitDir is the repository's git directory (a linked worktree's own).
func (s *Store) GitDir() string { return s.repo.GitDir }

// CommonDir is the directory shared by every worktree: objects, refs, config, hooks.
func (s *Store) CommonDir() string { return s.repo.CommonDir }

// WorkTree is the working tree, "" in a bare repository.
func (s *Store) WorkTree() string { return s.repo.WorkTree }

// ConfigValue is key's value as git resolves it (last one wins).
func (s *Store) ConfigValue(key string) (string, bool) { return s.config.Get(key) }

// ConfigGetter is the git config, read-only, as signing reads it.
func (s *Store) ConfigGetter() signing.ConfigGetter { return s.config }

// SetConfig writes key=value to the repository's own config, as
// `git config --local` does.
func (s *Store) SetConfig(key, value string) error { return fromGitdir(s.repo.SetLocal(key, value)) }

// ReadRef returns the commit a ref points at (zero when it does not exist).
func (s *Store) ReadRef(name string) (plumbing.Hash, error) { return s.repo.ReadRef(name) }

// GitConfigValue is key's value as the git CLI itself resolves it, includeIf
// and all: what to consult before writing a setting a user may already have.
func (s *Store) GitConfigValue(key string) (string, bool) { return s.repo.GitGet(key) }

// SetWorktreeConfig writes key=value to this worktree's own config
// (config.worktree), which git reads once extensions.worktreeConfig is on.
func (s *Store) SetWorktreeConfig(key, value string) error {
	return fromGitdir(s.repo.SetWorktree(key, value))
}
