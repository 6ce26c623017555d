package hooks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
)

// Hook names this package installs.
var (
	ClientHooks = []string{"pre-commit", "commit-msg", "pre-push"}
	ServerHooks = []string{"pre-receive", "update"}
)

// marker identifies a hook script written by Install.
const marker = "# installed by git-records"

// chainedSuffix is where Install keeps a hook that was already there; the
// installed script runs it first, with the same arguments and input.
const chainedSuffix = ".pre-records"

// HooksDir is where git looks for hooks: core.hooksPath, else <git dir>/hooks.
func HooksDir(s *gitstore.Store) string {
	if p, ok := s.ConfigValue("core.hooksPath"); ok && p != "" {
		if strings.HasPrefix(p, "~/") {
			home, _ := os.UserHomeDir()
			p = filepath.Join(home, p[2:])
		}
		if !filepath.IsAbs(p) {
			base := s.WorkTree()
			if base == "" {
				base = s.GitDir()
			}
			p = filepath.Join(base, p)
		}
		return p
	}
	return filepath.Join(s.CommonDir(), "hooks")
}

// scriptHead starts every hook script: the marker, and the binary to run
// (GIT_RECORDS_BIN, else the one that installed it, else git-records on PATH).
func scriptHead(binary string) string {
	return fmt.Sprintf(`#!/bin/sh
%s: verifies record commits (git records hooks uninstall removes it)
set -e
bin=%s
[ -n "${GIT_RECORDS_BIN:-}" ] && bin=$GIT_RECORDS_BIN
command -v "$bin" >/dev/null 2>&1 || bin=git-records
`, marker, shellQuote(binary))
}

// script is the hook: run a chained hook first, then git-records. With a
// chained hook, input is saved once so both see it (pre-push and
// pre-receive read stdin); without one, the shell execs git-records, which
// reads git's input itself: no helper process runs (a mktemp, cat, dirname
// and rm per hook were four of every push's processes on the server).
func script(name, binary string) string {
	return scriptHead(binary) + fmt.Sprintf(`case $0 in
*/*) chained="${0%%/*}/%s%s" ;;
*) chained="./%s%s" ;;
esac
if [ ! -x "$chained" ]; then
	exec "$bin" hook %s "$@"
fi
input=$(mktemp "${TMPDIR:-/tmp}/git-records-hook.XXXXXX")
trap 'rm -f "$input"' EXIT
cat > "$input"
"$chained" "$@" < "$input"
"$bin" hook %s "$@" < "$input"
`, name, chainedSuffix, name, chainedSuffix, name, name)
}

// forgeScript is the hook a forge runs from its <name>.d directory: the
// forge's own hook hands it git's input and arguments, and runs the other
// hooks there itself, so there is nothing to chain.
func forgeScript(name, binary string) string {
	return scriptHead(binary) + fmt.Sprintf("exec \"$bin\" hook %s \"$@\"\n", name)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Installed reports what Install did for one hook.
type Installed struct {
	Hook    string `json:"hook"`
	Path    string `json:"path"`
	Chained string `json:"chained,omitempty"` // the previous hook, now run first
	// Forge is set when the hook went where a forge runs custom hooks
	// (gitea, gitlab): the forge's own hook runs it.
	Forge string `json:"forge,omitempty"`
	// Restored is a forge's own hook that an install of ours in its
	// place had chained: it is back, and runs ours from its directory.
	Restored string `json:"restored,omitempty"`
}

// Forge is where a server repository's pre-receive and update hooks go.
// Gitea and Forgejo own hooks/pre-receive and hooks/update (they write them
// again when they resynchronize hooks, and find their own directory by the
// hook's name, so a renamed one checks nothing) and run every executable
// in hooks/<hook>.d/. GitLab runs the repository's custom_hooks/<hook>.d/.
type Forge string

const (
	ForgeDetect Forge = ""       // Gitea's layout, GitLab's, or plain: see DetectForge
	ForgeNone   Forge = "none"   // hooks/<hook>, chaining one already there
	ForgeGitea  Forge = "gitea"  // hooks/<hook>.d/git-records; Forgejo's too
	ForgeGitLab Forge = "gitlab" // custom_hooks/<hook>.d/git-records
)

// ParseForge reads a --forge value.
func ParseForge(v string) (Forge, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "auto":
		return ForgeDetect, nil
	case "none":
		return ForgeNone, nil
	case "gitea", "forgejo":
		return ForgeGitea, nil
	case "gitlab":
		return ForgeGitLab, nil
	}
	return "", kernel.Errorf(kernel.CodeUsage, "--forge %q: use gitea, forgejo, gitlab or none (default: detected)", v).WithExtra("flag", "--forge")
}

// forgeHookName is our file in a forge's <hook>.d directory.
const forgeHookName = "git-records"

// forgeHooksRoot is the directory holding the forge's <hook>.d directories.
func forgeHooksRoot(s *gitstore.Store, f Forge) string {
	if f == ForgeGitLab {
		return filepath.Join(s.CommonDir(), "custom_hooks")
	}
	return HooksDir(s)
}

// DetectForge says whose layout a server repository has: Gitea's (or
// Forgejo's) when hooks/pre-receive runs and hooks/pre-receive.d/ holds a
// hook of the forge's own (Gitea's is pre-receive.d/gitea), GitLab's when
// custom_hooks/ exists, else plain git's.
func DetectForge(s *gitstore.Store) Forge {
	dir := HooksDir(s)
	if hasRunner(dir, "pre-receive") && holdsOtherHook(filepath.Join(dir, "pre-receive.d")) {
		return ForgeGitea
	}
	if isDir(filepath.Join(s.CommonDir(), "custom_hooks")) {
		return ForgeGitLab
	}
	return ForgeNone
}

// hasRunner reports whether hooks/<name> is a hook of the forge's: an
// executable not ours, or the one an install of ours chained.
func hasRunner(dir, name string) bool {
	path := filepath.Join(dir, name)
	if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(marker)) {
		path += chainedSuffix
	}
	return isExecutable(path)
}

// holdsOtherHook reports whether dir holds an executable file that is not ours.
func holdsOtherHook(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() != forgeHookName && isExecutable(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

// Install writes the hooks, keeping any hook already there as
// <name>.pre-records and running it first. Installing twice is harmless.
// The server hooks go where DetectForge finds the repository runs them.
func Install(s *gitstore.Store, server bool, binary string) ([]Installed, error) {
	if server {
		return InstallServer(s, ForgeDetect, binary)
	}
	return installPlain(s, ClientHooks, binary)
}

// InstallServer writes pre-receive and update where forge runs them
// (ForgeDetect: where DetectForge finds it does).
func InstallServer(s *gitstore.Store, forge Forge, binary string) ([]Installed, error) {
	if forge == ForgeDetect {
		forge = DetectForge(s)
	}
	if forge == ForgeNone {
		return installPlain(s, ServerHooks, binary)
	}
	plainDir, root := HooksDir(s), forgeHooksRoot(s, forge)
	path := func(name string) string { return filepath.Join(root, name+".d", forgeHookName) }
	// Refuse before writing anything: a half install judges half the push.
	for _, name := range ServerHooks {
		if data, err := os.ReadFile(path(name)); err == nil && !bytes.Contains(data, []byte(marker)) {
			return nil, kernel.Errorf(kernel.CodeUsage, "%s exists and is not git-records' hook: move it away before installing", path(name))
		}
		if forge != ForgeGitea {
			continue
		}
		// The forge's hook, or ours chaining it (put back below).
		if !hasRunner(plainDir, name) {
			return nil, kernel.Errorf(kernel.CodeUsage, "--forge gitea: there is no %s to run %s, so git-records would judge nothing: install in a repository Gitea or Forgejo created (or have it resynchronize the repository's hooks), or use --forge none",
				filepath.Join(plainDir, name), filepath.Dir(path(name))).WithExtra("flag", "--forge")
		}
	}
	var out []Installed
	for _, name := range ServerHooks {
		inst := Installed{Hook: name, Path: path(name), Forge: string(forge)}
		// A plain install of ours in the forge's place runs the forge's
		// hook renamed: put the forge's hook back, ours goes in its directory.
		if removed, err := removeOurs(plainDir, name); err != nil {
			return out, err
		} else if removed != nil {
			inst.Restored = removed.Restored
		}
		if err := os.MkdirAll(filepath.Dir(inst.Path), 0o755); err != nil {
			return out, kernel.Wrap(kernel.CodeInternal, err, "create %s", filepath.Dir(inst.Path))
		}
		if err := writeExecutable(inst.Path, forgeScript(name, binary)); err != nil {
			return out, err
		}
		out = append(out, inst)
	}
	return out, nil
}

// installPlain writes hooks/<name> for each name, chaining a hook already there.
func installPlain(s *gitstore.Store, names []string, binary string) ([]Installed, error) {
	dir := HooksDir(s)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "create hooks directory")
	}
	var out []Installed
	for _, name := range names {
		path := filepath.Join(dir, name)
		inst := Installed{Hook: name, Path: path}
		if data, err := os.ReadFile(path); err == nil && !bytes.Contains(data, []byte(marker)) {
			chained := path + chainedSuffix
			if _, err := os.Stat(chained); err == nil {
				return nil, kernel.Errorf(kernel.CodeUsage, "both %s and %s exist: move one away before installing", path, chained)
			}
			if err := os.Rename(path, chained); err != nil {
				return nil, kernel.Wrap(kernel.CodeInternal, err, "keep existing %s hook", name)
			}
			inst.Chained = chained
		} else if _, err := os.Stat(path + chainedSuffix); err == nil {
			inst.Chained = path + chainedSuffix
		}
		if err := writeExecutable(path, script(name, binary)); err != nil {
			return nil, err
		}
		out = append(out, inst)
	}
	return out, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// InstallMergeDriver registers the records merge driver in the local git
// config, so files the branch's .gitattributes routes to it merge record by
// record in git merge and git pull.
func InstallMergeDriver(s *gitstore.Store, binary string) error {
	for k, v := range map[string]string{
		"merge.records.name":   "git-records record-level merge",
		"merge.records.driver": shellQuote(binary) + " merge-driver %O %A %B %P",
	} {
		if err := s.SetConfig(k, v); err != nil {
			return err
		}
	}
	return nil
}

// HandSigning is how `git commit` in a worktree with the records branch
// checked out comes to sign with the key git-records signs with, so that a
// hand edit passes the signature rule.
type HandSigning struct {
	Key   string            `json:"key"`             // the store's key (records.signingKey)
	Scope string            `json:"scope,omitempty"` // where Set went: "worktree" or "repository"
	Set   map[string]string `json:"set,omitempty"`   // what was written
	// Kept are the user's own settings that disagree; then nothing is
	// written and Run says how to sign a hand edit instead.
	Kept map[string]string `json:"kept,omitempty"`
	Run  string            `json:"run"`
}

// SetUpHandSigning makes git commit in this worktree sign with the store's
// key: gpg.format, user.signingkey and commit.gpgsign, written only where
// the user has no setting of their own (a user's setting is never
// overwritten: then nothing is written and Run is the command to use). A
// repository with linked worktrees gets them in this worktree's own config,
// so commits on code branches elsewhere keep the user's signing. It returns
// nil when there is nothing to set up: HEAD is not the records branch, or
// git-records signs with the user's own git config (no records.signingKey).
func SetUpHandSigning(s *gitstore.Store) (*HandSigning, error) {
	if s.WorkTree() == "" || s.HeadBranch() != s.Ref() {
		return nil, nil
	}
	key, ok := s.GitConfigValue("records.signingkey")
	if !ok || key == "" {
		return nil, nil
	}
	format, ok := s.GitConfigValue("records.signingformat")
	if !ok || format == "" {
		format = "ssh"
	}
	hs := &HandSigning{Key: key, Set: map[string]string{}, Kept: map[string]string{},
		Run: fmt.Sprintf("git -c gpg.format=%s -c user.signingkey=%s commit -S", format, key)}
	want := [][2]string{{"gpg.format", format}, {"user.signingkey", key}, {"commit.gpgsign", "true"}}
	var missing [][2]string
	for _, kv := range want {
		cur, ok := s.GitConfigValue(kv[0])
		switch {
		case !ok:
			missing = append(missing, kv)
		case !sameSetting(kv[0], cur, kv[1]):
			hs.Kept[kv[0]] = cur
		}
	}
	if len(hs.Kept) > 0 || len(missing) == 0 {
		// Half a signing setup would sign with the wrong key.
		return hs, nil
	}
	set := s.SetConfig
	hs.Scope = "repository"
	if linkedWorktrees(s) {
		if !configTrue(s, "extensions.worktreeConfig") {
			// git's rule for turning it on: core.bare and core.worktree
			// must not sit in the shared config, or every worktree
			// would lose them.
			if _, ok := s.ConfigValue("core.worktree"); ok || configTrue(s, "core.bare") {
				hs.Kept["extensions.worktreeConfig"] = "false"
				return hs, nil
			}
			if err := s.SetConfig("extensions.worktreeConfig", "true"); err != nil {
				return nil, err
			}
		}
		set, hs.Scope = s.SetWorktreeConfig, "worktree"
	}
	for _, kv := range missing {
		if err := set(kv[0], kv[1]); err != nil {
			return nil, err
		}
		hs.Set[kv[0]] = kv[1]
	}
	return hs, nil
}

// sameSetting compares config values as git reads them.
func sameSetting(key, a, b string) bool {
	switch key {
	case "gpg.format":
		return strings.EqualFold(a, b)
	case "commit.gpgsign":
		return isTrue(a) == isTrue(b)
	}
	return a == b
}

// configTrue reads key as a git boolean (false when unset).
func configTrue(s *gitstore.Store, key string) bool {
	v, ok := s.ConfigValue(key)
	return ok && isTrue(v)
}

func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

// linkedWorktrees reports whether the repository has more than one
// worktree: this one is linked, or others are.
func linkedWorktrees(s *gitstore.Store) bool {
	if s.GitDir() != s.CommonDir() {
		return true
	}
	entries, _ := os.ReadDir(filepath.Join(s.CommonDir(), "worktrees"))
	return len(entries) > 0
}

// PreReceiveInstalled reports whether our pre-receive hook is installed,
// in hooks/ or where a forge runs it: then it has judged and summed up the
// whole push, and the update hook, which git runs once per ref, only
// speaks to refuse.
func PreReceiveInstalled(s *gitstore.Store) bool {
	for _, path := range []string{
		filepath.Join(HooksDir(s), "pre-receive"),
		filepath.Join(forgeHooksRoot(s, ForgeGitea), "pre-receive.d", forgeHookName),
		filepath.Join(forgeHooksRoot(s, ForgeGitLab), "pre-receive.d", forgeHookName),
	} {
		if !isExecutable(path) {
			continue
		}
		if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(marker)) {
			return true
		}
	}
	return false
}

// Removed is one hook Uninstall took out.
type Removed struct {
	Hook     string `json:"hook"`
	Path     string `json:"path"`
	Restored string `json:"restored,omitempty"` // the hook it had chained, back in its place
}

// Uninstall removes our hooks, from hooks/ and from where forges run them,
// and puts back the ones they chained. A <hook>.d directory left empty is
// removed, and so is a custom_hooks directory left empty.
func Uninstall(s *gitstore.Store) ([]Removed, error) {
	dir := HooksDir(s)
	var out []Removed
	for _, name := range append(append([]string(nil), ClientHooks...), ServerHooks...) {
		r, err := removeOurs(dir, name)
		if err != nil {
			return out, err
		}
		if r != nil {
			out = append(out, *r)
		}
	}
	for _, f := range []Forge{ForgeGitea, ForgeGitLab} {
		root := forgeHooksRoot(s, f)
		for _, name := range ServerHooks {
			path := filepath.Join(root, name+".d", forgeHookName)
			data, err := os.ReadFile(path)
			if err != nil || !bytes.Contains(data, []byte(marker)) {
				continue
			}
			if err := os.Remove(path); err != nil {
				return out, kernel.Wrap(kernel.CodeInternal, err, "remove %s", path)
			}
			os.Remove(filepath.Dir(path)) // only when empty
			out = append(out, Removed{Hook: name, Path: path})
		}
		if f == ForgeGitLab {
			os.Remove(root) // only when empty
		}
	}
	return out, nil
}

// removeOurs removes hooks/<name> when it is ours and puts back the hook
// it chained; nil when it is not ours.
func removeOurs(dir, name string) (*Removed, error) {
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte(marker)) {
		return nil, nil
	}
	if err := os.Remove(path); err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "remove %s", path)
	}
	r := &Removed{Hook: name, Path: path}
	if _, err := os.Stat(path + chainedSuffix); err == nil {
		if err := os.Rename(path+chainedSuffix, path); err != nil {
			return nil, kernel.Wrap(kernel.CodeInternal, err, "restore %s", path)
		}
		r.Restored = path
	}
	return r, nil
}

func writeExecutable(path, content string) error {
	tmp := path + ".tmp-git-records"
	if err := os.WriteFile(tmp, []byte(content), 0o755); err != nil {
		return kernel.Wrap(kernel.CodeInternal, err, "write %s", path)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return kernel.Wrap(kernel.CodeInternal, err, "install %s", path)
	}
	return nil
}
