package gitdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitConfigList is `git config --list --show-origin -z` in dir: each value
// with the file it came from, in git's order.
func gitConfigList(t *testing.T, dir string) []string {
	t.Helper()
	cmd := exec.Command("git", "config", "--list", "--show-origin", "-z")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err)
	var list []string
	// -z: origin NUL key LF value NUL (key NUL for an implicit true).
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		origin := strings.TrimPrefix(fields[i], "file:")
		if !filepath.IsAbs(origin) { // git names the repository's own files relative to it
			origin = filepath.Join(dir, origin)
		}
		list = append(list, filepath.Clean(origin)+" "+fields[i+1])
	}
	return list
}

// ourConfigList is the same listing from Config.
func ourConfigList(t *testing.T, r *Repo) []string {
	t.Helper()
	c, err := r.Config()
	require.NoError(t, err)
	var list []string
	for _, e := range c.entries {
		kv := e.key
		if !e.implicit {
			kv += "\n" + e.value
		}
		list = append(list, filepath.Clean(e.origin)+" "+kv)
	}
	return list
}

// TestConfigIncludeIfMatchesGit pins break 15: git finds user.email and
// user.signingkey through includeIf "gitdir:…" (and gitdir/i:, onbranch:),
// and we did not. Each case writes a global config with one conditional
// include; what we read, file by file and in order, must be what
// git config --list --show-origin lists.
func TestConfigIncludeIfMatchesGit(t *testing.T) {
	home := isolate(t)
	work := filepath.Join(home, "Work", "proj")
	require.NoError(t, os.MkdirAll(work, 0o755))
	r, err := Init(work)
	require.NoError(t, err)
	git(t, work, "symbolic-ref", "HEAD", "refs/heads/feature/x")
	realWork, err := filepath.EvalSymlinks(work)
	require.NoError(t, err)
	link := filepath.Join(home, "link")
	require.NoError(t, os.Symlink(filepath.Join(home, "Work"), link))

	conds := []string{
		"gitdir:~/Work/",                   // ~ and a trailing / (meaning /**)
		"gitdir:~/Work/proj/.git",          // the git dir itself
		"gitdir:~/Work/proj",               // not the git dir: no match
		"gitdir:" + realWork + "/.git",     // absolute
		"gitdir:Work/proj/",                // relative: **/ prepended
		"gitdir:proj/.git",                 // relative, the git dir
		"gitdir:~/work/",                   // case differs: no match
		"gitdir/i:~/WORK/",                 // case-insensitive
		"gitdir:~/W*k/p?oj/",               // wildcards
		"gitdir:~/[VW]ork/proj/",           // a bracket expression
		"gitdir:~/*/.git",                  // * does not cross a /
		"gitdir:~/**/.git",                 // ** does
		"gitdir:./Work/",                   // ./ is the including file's directory
		"gitdir:~/link/",                   // a symlink to the git dir's parent
		"gitdir:~/other/",                  // no match
		"onbranch:feature/x",               // the branch HEAD names
		"onbranch:feature/",                // a trailing / (meaning /**)
		"onbranch:feature/*",               // a wildcard
		"onbranch:main",                    // another branch: no match
		"onbranch:Feature/x",               // onbranch is case-sensitive
		"hasconfig:remote.*.url:https://*", // not followed, by git either without a remote
	}
	for _, cond := range conds {
		t.Run(cond, func(t *testing.T) {
			writeFile(t, filepath.Join(home, "id.cfg"), "[user]\n\temail = work@example.com\n\tsigningkey = ~/.ssh/work\n")
			writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\temail = home@example.com\n[includeIf \""+cond+"\"]\n\tpath = id.cfg\n[after]\n\tk = v\n")
			assert.Equal(t, gitConfigList(t, work), ourConfigList(t, r))
		})
	}
}

// TestConfigIncludeIfInWorktree: a linked worktree's git dir is
// .git/worktrees/<name>, and its HEAD names its own branch.
func TestConfigIncludeIfInWorktree(t *testing.T) {
	home := isolate(t)
	main := filepath.Join(home, "main")
	_, err := Init(main)
	require.NoError(t, err)
	git(t, main, "commit", "-q", "--allow-empty", "-m", "root")
	wt := filepath.Join(home, "wt")
	git(t, main, "worktree", "add", "-q", "-b", "side", wt)
	r, err := Discover(wt)
	require.NoError(t, err)
	writeFile(t, filepath.Join(home, "a.cfg"), "[test]\n\ta = 1\n")
	writeFile(t, filepath.Join(home, ".gitconfig"),
		"[includeIf \"gitdir:~/main/.git/worktrees/\"]\n\tpath = a.cfg\n[includeIf \"onbranch:side\"]\n\tpath = a.cfg\n[includeIf \"onbranch:main\"]\n\tpath = a.cfg\n")
	assert.Equal(t, gitConfigList(t, wt), ourConfigList(t, r))
}

func TestGlobMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, text string
		fold, want    bool
	}{
		{"a/**", "a/b/c", false, true},
		{"**/c", "a/b/c", false, true},
		{"**/c", "c", false, true},
		{"a/**/c", "a/c", false, true},
		{"a/**/c", "a/b/x/c", false, true},
		{"a/*/c", "a/b/x/c", false, false},
		{"a/*", "a/b", false, true},
		{"a*", "a/b", false, false},
		{"a?c", "a/c", false, false},
		{"[a-c]x", "bx", false, true},
		{"[!a-c]x", "bx", false, false},
		{"[^a-c]x", "dx", false, true},
		{"[[:digit:]]x", "7x", false, true},
		{"[]]x", "]x", false, true},
		{"a\\*", "a*", false, true},
		{"a\\*", "ab", false, false},
		{"ABC", "abc", true, true},
		{"[A-C]x", "bx", true, true},
		{"ABC", "abc", false, false},
		{"a/[/]", "a//", false, false},
	} {
		assert.Equal(t, tt.want, globMatch(tt.pattern, tt.text, tt.fold), "%q ~ %q (fold %v)", tt.pattern, tt.text, tt.fold)
	}
}

// TestGlobMatchesGit: onbranch: patterns are matched as git matches them.
// The global config includes one file per pattern, each setting its own
// key, so one git config --list per branch tells which patterns matched.
func TestGlobMatchesGit(t *testing.T) {
	home := isolate(t)
	r, err := Init(filepath.Join(home, "repo"))
	require.NoError(t, err)
	patterns := []string{
		"*", "**", "a", "a*", "a/*", "a/**", "**/b", "a/**/b", "*/*", "*/b", "a**", "a/**b", "**b", "***/b",
		"a/***", "?", "??", "a?c", "a/?", "[a-c]*", "[!a]*", "[^a]*", "[]]*", "[]a]x", "[!]]*", "[a-]*", "[-a]*",
		"[[:alpha:]]*", "[[:digit:]]x", "[[:upper:]]*", "[[:punct:]]x", "[[:bogus:]]*", "[a", "[a-", "\\a*", "a\\",
		"a/**/", "a/b/", "**/", "*.y", "x.*", "[x-z].[a-z]", "a/*/b", "a/*/*/b", "**/**/b", "A/*", "[A-Z]/B",
		"ab*c*d", "*c/d", "ab/**/d", "a*/[b-x]", "]x", "-x", "[b-a]*", "[c-a-]*", "[a/b]*", "a[b-/[!a]*",
	}
	texts := []string{"a", "abc", "a/b", "a/x/b", "a/x/y/b", "b", "]x", "-x", "ab/c/d", "A/B", "x.y", "7x", "a/b/c", "abcd"}

	var global strings.Builder
	for i, p := range patterns {
		cfg := filepath.Join(home, fmt.Sprintf("p%d.cfg", i))
		writeFile(t, cfg, fmt.Sprintf("[m]\n\tp%d = yes\n", i))
		fmt.Fprintf(&global, "[includeIf \"onbranch:%s\"]\n\tpath = %s\n", strings.ReplaceAll(p, `\`, `\\`), cfg)
	}
	writeFile(t, filepath.Join(home, ".gitconfig"), global.String())
	for _, text := range texts {
		git(t, r.WorkTree, "symbolic-ref", "HEAD", "refs/heads/"+text)
		listed := git(t, r.WorkTree, "config", "--global", "--includes", "--list")
		for i, p := range patterns {
			gitMatched := strings.Contains(listed+"\n", fmt.Sprintf("m.p%d=yes\n", i))
			holds, err := (&includeContext{branch: text}).holds("onbranch:"+p, "")
			require.NoError(t, err)
			assert.Equal(t, gitMatched, holds, "onbranch:%s on branch %s", p, text)
		}
	}
}
