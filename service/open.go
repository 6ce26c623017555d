package service

import (
	"os"
	"path/filepath"
	"time"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// Options are how a git store is opened; the zero value is right for a
// command line.
type Options struct {
	Ref string           // the records branch; default records.ref, else refs/heads/records
	Now func() time.Time // clock; default time.Now (tests set one)
}

func (o Options) git() gitstore.Options { return gitstore.Options{Ref: o.Ref, Now: o.Now} }

// Open is the service over the records branch of the git repository
// around dir, judging scopes in dir's working tree.
func Open(dir string, opts Options) (*Service, error) {
	s, err := gitstore.Open(dir, opts.git())
	if err != nil {
		return nil, err
	}
	return New(s, dir), nil
}

// OpenStandalone is the service over the store kept in dir (`--store DIR`),
// set up on first use: a repository of its own, an identity and a signing
// key when git's configuration has none, and the records branch. Scopes
// are judged in workDir.
func OpenStandalone(dir string, opts Options, workDir string) (*Service, error) {
	s, err := gitstore.OpenStandalone(dir, opts.git())
	if err != nil {
		return nil, err
	}
	return New(s, workDir), nil
}

// OpenStandaloneIfPresent is OpenStandalone for a reader that must not set
// the store up: nil, with no error, when dir holds no repository yet.
func OpenStandaloneIfPresent(dir string, opts Options, workDir string) (*Service, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, kernel.Wrap(kernel.CodeUsage, err, "store path %q", dir)
	}
	if _, err := os.Stat(filepath.Join(abs, ".git")); err != nil {
		return nil, nil
	}
	s, err := gitstore.Open(abs, opts.git())
	if err != nil {
		return nil, err
	}
	return New(s, workDir), nil
}

// Close releases what the store holds open (a git cat-file process).
func (s *Service) Close() error {
	if s.git == nil {
		return nil
	}
	return s.git.Close()
}

// Ref is the full name of the records branch ("" over a store that is not git's).
func (s *Service) Ref() string {
	if s.git == nil {
		return ""
	}
	return s.git.Ref()
}

// SetCall names the caller of the ops this service writes from now on,
// which their audit lines record: a front-end sets it once per request.
func (s *Service) SetCall(c Call) {
	if s.git != nil {
		s.git.SetCall(gitstore.Call(c))
	}
}

// RequireBranch says what to do when the records branch does not exist
// here yet: pull it when the default remote has one (a fresh clone; the
// error's "remote" extra names it), else init one. nil once it exists.
func (s *Service) RequireBranch() error {
	if s.git == nil {
		return nil
	}
	return s.git.RequireBranch()
}

// ConfigValue reads the repository's git configuration.
func (s *Service) ConfigValue(key string) (string, bool) {
	if s.git == nil {
		return "", false
	}
	return s.git.ConfigValue(key)
}

// Ident is the committer identity git would use here.
func (s *Service) Ident() (name, email string) {
	if s.git == nil {
		return "", ""
	}
	return s.git.Ident()
}

// Tip is the commit the records branch points at ("" when it has none).
func (s *Service) Tip() (string, error) { return s.store.Revision() }

// ResolveRevision turns a revision (a commit id, a branch, HEAD~2) into a
// commit id.
func (s *Service) ResolveRevision(rev string) (string, error) {
	g, err := s.needsGit("a revision")
	if err != nil {
		return "", err
	}
	h, err := g.ResolveRev(rev)
	return revision(h), err
}
