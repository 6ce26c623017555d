package gitstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/git-records/git-records/gitstore/gitdir"
	"github.com/git-records/git-records/kernel"
)

// ScopeScanner captures and re-evaluates record scopes against one working
// tree as it is now, uncommitted edits included. It lists the tree's files
// once and hashes each distinct file at most once, however many records
// name it.
type ScopeScanner struct {
	dir    string    // where it was asked for
	once   sync.Once // load
	root   string    // working tree root
	repo   *gitdir.Repo
	head   string
	base   string
	files  []string          // tracked and untracked-but-not-ignored files, sorted
	hashes map[string]string // path -> content hash; "" for a file that cannot be read
	err    error             // why scopes cannot be evaluated here
}

// NewScopeScanner prepares a scanner for the working tree around dir. When
// dir is not inside a working tree every scope evaluates as unavailable.
// Nothing is read until a scope is asked about: most reads (show, list) hold
// records without a scope, and listing the working tree runs three git
// processes.
func NewScopeScanner(dir string) *ScopeScanner {
	return &ScopeScanner{dir: dir, hashes: map[string]string{}}
}

// load finds the working tree, its HEAD and its files, once.
func (s *ScopeScanner) load() {
	s.once.Do(func() {
		repo, err := gitdir.Discover(s.dir)
		if err != nil {
			s.err = errors.New("not inside a git working tree: scopes are checked against the code's working tree")
			return
		}
		if repo.WorkTree == "" {
			s.err = errors.New("a bare repository has no working tree to check scopes against")
			return
		}
		s.repo, s.root = repo, repo.WorkTree
		st := &Store{repo: repo}
		if out, err := st.git("rev-parse", "--verify", "-q", "HEAD"); err == nil {
			s.head = strings.TrimSpace(out)
		}
		s.base = strings.TrimPrefix(st.HeadBranch(), "refs/heads/")
		out, err := st.gitIn(s.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
		if err != nil {
			s.err = err
			return
		}
		seen := map[string]bool{}
		for _, f := range strings.Split(out, "\x00") {
			if f != "" && !seen[f] {
				seen[f] = true
				s.files = append(s.files, f)
			}
		}
		sort.Strings(s.files)
	})
}

func (s *ScopeScanner) Root() string { s.load(); return s.root }

// Head is the working tree's HEAD commit.
func (s *ScopeScanner) Head() string { s.load(); return s.head }

// Normalize turns paths given relative to cwd into paths relative to the
// working tree root, as scopes store them.
func (s *ScopeScanner) Normalize(cwd string, patterns []string) ([]string, error) {
	s.load()
	if s.err != nil {
		return nil, s.err
	}
	out := make([]string, 0, len(patterns))
	for _, p := range patterns {
		if p == "" {
			return nil, kernel.Errorf(kernel.CodeMissingEvidence, "scope path is empty: name a file, directory or glob of the working tree").WithField("scope")
		}
		abs := p
		if !filepath.IsAbs(p) {
			abs = filepath.Join(cwd, p)
		}
		rel, err := filepath.Rel(s.root, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, kernel.Errorf(kernel.CodeMissingEvidence, "scope path %q is outside the working tree %s", p, s.root).WithField("scope")
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// Capture records a scope over patterns (files, directories or globs,
// relative to the working tree root) as the tree holds them now.
func (s *ScopeScanner) Capture(patterns []string) (*kernel.Scope, error) {
	s.load()
	if s.err != nil {
		return nil, kernel.Errorf(kernel.CodeMissingEvidence, "cannot capture a scope: %v", s.err).WithField("scope")
	}
	st := s.State(&kernel.Scope{Paths: patterns})
	if st.Err != nil {
		return nil, kernel.Errorf(kernel.CodeMissingEvidence, "cannot capture a scope: %v", st.Err).WithField("scope")
	}
	if len(st.Files) == 0 {
		return nil, kernel.Errorf(kernel.CodeMissingEvidence, "scope %s matches no file in %s", strings.Join(patterns, ", "), s.root).WithField("scope")
	}
	return &kernel.Scope{GitHead: s.head, Base: s.base, Paths: patterns, ChangedFilesHash: st.Hash, Files: st.Files}, nil
}

// State evaluates a scope against the working tree now.
func (s *ScopeScanner) State(scope *kernel.Scope) kernel.ScopeState {
	s.load()
	if s.err != nil {
		return kernel.ScopeState{Err: s.err}
	}
	files := map[string]string{}
	for _, pattern := range scope.Paths {
		pattern = cleanPattern(pattern)
		match, err := matcher(pattern)
		if err != nil {
			return kernel.ScopeState{Err: err}
		}
		for _, f := range s.candidates(pattern) {
			if match(f) {
				if h := s.hash(f); h != "" {
					files[f] = h
				}
			}
		}
	}
	return kernel.ScopeState{GitHead: s.head, Hash: FilesHash(files), Files: files}
}

// candidates narrows the sorted file list to those a pattern can match.
func (s *ScopeScanner) candidates(pattern string) []string {
	prefix := pattern
	if i := strings.IndexAny(pattern, "*?["); i >= 0 {
		prefix = pattern[:i]
	}
	lo := sort.SearchStrings(s.files, prefix)
	hi := lo
	for hi < len(s.files) && strings.HasPrefix(s.files[hi], prefix) {
		hi++
	}
	return s.files[lo:hi]
}

// cleanPattern is a scope path as matched: cleaned, so "./src" and "src/"
// are "src", and "" for the whole tree ("." from the root, as Normalize
// gives it for the working tree's top directory).
func cleanPattern(pattern string) string {
	pattern = strings.TrimSuffix(path.Clean(pattern), "/")
	if pattern == "." {
		return ""
	}
	return pattern
}

// matcher: the whole tree (""), an exact file, everything under a
// directory, or a glob where * stays inside one path segment and **
// crosses segments. pattern is cleaned (cleanPattern).
func matcher(pattern string) (func(string) bool, error) {
	if pattern == "" {
		return func(string) bool { return true }, nil
	}
	if !strings.ContainsAny(pattern, "*?[") {
		return func(f string) bool { return f == pattern || strings.HasPrefix(f, pattern+"/") }, nil
	}
	if !strings.Contains(pattern, "**") {
		if _, err := path.Match(pattern, ""); err != nil {
			return nil, kernel.Errorf(kernel.CodeMissingEvidence, "bad scope glob %q: %v", pattern, err)
		}
		return func(f string) bool { ok, _ := path.Match(pattern, f); return ok }, nil
	}
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case strings.HasPrefix(pattern[i:], "**/"):
			re.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "**"):
			re.WriteString(".*")
			i++
		case c == '*':
			re.WriteString("[^/]*")
		case c == '?':
			re.WriteString("[^/]")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return nil, kernel.Errorf(kernel.CodeMissingEvidence, "bad scope glob %q: %v", pattern, err)
	}
	return rx.MatchString, nil
}

// hash returns the content hash of a file, once per file per scanner; ""
// when the file is gone (a deleted file counts as a change).
func (s *ScopeScanner) hash(f string) string {
	if h, ok := s.hashes[f]; ok {
		return h
	}
	full := filepath.Join(s.root, filepath.FromSlash(f))
	var h string
	if fi, err := os.Lstat(full); err == nil {
		var data []byte
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(full)
			data = []byte("symlink:" + target)
		} else if fi.Mode().IsRegular() {
			data, err = os.ReadFile(full)
			if err != nil {
				data = nil
			}
		}
		if data != nil {
			sum := sha256.Sum256(data)
			h = hex.EncodeToString(sum[:])
		}
	}
	s.hashes[f] = h
	return h
}

// FilesHash is changedFilesHash: sha256 over the sorted (path, content hash)
// pairs, so the same content gives the same hash on any machine.
func FilesHash(files map[string]string) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write([]byte(files[p]))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// CaptureScope fills a scope given only by paths (relative to dir, the
// caller's working directory) with the working tree's HEAD, base and
// content hashes, so the record is current when it is written. A scope
// that is nil, has no paths or is captured already is returned as it is.
// Every front-end (CLI flags, contract requests) captures through it.
func CaptureScope(dir string, sc *kernel.Scope) (*kernel.Scope, error) {
	if sc == nil || len(sc.Paths) == 0 || sc.ChangedFilesHash != "" {
		return sc, nil
	}
	scanner := NewScopeScanner(dir)
	norm, err := scanner.Normalize(dir, sc.Paths)
	if err != nil {
		if kernel.CodeOf(err) == kernel.CodeInternal { // the working tree could not be read
			err = kernel.Errorf(kernel.CodeMissingEvidence, "cannot capture a scope: %v", err)
		}
		return nil, kernel.AboutField(err, "scope")
	}
	return scanner.Capture(norm)
}
