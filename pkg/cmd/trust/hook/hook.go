// Package hook is `git records hook <name>`, hidden: one git hook, run by
// the scripts hooks install writes.
package hook

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/hooks"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// HookOptions are hook's inputs.
type HookOptions struct {
	IO     *cmdutil.IOStreams
	Store  func() (*gitstore.Store, error)
	Getenv func(string) string

	Name string   // the git hook
	Args []string // git's arguments to it
}

// NewCmdHook is the hook command; runF (nil: hookRun) runs it.
func NewCmdHook(f *cmdutil.Factory, runF func(*HookOptions) error) *cobra.Command {
	opts := &HookOptions{IO: f.IOStreams, Store: f.Store, Getenv: os.Getenv}
	return &cobra.Command{
		Use:    "hook <name> [args…]",
		Short:  "Run one git hook (called by the installed hook scripts)",
		Hidden: true,
		// git runs it, with paths and ref names that may hold any byte.
		Annotations: map[string]string{cmdutil.GitInvoked: "yes"},
		Args:        cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Args = args[0], args[1:]
			if runF != nil {
				return runF(opts)
			}
			return hookRun(opts)
		},
	}
}

func hookRun(opts *HookOptions) error {
	s, err := opts.Store()
	if err != nil {
		return err
	}
	ok, err := runHook(opts, s)
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.SilentError
	}
	return nil
}

func runHook(opts *HookOptions, s *gitstore.Store) (bool, error) {
	name, args, errOut := opts.Name, opts.Args, opts.IO.ErrOut
	switch name {
	case "pre-commit":
		return hooks.PreCommit(s, errOut)
	case "commit-msg":
		if len(args) < 1 {
			return false, kernel.Errorf(kernel.CodeUsage, "commit-msg needs the message file")
		}
		return hooks.CommitMsg(s, args[0], errOut)
	case "pre-push", "pre-receive", "update":
		var updates []hooks.RefUpdate
		var err error
		switch name {
		case "update":
			if len(args) < 3 {
				return false, kernel.Errorf(kernel.CodeUsage, "update needs <ref> <old> <new>")
			}
			updates = []hooks.RefUpdate{{Ref: args[0], Old: plumbing.NewHash(args[1]), New: plumbing.NewHash(args[2])}}
		case "pre-push":
			if opts.Getenv("PRE_COMMIT") == "1" {
				// Run by the pre-commit framework, which reads git's
				// input itself and passes the refs in the environment.
				updates, err = hooks.PreCommitFrameworkUpdates(s, opts.Getenv)
				break
			}
			updates, err = hooks.ParseRefUpdates(opts.IO.In, true)
		default:
			updates, err = hooks.ParseRefUpdates(opts.IO.In, name == "pre-push")
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
			hooks.WriteRejection(errOut, "push", rep)
		case name == "pre-push":
			hooks.WriteRejection(errOut, "push", rep) // quiet unless there are warnings
		case name == "update" && hooks.PreReceiveInstalled(s):
			// pre-receive has said what it verified, once for the push.
		case rep.Commits > 0:
			// The server says once per push that it verified what it took.
			hooks.WriteVerified(errOut, rep)
		}
		return rep.OK, nil
	}
	return false, kernel.Errorf(kernel.CodeUsage, "unknown hook %q", name)
}
