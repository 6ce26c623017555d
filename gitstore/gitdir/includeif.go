package gitdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// includeContext is what git tests includeIf conditions against: the
// repository's git dir (for a linked worktree, its own under
// .git/worktrees) and the branch its HEAD names.
type includeContext struct {
	gitDir string
	branch string // "" when HEAD is detached
}

func (r *Repo) includeContext() *includeContext {
	ctx := &includeContext{gitDir: r.GitDir}
	// HEAD names a branch even before its first commit, as git's
	// resolve_ref_unsafe without RESOLVE_REF_READING does.
	if b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD")); err == nil {
		if target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:"); ok {
			ctx.branch, _ = strings.CutPrefix(strings.TrimSpace(target), "refs/heads/")
			if ctx.branch == strings.TrimSpace(target) {
				ctx.branch = "" // a symbolic HEAD outside refs/heads
			}
		}
	}
	return ctx
}

// conditionOf returns the condition of an "includeIf.<condition>.path" key.
func conditionOf(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "includeif.")
	if !ok {
		return "", false
	}
	condition, ok := strings.CutSuffix(rest, ".path")
	return condition, ok && condition != ""
}

// holds says whether an includeIf condition holds (git-config(1),
// "Conditional includes"): gitdir:, gitdir/i: and onbranch:. An unknown
// condition, and hasconfig:, never hold here.
func (ctx *includeContext) holds(condition, origin string) (bool, error) {
	if ctx == nil {
		return false, nil // outside a repository no condition holds, as in git
	}
	if p, ok := strings.CutPrefix(condition, "gitdir:"); ok {
		return ctx.gitDirMatches(p, origin, false)
	}
	if p, ok := strings.CutPrefix(condition, "gitdir/i:"); ok {
		return ctx.gitDirMatches(p, origin, true)
	}
	if p, ok := strings.CutPrefix(condition, "onbranch:"); ok {
		if ctx.branch == "" {
			return false, nil
		}
		if strings.HasSuffix(p, "/") {
			p += "**"
		}
		return globMatch(p, ctx.branch, false), nil
	}
	return false, nil
}

// gitDirMatches matches the git dir against a gitdir: pattern as
// git-config(1) describes it: "~/" is the home directory, "./" the
// including file's directory (taken literally, not as a pattern), a
// relative pattern matches at any depth ("**/" in front) and a trailing
// "/" matches everything below ("**" after). The git dir is tried with its
// symlinks resolved, then as written, which is how git finds a pattern
// written through a symlink.
func (ctx *includeContext) gitDirMatches(pattern, origin string, fold bool) (bool, error) {
	pattern = expandHomeInPattern(pattern)
	prefix := 0
	switch {
	case strings.HasPrefix(pattern, "./"):
		if origin == cmdlineOrigin {
			return false, fmt.Errorf("relative config include conditionals must come from files: %s", pattern)
		}
		file, err := filepath.Abs(origin)
		if err != nil {
			return false, fmt.Errorf("resolve %s: %w", origin, err)
		}
		if real, err := filepath.EvalSymlinks(file); err == nil {
			file = real
		}
		dir := filepath.Dir(file)
		pattern = dir + pattern[1:]
		prefix = len(dir) + 1
	case !filepath.IsAbs(pattern):
		pattern = "**/" + pattern
	}
	if strings.HasSuffix(pattern, "/") {
		pattern += "**"
	}
	matches := func(text string) bool {
		if len(text) < prefix || !eqPrefix(pattern[:prefix], text[:prefix], fold) {
			return false
		}
		return globMatch(pattern[prefix:], text[prefix:], fold)
	}
	abs, err := filepath.Abs(ctx.gitDir)
	if err != nil {
		return false, fmt.Errorf("resolve %s: %w", ctx.gitDir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && matches(real) {
		return true, nil
	}
	return matches(abs), nil
}

func eqPrefix(a, b string, fold bool) bool {
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// expandHomeInPattern makes "~/" and "~user/" at the start of a pattern the
// home directory, and changes nothing else (a trailing "/" matters to the
// pattern, so the path is not cleaned).
func expandHomeInPattern(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, rest, slash := strings.Cut(p[1:], "/")
	home := homeOf(name)
	if home == "" {
		return p
	}
	if !slash {
		return home
	}
	return strings.TrimSuffix(home, "/") + "/" + rest
}
