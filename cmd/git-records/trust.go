package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
)

func (a *app) hooksCommand() *cobra.Command {
	c := &cobra.Command{Use: "hooks", Short: "Install or remove the git hooks that verify record commits",
		Example: "  git records hooks install"}
	var server bool
	install := &cobra.Command{
		Use:   "install [--server]",
		Short: "Install pre-commit, commit-msg and pre-push (or, with --server, pre-receive and update)",
		Example: `  git records hooks install            # pre-commit and pre-push in this clone
  git records hooks install --server   # pre-receive on a bare server repository`,
		Long: `Installs hooks into core.hooksPath or .git/hooks. A hook already there is kept
as <name>.pre-records and runs first with the same arguments and input.
Client hooks validate hand-edited records on a checked-out records branch
(pre-commit), add the evidence trailers a hand edit implies (commit-msg), and
verify what is about to be pushed to a records branch (pre-push). Server hooks
(--server, for a bare repository) verify every pushed commit on records refs
and reject the push with the rule that failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			bin, _ := os.Executable()
			done, err := hooks.Install(s, server, bin)
			if err != nil {
				return err
			}
			var attributes plumbing.Hash
			var signing *hooks.HandSigning
			if !server {
				// The hooks are in; the branch's .gitattributes is a
				// convenience for plain git merge, and committing it can
				// fail for reasons that must not undo the install (no
				// signing key yet, a contributor's profile).
				if attributes, err = a.installMergeDriver(s, bin); err != nil {
					fmt.Fprintf(a.err, "git-records: hooks installed; %s not committed: %v\n", gitstore.AttributesPath, err)
				}
				if signing, err = hooks.SetUpHandSigning(s); err != nil {
					return err
				}
			}
			if a.jsonOut {
				a.writeJSON(done)
				return nil
			}
			for _, h := range done {
				chained := ""
				if h.Chained != "" {
					chained = " (runs " + h.Chained + " first)"
				}
				fmt.Fprintf(a.out, "installed %s%s\n", h.Path, chained)
			}
			if !attributes.IsZero() {
				fmt.Fprintf(a.out, "committed %s to %s (%s): record files merge with git records merge-driver in git merge and git pull\n",
					gitstore.AttributesPath, s.Ref(), attributes.String()[:12])
			}
			a.printHandSigning(signing)
			return nil
		},
	}
	install.Flags().BoolVar(&server, "server", false, "install the server-side hooks (pre-receive, update)")
	uninstall := &cobra.Command{
		Use:     "uninstall",
		Short:   "Remove the hooks and restore the ones they chained",
		Example: `  git records hooks uninstall`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			removed, err := hooks.Uninstall(s)
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(map[string]any{"removed": removed})
				return nil
			}
			fmt.Fprintf(a.out, "removed: %s\n", strings.Join(removed, ", "))
			return nil
		},
	}
	c.AddCommand(install, uninstall)
	return c
}

// printHandSigning says how hand commits in this worktree get signed.
func (a *app) printHandSigning(hs *hooks.HandSigning) {
	if hs == nil {
		return
	}
	if len(hs.Kept) == 0 {
		fmt.Fprintf(a.out, "git commit here signs with %s, the key git-records signs with", hs.Key)
		if len(hs.Set) > 0 {
			var set []string
			for _, k := range sortedKeys(hs.Set) {
				set = append(set, k+"="+hs.Set[k])
			}
			fmt.Fprintf(a.out, " (set in the %s config: %s)", hs.Scope, strings.Join(set, ", "))
		}
		fmt.Fprintln(a.out)
		return
	}
	for _, k := range sortedKeys(hs.Kept) {
		fmt.Fprintf(a.out, "%s is set to %s here, and git-records leaves your setting alone\n", k, hs.Kept[k])
	}
	fmt.Fprintf(a.out, "hand edits must be signed with the store's key %s: commit them with\n  %s\n", hs.Key, hs.Run)
}

// installMergeDriver registers the driver and, when the branch lacks it,
// commits the .gitattributes that routes record files to it, returning
// that commit (zero when nothing was committed).
func (a *app) installMergeDriver(s *gitstore.Store, bin string) (plumbing.Hash, error) {
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
	w, err := a.mutate("", func(kv kernel.View, env kernel.Env) (*kernel.Mutation, error) {
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

func (a *app) hookCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "hook <name> [args…]",
		Short:  "Run one git hook (called by the installed hook scripts)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			ok, err := a.runHook(s, args[0], args[1:])
			if err != nil {
				return err
			}
			if !ok {
				return errSilent
			}
			return nil
		},
	}
}

func (a *app) runHook(s *gitstore.Store, name string, args []string) (bool, error) {
	switch name {
	case "pre-commit":
		return hooks.PreCommit(s, a.err)
	case "commit-msg":
		if len(args) < 1 {
			return false, kernel.Errorf(kernel.CodeUsage, "commit-msg needs the message file")
		}
		return hooks.CommitMsg(s, args[0], a.err)
	case "pre-push", "pre-receive", "update":
		var updates []hooks.RefUpdate
		var err error
		switch name {
		case "update":
			if len(args) < 3 {
				return false, kernel.Errorf(kernel.CodeUsage, "update needs <ref> <old> <new>")
			}
			updates = []hooks.RefUpdate{{Ref: args[0], Old: hashArg(args[1]), New: hashArg(args[2])}}
		case "pre-push":
			if os.Getenv("PRE_COMMIT") == "1" {
				// Run by the pre-commit framework, which reads git's
				// input itself and passes the refs in the environment.
				updates, err = hooks.PreCommitFrameworkUpdates(s, os.Getenv)
				break
			}
			updates, err = hooks.ParseRefUpdates(a.in, true)
		default:
			updates, err = hooks.ParseRefUpdates(a.in, name == "pre-push")
		}
		if err != nil {
			return false, err
		}
		// A hook judges commits as they are received: signing keys must be
		// valid now, not only at the dates their signers chose.
		rep, err := hooks.VerifyUpdates(s, updates, name != "pre-push", hooks.Options{Receipt: true})
		if err != nil {
			return false, err
		}
		switch {
		case !rep.OK:
			hooks.WriteRejection(a.err, "push", rep)
		case name == "pre-push":
			hooks.WriteRejection(a.err, "push", rep) // quiet unless there are warnings
		case name == "update" && hooks.PreReceiveInstalled(s):
			// pre-receive has said what it verified, once for the push.
		case rep.Commits > 0:
			// The server says once per push that it verified what it took.
			hooks.WriteVerified(a.err, rep)
		}
		return rep.OK, nil
	}
	return false, kernel.Errorf(kernel.CodeUsage, "unknown hook %q", name)
}

func hashArg(s string) plumbing.Hash { return plumbing.NewHash(s) }

// trust is the trust in force at the tip. A broken one is an error here:
// show and check have nothing true to say about it.
func (a *app) trust() (*kernel.Trust, error) {
	v, err := a.view()
	if err != nil {
		return nil, err
	}
	t, err := v.Trust()
	if err != nil {
		return nil, err
	}
	return t, t.Err()
}

func (a *app) policyCommand() *cobra.Command {
	c := &cobra.Command{Use: "policy", Short: "Show, explain or change who may do what",
		Example: "  git records policy show\n  git records policy check alice@example.com retire concept auth.tokens"}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the policy in force on the records branch",
		Example: `  git records policy show
  git records policy show --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := a.trust()
			if err != nil {
				return err
			}
			p := t.Policy()
			if a.jsonOut {
				a.writeJSON(p)
				return nil
			}
			if t.PolicyData() == nil {
				fmt.Fprintf(a.out, "# no %s on the branch: every allowed signer is a maintainer\n", gitstore.PolicyPath)
			}
			out, _ := p.Encode()
			_, err = a.out.Write(out)
			return err
		},
	}
	check := &cobra.Command{
		Use:     "check <principal> <op> <type> <category>",
		Short:   "Explain whether a principal may run an op on a type in a category",
		Example: `  git records policy check alice@example.com retire concept auth.tokens`,
		Args:    cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := a.trust()
			if err != nil {
				return err
			}
			d := t.Decide(args[0], kernel.Op(args[1]), args[2], args[3])
			if a.jsonOut {
				a.writeJSON(d)
			} else {
				verdict := "allowed"
				if !d.Allowed {
					verdict = "denied"
				}
				fmt.Fprintf(a.out, "%s: %s\nrule: %s\nrisk: %s\n", verdict, d.Reason, d.Rule, d.Risk)
				if d.NeedsApproval {
					fmt.Fprintln(a.out, "needs approval: rerun the op with --approve (yourself) or --approval TOKEN (from the approver's git records approve)")
				}
			}
			if !d.Allowed {
				return errSilent
			}
			return nil
		},
	}
	var ev kernel.Evidence
	set := &cobra.Command{
		Use:     "set <policy.yaml> --rationale R --agent A",
		Short:   "Replace .records/policy.yaml (a policy commit; needs the maintainer profile)",
		Example: `  git records policy set policy.yaml --rationale "reviewers may retire" --agent alice`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return kernel.Wrap(kernel.CodeUsage, err, "read policy")
			}
			if _, err := kernel.ParsePolicy(data); err != nil {
				return err
			}
			return a.policyOp(func(*gitstore.View) (map[string][]byte, error) {
				return map[string][]byte{gitstore.PolicyPath: data}, nil
			}, ev, "policy unchanged")
		},
	}
	set.Flags().StringVar(&ev.Rationale, "rationale", "", "why the policy changes")
	a.evidenceFlags(set, &ev)
	c.AddCommand(show, check, set)
	return c
}

func (a *app) signersCommand() *cobra.Command {
	c := &cobra.Command{Use: "signers", Short: "Manage .records/allowed_signers",
		Example: "  git records signers add bob@example.com ~/.ssh/id_ed25519.pub --rationale \"joins the team\" --agent alice"}
	var ev kernel.Evidence
	add := &cobra.Command{
		Use:     "add <principal> <public-key-file | 'ssh-ed25519 AAAA…'> --rationale R --agent A",
		Short:   "Allow a key to sign record commits (a policy commit; needs the maintainer profile)",
		Example: `  git records signers add bob@example.com ~/.ssh/id_ed25519.pub --rationale "joins the team" --agent alice`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := args[1]
			if data, err := os.ReadFile(key); err == nil {
				key = strings.TrimSpace(string(data))
			}
			line := signing.AllowedSignersLine(args[0], key)
			if _, err := signing.ParseAllowedSigners([]byte(line + "\n")); err != nil {
				return err
			}
			// Read on the tip the op is decided on, every time: a run that
			// loses the race appends to the winner's file, not to a stale one.
			return a.policyOp(func(v *gitstore.View) (map[string][]byte, error) {
				cur, err := v.ReadFile(gitstore.AllowedSignersPath)
				if err != nil || strings.Contains(string(cur), line) {
					return nil, err
				}
				return map[string][]byte{gitstore.AllowedSignersPath: append(append([]byte(nil), cur...), []byte(line+"\n")...)}, nil
			}, ev, "already allowed")
		},
	}
	add.Flags().StringVar(&ev.Rationale, "rationale", "", "why this key may sign")
	a.evidenceFlags(add, &ev)
	c.AddCommand(add)
	return c
}

// policyOp writes the files change returns (decided on the tip, on every
// attempt of the write loop) as a policy commit; unchanged is printed when
// there is nothing to write.
func (a *app) policyOp(change func(v *gitstore.View) (map[string][]byte, error), ev kernel.Evidence, unchanged string) error {
	w, err := a.mutate("policy", func(v kernel.View, env kernel.Env) (*kernel.Mutation, error) {
		files, err := change(v.(*gitstore.View))
		if err != nil || len(files) == 0 {
			return nil, err
		}
		return kernel.ChangePolicy(files, ev)
	})
	if err != nil {
		return err
	}
	if s, err := a.open(); err == nil {
		_ = s.ExportAllowedSigners()
	}
	if w.Unchanged && !a.jsonOut {
		fmt.Fprintln(a.out, unchanged)
		return nil
	}
	a.printWritten(w)
	return nil
}
