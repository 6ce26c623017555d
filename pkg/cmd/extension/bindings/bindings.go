// Package bindings is `git records bindings set <file>`: the project's
// extension bindings (.records/bindings.yaml) replaced, policy-gated.
package bindings

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// SetOptions are bindings set's inputs.
type SetOptions struct {
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	File     string
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdBindings is the bindings command and its set subcommand; runF
// (nil: setRun) runs set.
func NewCmdBindings(f *cmdutil.Factory, runF func(*SetOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:     "bindings",
		Short:   "Extension slots and their project bindings (.records/bindings.yaml)",
		Example: `  git records bindings set bindings.yaml --rationale "our own design review" --agent alice`,
	}
	opts := &SetOptions{Service: f.Service, PrintWritten: f.PrintWritten}
	set := &cobra.Command{
		Use:     "set <file> --rationale R --agent A",
		Short:   "Replace .records/bindings.yaml (op bind: the policy decides who may; incompatible bindings are refused)",
		Example: `  git records bindings set bindings.yaml --rationale "our own design review" --agent alice`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return setRun(opts)
		},
	}
	set.Flags().StringVar(&opts.Evidence.Rationale, "rationale", "", "why the bindings change")
	set.Flags().StringVar(&opts.Evidence.Note, "note", "", "note; also the commit body")
	cmdutil.AgentFlag(set, &opts.Evidence.Agent)
	opts.Approval.Register(set)
	c.AddCommand(set)
	return c
}

func setRun(opts *SetOptions) error {
	data, err := os.ReadFile(opts.File)
	if err != nil {
		return kernel.Wrap(kernel.CodeUsage, err, "read the bindings file")
	}
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.SetBindings(data, opts.Evidence, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
