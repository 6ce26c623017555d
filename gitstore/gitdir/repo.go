package gitdir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Repo locates a repository the way git does.
type Repo struct {
	GitDir    string // per-worktree git dir (HEAD, index live here)
	CommonDir string // shared dir: objects, refs, packed-refs, config (== GitDir unless a linked worktree)
	WorkTree  string // "" for bare repositories (and when discovered from inside a git dir)
	Bare      bool   // no work tree

	// ObjectDir is where objects are written: <CommonDir>/objects, or
	// $GIT_OBJECT_DIRECTORY. git sets the latter for a pre-receive hook to a
	// quarantine directory holding the pushed objects, with the real object
	// directory in AlternateObjectDirs; a reader in a hook must look in both.
	ObjectDir           string
	AlternateObjectDirs []string // from $GIT_ALTERNATE_OBJECT_DIRECTORIES

	// LockTimeout is how long UpdateRef retries a "<ref>.lock" held by another
	// process before reporting RefConflict{Locked: true} (zero: no retry).
	// Discover and Init set git's core.filesRefLockTimeout default, 100ms.
	LockTimeout time.Duration
}

const defaultLockTimeout = 100 * time.Millisecond

// Discover finds the repository containing dir, as git does: $GIT_DIR (with
// $GIT_WORK_TREE and $GIT_COMMON_DIR) first, because git sets it for hooks,
// including the pre-receive hook of a bare server repository; otherwise it
// walks up from dir looking for a ".git" directory or "gitdir:" file, or a
// directory that is itself a git dir (a bare repository), stopping at
// $GIT_CEILING_DIRECTORIES. With $GIT_DIR set and no work tree configured,
// git takes the current directory as the top of the work tree; Discover takes
// dir. Relative $GIT_* paths are relative to the process's working directory,
// as they are for git.
//
// Not done: git's safe.directory ownership check and its stop at filesystem
// boundaries (GIT_DISCOVERY_ACROSS_FILESYSTEM).
func Discover(dir string) (*Repo, error) {
	start, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	if env := os.Getenv("GIT_DIR"); env != "" {
		gitDir, err := filepath.Abs(env)
		if err != nil {
			return nil, fmt.Errorf("resolve GIT_DIR=%s: %w", env, err)
		}
		if gitDir, err = followGitFile(gitDir); err != nil {
			return nil, err
		}
		if !isGitDir(gitDir, os.Getenv) {
			return nil, notAStore(nil, "GIT_DIR=%s is not a git repository", env)
		}
		return newRepo(gitDir, start, os.Getenv)
	}

	ceilings := ceilingDirs()
	for d := start; ; {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			gitDir := dotGit
			if !fi.IsDir() { // a linked worktree or a submodule: "gitdir: <path>"
				if gitDir, err = followGitFile(dotGit); err != nil {
					return nil, err
				}
			}
			if isGitDir(gitDir, os.Getenv) {
				return newRepo(gitDir, d, os.Getenv)
			}
		}
		if isGitDir(d, os.Getenv) {
			return newRepo(d, "", os.Getenv)
		}
		parent := filepath.Dir(d)
		if parent == d || ceilings[parent] {
			break
		}
		d = parent
	}
	return nil, notAStore(nil, "not a git repository (or any of the parent directories): %s", start)
}

// Init creates a new non-bare repository at dir with `git init` and returns
// it. The child runs without the caller's $GIT_DIR and friends, so that it
// creates the repository at dir even when called from a hook.
func Init(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	// SHA-1 explicitly: a user's init.defaultObjectFormat=sha256 would give
	// a repository go-git v5 cannot read.
	if run := execGit("", envWithout(os.Environ(), locationEnv...), "init", "-q", "--object-format=sha1", abs); run.Err != nil {
		return nil, fmt.Errorf("git init %s: %s: %w", abs, run.Message(), run.Err)
	}
	noEnv := func(string) string { return "" }
	return newRepo(filepath.Join(abs, ".git"), abs, noEnv)
}

// locationEnv are the variables that make git look somewhere other than
// where it is asked to.
var locationEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
}

func envWithout(env []string, names ...string) []string {
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// newRepo completes a Repo from its git dir. defaultWorkTree is the work tree
// when neither the environment nor the config names one ("" for none).
func newRepo(gitDir, defaultWorkTree string, getenv func(string) string) (*Repo, error) {
	r := &Repo{
		GitDir:      filepath.Clean(gitDir),
		CommonDir:   commonDir(gitDir, getenv),
		LockTimeout: defaultLockTimeout,
	}
	local, err := readConfigFile(filepath.Join(r.CommonDir, "config"))
	if err != nil {
		return nil, err
	}
	if err := checkFormat(r.CommonDir, local); err != nil {
		return nil, err
	}

	workTree := defaultWorkTree
	// A linked worktree ignores the common config's core.bare and
	// core.worktree: they describe the main worktree.
	if r.CommonDir == r.GitDir {
		if wt, ok := local.Get("core.worktree"); ok {
			workTree = absFrom(r.GitDir, wt)
		} else if local.Bool("core.bare", false) {
			workTree = ""
		}
	}
	if wt := getenv("GIT_WORK_TREE"); wt != "" {
		workTree, _ = filepath.Abs(wt)
	}
	r.WorkTree, r.Bare = workTree, workTree == ""

	r.ObjectDir = filepath.Join(r.CommonDir, "objects")
	if od := getenv("GIT_OBJECT_DIRECTORY"); od != "" {
		r.ObjectDir, _ = filepath.Abs(od)
	}
	for _, alt := range filepath.SplitList(getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES")) {
		if alt != "" {
			abs, _ := filepath.Abs(alt)
			r.AlternateObjectDirs = append(r.AlternateObjectDirs, abs)
		}
	}
	return r, nil
}

// checkFormat refuses repositories whose format go-git v5 and this package
// cannot read or write correctly.
func checkFormat(commonDir string, local *Config) error {
	if v, ok := local.Get("core.repositoryformatversion"); ok && v != "0" && v != "1" {
		return notAStore(nil, "%s has repository format version %s; only 0 and 1 are supported", commonDir, v)
	}
	if f, ok := local.Get("extensions.objectformat"); ok && !strings.EqualFold(f, "sha1") {
		return notAStore(nil, "%s uses object format %s; only sha1 repositories are supported", commonDir, f)
	}
	if f, ok := local.Get("extensions.refstorage"); ok && !strings.EqualFold(f, "files") {
		return notAStore(nil, "%s uses the %s ref backend; only the files backend is supported", commonDir, f)
	}
	return nil
}

// commonDir follows a linked worktree's "commondir" file to the shared dir.
func commonDir(gitDir string, getenv func(string) string) string {
	if env := getenv("GIT_COMMON_DIR"); env != "" {
		abs, _ := filepath.Abs(env)
		return abs
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return filepath.Clean(gitDir)
	}
	return absFrom(gitDir, strings.TrimRight(string(b), "\r\n"))
}

// followGitFile returns path itself when it is a directory, or the git dir a
// "gitdir: <path>" file points to (relative to the file's directory).
func followGitFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return path, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &inputError{kind: ErrNotARepository, cause: err, message: fmt.Sprintf("read %s: %v", path, err)}
	}
	target, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
	if !ok || target == "" {
		return "", notAStore(nil, "invalid gitfile format: %s", path)
	}
	return absFrom(filepath.Dir(path), target), nil
}

// isGitDir is git's is_git_directory: a HEAD that looks like a ref, and
// objects/ and refs/ in the common dir.
func isGitDir(dir string, getenv func(string) string) bool {
	head, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	if err != nil || !(bytes.HasPrefix(head, []byte("ref: refs/")) || isHexHash(bytes.TrimSpace(head))) {
		return false
	}
	common := commonDir(dir, getenv)
	objects := filepath.Join(common, "objects")
	if od := getenv("GIT_OBJECT_DIRECTORY"); od != "" {
		objects = od
	}
	return isDir(objects) && isDir(filepath.Join(common, "refs"))
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func isHexHash(b []byte) bool {
	if len(b) != 40 {
		return false
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// absFrom resolves p against base unless it is absolute.
func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// ceilingDirs parses $GIT_CEILING_DIRECTORIES: discovery never moves up into
// one of these (it still looks at the starting directory itself).
func ceilingDirs() map[string]bool {
	out := map[string]bool{}
	for _, d := range filepath.SplitList(os.Getenv("GIT_CEILING_DIRECTORIES")) {
		if filepath.IsAbs(d) {
			out[filepath.Clean(d)] = true
		}
	}
	return out
}
