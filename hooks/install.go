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

// script is the hook: run a chained hook first, then git-records. With a
// chained hook, input is saved once so both see it (pre-push and
// pre-receive read stdin); without one, the shell execs git-records, which
// reads git's input itself: no helper process runs (a mktemp, cat, dirname
// and rm per hook were four of every push's processes on the server).
func script(name, binary string) string {
	return fmt.Sprintf(`#!/bin/sh
%s: verifies record commits (git records hooks uninstall removes it)
set -e
bin=%s
[ -n "${GIT_RECORDS_BIN:-}" ] && bin=$GIT_RECORDS_BIN
command -v "$bin" >/dev/null 2>&1 || bin=git-records
case $0 in
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
`, marker, shellQuote(binary), name, chainedSuffix, name, chainedSuffix, name, name)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Installed reports what Install did for one hook.
type Installed struct {
	Hook    string `json:"hook"`
	Path    string `json:"path"`
	Chained string `json:"chained,omitempty"` // the previous hook, now run first
}

// Install writes the hooks, keeping any hook already there as
// <name>.pre-records and running it first. Installing twice is harmless.
func Install(s *gitstore.Store, server bool, binary string) ([]Installed, error) {
	dir := HooksDir(s)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, kernel.Wrap(kernel.CodeInternal, err, "create hooks directory")
	}
	names := ClientHooks
	if server {
		names = ServerHooks
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

// PreReceiveInstalled reports whether our pre-receive hook is installed:
// then it has judged and summed up the whole push, and the update hook,
// which git runs once per ref, only speaks to refuse.
func PreReceiveInstalled(s *gitstore.Store) bool {
	path := filepath.Join(HooksDir(s), "pre-receive")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&0o111 == 0 {
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && bytes.Contains(data, []byte(marker))
}

// Uninstall removes our hooks and puts back the ones they chained.
func Uninstall(s *gitstore.Store) ([]string, error) {
	dir := HooksDir(s)
	var removed []string
	for _, name := range append(append([]string(nil), ClientHooks...), ServerHooks...) {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte(marker)) {
			continue
		}
		if err := os.Remove(path); err != nil {
			return removed, kernel.Wrap(kernel.CodeInternal, err, "remove %s", path)
		}
		if _, err := os.Stat(path + chainedSuffix); err == nil {
			if err := os.Rename(path+chainedSuffix, path); err != nil {
				return removed, kernel.Wrap(kernel.CodeInternal, err, "restore %s", path)
			}
		}
		removed = append(removed, name)
	}
	return removed, nil
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
