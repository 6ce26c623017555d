// Package hook is `git records hook <name>`, hidden: one git hook, run by
// the scripts hooks install writes.
package hook

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// HookOptions are hook's inputs.
type HookOptions struct {
	IO      *cmdutil.IOStreams
	Service func() (*service.Service, error)
	Getenv  func(string) string

	Name string   // the git hook
	Args []string // git's arguments to it
}

// NewCmdHook is the hook command; runF (nil: hookRun) runs it.
func NewCmdHook(f *cmdutil.Factory, runF func(*HookOptions) error) *cobra.Command {
	opts := &HookOptions{IO: f.IOStreams, Service: f.Service, Getenv: os.Getenv}
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
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	ok, err := svc.RunHook(service.HookRun{Name: opts.Name, Args: opts.Args, In: opts.IO.In, ErrOut: opts.IO.ErrOut, Getenv: opts.Getenv})
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.SilentError
	}
	return nil
}
