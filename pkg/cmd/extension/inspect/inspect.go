// Package inspect is `git records inspect --bindings`: extension slots,
// their contracts, the active bindings and where each came from.
package inspect

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/extension"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// InspectOptions are inspect's inputs.
type InspectOptions struct {
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Bindings bool   // --bindings: what to inspect
	At       string // --at COMMIT: the manifest it was written under
	Bind     service.BindOptions
}

// NewCmdInspect is the inspect command; runF (nil: inspectRun) runs it.
func NewCmdInspect(f *cmdutil.Factory, runF func(*InspectOptions) error) *cobra.Command {
	opts := &InspectOptions{ReadService: f.ReadService, Printer: f.Printer}
	var binds []string
	c := &cobra.Command{
		Use:   "inspect --bindings [--at COMMIT] [--bind SLOT=IMPL]… [--bindings-from COMMIT]",
		Short: "Show extension slots, their contracts, the active bindings and where each came from",
		Example: `  git records inspect --bindings
  git records inspect --bindings --bind design_review=my-review --at records~3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !opts.Bindings {
				return kernel.Errorf(kernel.CodeUsage, "say what to inspect: --bindings").WithExtra("flag", "--bindings")
			}
			if err := extension.ParseBinds(binds, &opts.Bind); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return inspectRun(opts)
		},
	}
	c.Flags().BoolVar(&opts.Bindings, "bindings", false, "extension slots and bindings")
	c.Flags().StringVar(&opts.At, "at", "", "the binding manifest `COMMIT` was written under")
	extension.BindFlags(c, &binds, &opts.Bind)
	return c
}

func inspectRun(opts *InspectOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	p := opts.Printer()
	w := p.Out
	if opts.At != "" {
		m, err := svc.ManifestAt(opts.At)
		if err != nil {
			return cmdutil.AboutFlag("--at", err)
		}
		if p.JSONOn {
			return p.JSON(m)
		}
		fmt.Fprintf(w, "bindings of commit %s:\n", m.Commit)
		if len(m.Manifest) == 0 {
			fmt.Fprintln(w, "  none: the commit was written under no bindings")
		}
		for _, u := range m.Manifest {
			fmt.Fprintf(w, "  %s → %s (%s, %s) %s\n", u.Slot, u.ResolvedTo, u.Kind, extension.DescribeSource(u), u.Hash)
		}
		return nil
	}
	bv, err := svc.InspectBindings(opts.Bind)
	if err != nil {
		return err
	}
	if p.JSONOn {
		return p.JSON(bv)
	}
	if !bv.Declared {
		_, err := fmt.Fprintf(w, "no extension slots: %s does not exist (git records bindings set FILE)\n", bv.Path)
		return err
	}
	for _, s := range bv.Slots {
		fmt.Fprintf(w, "%s", s.Name)
		if s.Purpose != "" {
			fmt.Fprintf(w, ": %s", s.Purpose)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  accepts kinds  %s\n", strings.Join(s.AcceptedKinds, ", "))
		fmt.Fprintf(w, "  inputs         required %s; optional %s\n", listOrNone(s.RequiredInputs), listOrNone(s.OptionalInputs))
		fmt.Fprintf(w, "  outputs        required %s\n", listOrNone(s.RequiredOutputs))
		fmt.Fprintf(w, "  default        %s\n", s.Default)
		fmt.Fprintf(w, "  active         %s (%s, %s) %s\n", s.Active.ResolvedTo, s.Active.Kind, extension.DescribeSource(s.Active), s.Active.Hash)
	}
	return nil
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
