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

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// HooksOptions are the hooks subcommands' inputs; Verb says which ran.
type HooksOptions struct {
	IO      *cmdutil.IOStreams
	Store   func() (*gitstore.Store, error)
	Mutate  func(*cmdutil.ApprovalFlags, string, gitstore.Decision) (*service.WriteResult, error)
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
	opts := &HooksOptions{IO: f.IOStreams, Store: f.Store, Mutate: f.Mutate, Printer: f.Printer, Executable: os.Executable}
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
	s, err := opts.Store()
	if err != nil {
		return err
	}
	forge, err := hooks.ParseForge(opts.Forge)
	if err != nil {
		return err
	}
	if opts.Forge != "" && !opts.Server {
		return kernel.Errorf(kernel.CodeUsage, "--forge places the server hooks: add --server").WithExtra("flag", "--forge")
	}
	bin, _ := opts.Executable()
	var done []hooks.Installed
	if opts.Server {
		done, err = hooks.InstallServer(s, forge, bin)
	} else {
		done, err = hooks.Install(s, false, bin)
	}
	if err != nil {
		return err
	}
	var attributes plumbing.Hash
	var signing *hooks.HandSigning
	if !opts.Server {
		// The hooks are in; the branch's .gitattributes is a
		// convenience for plain git merge, and committing it can
		// fail for reasons that must not undo the install (no
		// signing key yet, a contributor's profile).
		if attributes, err = installMergeDriver(opts, s, bin); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "git-records: hooks installed; %s not committed: %v\n", gitstore.AttributesPath, err)
		}
		if signing, err = hooks.SetUpHandSigning(s); err != nil {
			return err
		}
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(done)
	}
	for _, h := range done {
		if h.Restored != "" {
			fmt.Fprintf(p.Out, "restored %s, the forge's own hook, which an earlier install had chained\n", h.Restored)
		}
		how := ""
		switch {
		case h.Chained != "":
			how = " (runs " + h.Chained + " first)"
		case h.Forge == string(hooks.ForgeGitea):
			how = " (Gitea and Forgejo run it from " + filepath.Join(filepath.Dir(filepath.Dir(h.Path)), h.Hook) + ")"
		case h.Forge == string(hooks.ForgeGitLab):
			how = " (GitLab runs it; from GitLab 15.11 on, hand " + filepath.Dir(filepath.Dir(h.Path)) + " to gitaly hooks set)"
		}
		fmt.Fprintf(p.Out, "installed %s%s\n", h.Path, how)
	}
	if !attributes.IsZero() {
		fmt.Fprintf(p.Out, "committed %s to %s (%s): record files merge with git records merge-driver in git merge and git pull\n",
			gitstore.AttributesPath, s.Ref(), attributes.String()[:12])
	}
	printHandSigning(p.Out, signing)
	return nil
}

func uninstallRun(opts *HooksOptions) error {
	s, err := opts.Store()
	if err != nil {
		return err
	}
	removed, err := hooks.Uninstall(s)
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
func printHandSigning(w io.Writer, hs *hooks.HandSigning) {
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

// installMergeDriver registers the driver and, when the branch lacks it,
// commits the .gitattributes that routes record files to it, returning
// that commit (zero when nothing was committed).
func installMergeDriver(opts *HooksOptions, s *gitstore.Store, bin string) (plumbing.Hash, error) {
	if err := hooks.InstallMergeDriver(s, bin); err != nil {
		return plumbing.ZeroHash, err
	}
	tip, err := s.Tip()
	if err != nil || tip.IsZero() {
		return plumbing.ZeroHash, err
	}
	if s.HeadBranch() == s.Ref() {
		// Moving the checked-out branch under its index would make the
		// next hand commit delete the file again.
		if v, err := s.View(); err != nil {
			return plumbing.ZeroHash, err
		} else if cur, err := v.ReadFile(gitstore.AttributesPath); err != nil || string(cur) == gitstore.Attributes {
			return plumbing.ZeroHash, err
		}
		return plumbing.ZeroHash, kernel.Errorf(kernel.CodeUsage, "%s is checked out here; run hooks install from a checkout of another branch to commit it", s.Ref())
	}
	w, err := opts.Mutate(&cmdutil.ApprovalFlags{}, "", func(kv kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		cur, err := kv.(*gitstore.View).ReadFile(gitstore.AttributesPath)
		if err != nil || string(cur) == gitstore.Attributes {
			return nil, err
		}
		_, email := s.Ident()
		return &kernel.Mutation{Op: kernel.OpInit, Type: "store", Title: "route record files to the records merge driver",
			Files: map[string][]byte{gitstore.AttributesPath: []byte(gitstore.Attributes)},
			Trailers: []kernel.Trailer{{Key: kernel.TrailerOp, Value: string(kernel.OpInit)}, {Key: kernel.TrailerAgent, Value: email},
				{Key: kernel.TrailerFormat, Value: kernel.FormatVersion}}}, nil
	})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return w.Written.Commit, nil
}
