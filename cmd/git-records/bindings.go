package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// Extension bindings: `bindings set` changes .records/bindings.yaml (op
// bind, policy-gated); `inspect --bindings` shows slots, contracts and the
// active bindings with where each came from; the --bind, --fallback and
// --bindings-from flags choose a run's bindings per call.

// bindFlags adds a run's per-call binding choices to a command.
func bindFlags(c *cobra.Command, binds *[]string, opts *service.BindOptions) {
	c.Flags().StringArrayVar(binds, "bind", nil, "bind `SLOT=IMPLEMENTATION` for this call (over the project file and the default; repeatable)")
	c.Flags().StringArrayVar(&opts.Fallback, "fallback", nil, "`SLOT` whose bound implementation failed: fall back to its default, recorded in provenance (repeatable)")
	c.Flags().StringVar(&opts.From, "bindings-from", "", "resume with exactly the binding manifest of `COMMIT`")
}

// parseBinds reads --bind SLOT=IMPLEMENTATION flags.
func parseBinds(binds []string, opts *service.BindOptions) error {
	opts.Flags = map[string]string{}
	for _, b := range binds {
		slot, impl, ok := strings.Cut(b, "=")
		if !ok || slot == "" || impl == "" {
			return kernel.Errorf(kernel.CodeUsage, "--bind %q is not SLOT=IMPLEMENTATION", b).WithExtra("flag", "--bind")
		}
		opts.Flags[slot] = impl
	}
	return nil
}

func (a *app) bindingsCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "bindings",
		Short: "Extension slots and their project bindings (.records/bindings.yaml)",
		Example: `  git records bindings
  git records bindings --json`,
	}
	var ev kernel.Evidence
	set := &cobra.Command{
		Use:     "set <file> --rationale R --agent A",
		Short:   "Replace .records/bindings.yaml (op bind: the policy decides who may; incompatible bindings are refused)",
		Example: `  git records bindings set bindings.yaml --rationale "our own design review" --agent alice`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return kernel.Wrap(kernel.CodeUsage, err, "read the bindings file")
			}
			res, err := a.write(func(svc *service.Service, ap kernel.Approval) (*service.WriteResult, error) {
				return svc.SetBindings(data, ev, ap)
			})
			if err != nil {
				return err
			}
			a.printWritten(res)
			return nil
		},
	}
	set.Flags().StringVar(&ev.Rationale, "rationale", "", "why the bindings change")
	set.Flags().StringVar(&ev.Note, "note", "", "note; also the commit body")
	agentFlag(set, &ev.Agent)
	a.approvalFlags(set)
	c.AddCommand(set)
	return c
}

func (a *app) inspectCommand() *cobra.Command {
	var bindings bool
	var at string
	var binds []string
	var opts service.BindOptions
	c := &cobra.Command{
		Use:   "inspect --bindings [--at COMMIT] [--bind SLOT=IMPL]… [--bindings-from COMMIT]",
		Short: "Show extension slots, their contracts, the active bindings and where each came from",
		Example: `  git records inspect --bindings
  git records inspect --bindings --bind design_review=my-review --at records~3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !bindings {
				return kernel.Errorf(kernel.CodeUsage, "say what to inspect: --bindings").WithExtra("flag", "--bindings")
			}
			if err := parseBinds(binds, &opts); err != nil {
				return err
			}
			svc, err := a.readService()
			if err != nil {
				return err
			}
			if at != "" {
				m, err := svc.ManifestAt(at)
				if err != nil {
					return err
				}
				if a.jsonOut {
					a.writeJSON(m)
					return nil
				}
				fmt.Fprintf(a.out, "bindings of commit %s:\n", m.Commit)
				if len(m.Manifest) == 0 {
					fmt.Fprintln(a.out, "  none: the commit was written under no bindings")
				}
				for _, u := range m.Manifest {
					fmt.Fprintf(a.out, "  %s → %s (%s, %s) %s\n", u.Slot, u.ResolvedTo, u.Kind, describeSource(u), u.Hash)
				}
				return nil
			}
			bv, err := svc.InspectBindings(opts)
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(bv)
				return nil
			}
			if !bv.Declared {
				fmt.Fprintf(a.out, "no extension slots: %s does not exist (git records bindings set FILE)\n", bv.Path)
				return nil
			}
			for _, s := range bv.Slots {
				fmt.Fprintf(a.out, "%s", s.Name)
				if s.Purpose != "" {
					fmt.Fprintf(a.out, ": %s", s.Purpose)
				}
				fmt.Fprintln(a.out)
				fmt.Fprintf(a.out, "  accepts kinds  %s\n", strings.Join(s.AcceptedKinds, ", "))
				fmt.Fprintf(a.out, "  inputs         required %s; optional %s\n", listOrNone(s.RequiredInputs), listOrNone(s.OptionalInputs))
				fmt.Fprintf(a.out, "  outputs        required %s\n", listOrNone(s.RequiredOutputs))
				fmt.Fprintf(a.out, "  default        %s\n", s.Default)
				fmt.Fprintf(a.out, "  active         %s (%s, %s) %s\n", s.Active.ResolvedTo, s.Active.Kind, describeSource(s.Active), s.Active.Hash)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&bindings, "bindings", false, "extension slots and bindings")
	c.Flags().StringVar(&at, "at", "", "the binding manifest `COMMIT` was written under")
	bindFlags(c, &binds, &opts)
	return c
}

func describeSource(u kernel.BindingUse) string {
	switch {
	case u.Source == kernel.SourceFallback:
		return "fallback-to-default (" + u.Failed + " failed)"
	case u.From != "":
		return u.Source + " from " + u.From
	}
	return u.Source
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
