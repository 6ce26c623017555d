// Package hooks is `git records hooks install|uninstall`: the git hooks
// that verify record commits, the merge driver and hand-commit signing.
package hooks

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// HooksOptions are the hooks subcommands' inputs; Verb says which ran.
type HooksOptions struct {
	IO      *cmdutil.IOStreams
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer
	// Executable is the binary the hooks run (os.Executable).
	Executable func() (string, error)

	Verb   string // install or uninstall
	Server bool   // install --server
	Forge  string // install --server --forge: where the server hooks go
}

// NewCmdHooks is the hooks command and its install and uninstall
// subcommands; runF (nil: hooksRun) runs the one given.
func NewCmdHooks(f *cmdutil.Factory, runF func(*HooksOptions) error) *cobra.Command {
	opts := &HooksOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer, Executable: os.Executable}
	run := func(verb string) error {
		opts.Verb = verb
		if runF != nil {
			return runF(opts)
		}
		return hooksRun(opts)
	}
	c := &cobra.Command{Use: "hooks", Short: "Install or remove the git hooks that verify record commits",
		Example: "  git records hooks install"}
	install := &cobra.Command{
		Use:   "install [--server [--forge gitea|forgejo|gitlab|none]]",
		Short: "Install pre-commit, commit-msg and pre-push (or, with --server, pre-receive and update)",
		Example: `  git records hooks install            # pre-commit and pre-push in this clone
  git records hooks install --server   # pre-receive on a bare server repository
  git records hooks install --server --forge gitlab   # custom_hooks/pre-receive.d/ for GitLab`,
		Long: `Installs hooks into core.hooksPath or .git/hooks. A hook already there is kept
as <name>.pre-records and runs first with the same arguments and input.
Client hooks validate hand-edited records on a checked-out records branch
(pre-commit), add the evidence trailers a hand edit implies (commit-msg), and
verify what is about to be pushed to a records branch (pre-push). Server hooks
(--server, for a bare repository) verify every pushed commit on records refs
and reject the push with the rule that failed.

A forge owns its repositories' hooks/pre-receive and hooks/update and runs
custom hooks from a directory: --server installs git-records there, as
<hook>.d/git-records, and leaves the forge's own hooks alone. Gitea and
Forgejo run hooks/<hook>.d/ (found when hooks/pre-receive.d/ exists and
hooks/pre-receive runs it), GitLab custom_hooks/<hook>.d/ (found when
custom_hooks/ exists). --forge names the layout instead: gitea (or forgejo),
gitlab, or none for plain git's hooks/<hook>. Install prints each path.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return run("install") },
	}
	install.Flags().BoolVar(&opts.Server, "server", false, "install the server-side hooks (pre-receive, update)")
	install.Flags().StringVar(&opts.Forge, "forge", "", "with --server: where the forge runs custom hooks: gitea, forgejo, gitlab or none (default: detected)")
	uninstall := &cobra.Command{
		Use:     "uninstall",
		Short:   "Remove the hooks and restore the ones they chained",
		Example: `  git records hooks uninstall`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return run("uninstall") },
	}
	c.AddCommand(install, uninstall)
	return c
}

func hooksRun(opts *HooksOptions) error {
	if opts.Verb == "uninstall" {
		return uninstallRun(opts)
	}
	return installRun(opts)
}

func installRun(opts *HooksOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	bin, _ := opts.Executable()
	res, err := svc.InstallHooks(service.HooksRequest{Server: opts.Server, Forge: opts.Forge, Binary: bin})
	if res != nil && res.AttributesErr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "git-records: hooks installed; %s not committed: %v\n", kernel.AttributesPath, res.AttributesErr)
	}
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(res.Hooks)
	}
	for _, h := range res.Hooks {
		if h.Restored != "" {
			fmt.Fprintf(p.Out, "restored %s, the forge's own hook, which an earlier install had chained\n", h.Restored)
		}
		how := ""
		switch {
		case h.Chained != "":
			how = " (runs " + h.Chained + " first)"
		case h.Forge == service.ForgeGitea:
			how = " (Gitea and Forgejo run it from " + filepath.Join(filepath.Dir(filepath.Dir(h.Path)), h.Hook) + ")"
		case h.Forge == service.ForgeGitLab:
			how = " (GitLab runs it; from GitLab 15.11 on, hand " + filepath.Dir(filepath.Dir(h.Path)) + " to gitaly hooks set)"
		}
		fmt.Fprintf(p.Out, "installed %s%s\n", h.Path, how)
	}
	if c := res.AttributesCommit; c != "" {
		fmt.Fprintf(p.Out, "committed %s to %s (%s): record files merge with git records merge-driver in git merge and git pull\n",
			kernel.AttributesPath, svc.Ref(), c[:12])
	}
	printHandSigning(p.Out, res.HandSigning)
	return nil
}

func uninstallRun(opts *HooksOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	removed, err := svc.UninstallHooks()
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		names := make([]string, len(removed))
		for i, r := range removed {
			names[i] = r.Hook
		}
		return p.JSON(map[string]any{"removed": names, "hooks": removed})
	}
	if len(removed) == 0 {
		_, err = fmt.Fprintln(p.Out, "removed: no git-records hooks were installed here")
		return err
	}
	for _, r := range removed {
		restored := ""
		if r.Restored != "" {
			restored = " (restored the hook it ran first)"
		}
		fmt.Fprintf(p.Out, "removed %s%s\n", r.Path, restored)
	}
	return nil
}

// printHandSigning says how hand commits in this worktree get signed.
func printHandSigning(w io.Writer, hs *service.HandSigning) {
	if hs == nil {
		return
	}
	if len(hs.Kept) == 0 {
		fmt.Fprintf(w, "git commit here signs with %s, the key git-records signs with", hs.Key)
		if len(hs.Set) > 0 {
			var set []string
			for _, k := range sortedKeys(hs.Set) {
				set = append(set, k+"="+hs.Set[k])
			}
			fmt.Fprintf(w, " (set in the %s config: %s)", hs.Scope, strings.Join(set, ", "))
		}
		fmt.Fprintln(w)
		return
	}
	for _, k := range sortedKeys(hs.Kept) {
		fmt.Fprintf(w, "%s is set to %s here, and git-records leaves your setting alone\n", k, hs.Kept[k])
	}
	fmt.Fprintf(w, "hand edits must be signed with the store's key %s: commit them with\n  %s\n", hs.Key, hs.Run)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
