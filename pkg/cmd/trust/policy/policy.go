// Package policy is `git records policy show|check|set`: who may do what,
// explained or replaced.
package policy

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/trust"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// PolicyOptions are the policy subcommands' inputs; Verb says which ran.
type PolicyOptions struct {
	Service      func() (*service.Service, error)
	ReadService  func() (*service.Service, error)
	Printer      func() cmdutil.Printer
	PrintWritten func(*service.WriteResult) error

	Verb string // show, check or set

	// check
	Principal, Op, Type, Category string

	// set
	File     string
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdPolicy is the policy command and its show, check and set
// subcommands; runF (nil: policyRun) runs the one given.
func NewCmdPolicy(f *cmdutil.Factory, runF func(*PolicyOptions) error) *cobra.Command {
	opts := &PolicyOptions{Service: f.Service, ReadService: f.ReadService, Printer: f.Printer, PrintWritten: f.PrintWritten}
	run := func(verb string) error {
		opts.Verb = verb
		if runF != nil {
			return runF(opts)
		}
		return policyRun(opts)
	}
	c := &cobra.Command{Use: "policy", Short: "Show, explain or change who may do what",
		Example: "  git records policy show\n  git records policy check alice@example.com retire concept auth.tokens"}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the policy in force on the records branch",
		Example: `  git records policy show
  git records policy show --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return run("show") },
	}
	check := &cobra.Command{
		Use:     "check <principal> <op> <type> <category>",
		Short:   "Explain whether a principal may run an op on a type in a category",
		Example: `  git records policy check alice@example.com retire concept auth.tokens`,
		Args:    cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Principal, opts.Op, opts.Type, opts.Category = args[0], args[1], args[2], args[3]
			return run("check")
		},
	}
	set := &cobra.Command{
		Use:     "set <policy.yaml> --rationale R --agent A",
		Short:   "Replace .records/policy.yaml (a policy commit; needs the maintainer profile)",
		Example: `  git records policy set policy.yaml --rationale "reviewers may retire" --agent alice`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return run("set")
		},
	}
	set.Flags().StringVar(&opts.Evidence.Rationale, "rationale", "", "why the policy changes")
	cmdutil.EvidenceFlags(set, &opts.Evidence, &opts.Approval)
	c.AddCommand(show, check, set)
	return c
}

func policyRun(opts *PolicyOptions) error {
	switch opts.Verb {
	case "show":
		return showRun(opts)
	case "check":
		return checkRun(opts)
	}
	return setRun(opts)
}

func showRun(opts *PolicyOptions) error {
	t, err := trustInForce(opts)
	if err != nil {
		return err
	}
	p := t.Policy()
	out := opts.Printer()
	if out.JSONOn {
		return out.JSON(p)
	}
	if t.PolicyData() == nil {
		fmt.Fprintf(out.Out, "# no %s on the branch: every allowed signer is a maintainer\n", kernel.PolicyPath)
	}
	data, _ := p.Encode()
	_, err = out.Out.Write(data)
	return err
}

func checkRun(opts *PolicyOptions) error {
	// A question no op could ask is a typo, not a denial.
	if _, known := kernel.OpSpecs()[kernel.Op(opts.Op)]; !known {
		ops := slices.Sorted(maps.Keys(kernel.OpSpecs()))
		return kernel.Errorf(kernel.CodeUsage, "op %q is not an op: one of %s", opts.Op, strings.Join(cmdutil.Names(ops), ", "))
	}
	// Empty is the type and category of an op on no record (policy, bind).
	for _, c := range []struct {
		value string
		check func(string) error
	}{{opts.Type, kernel.ValidateType}, {opts.Category, kernel.ValidateCategory}} {
		if c.value == "" {
			continue
		}
		if err := c.check(c.value); err != nil {
			return kernel.Errorf(kernel.CodeUsage, "%s", kernel.MessageOf(err))
		}
	}
	t, err := trustInForce(opts)
	if err != nil {
		return err
	}
	d := t.Decide(opts.Principal, kernel.Op(opts.Op), opts.Type, opts.Category)
	out := opts.Printer()
	if out.JSONOn {
		_ = out.JSON(d)
	} else {
		verdict := "allowed"
		if !d.Allowed {
			verdict = "denied"
		}
		fmt.Fprintf(out.Out, "%s: %s\nrule: %s\nrisk: %s\n", verdict, d.Reason, d.Rule, d.Risk)
		if d.NeedsApproval {
			fmt.Fprintln(out.Out, "needs approval: rerun the op with --approve (yourself) or --approval TOKEN (from the approver's git records approve)")
		}
	}
	if !d.Allowed {
		return cmdutil.SilentError
	}
	return nil
}

func setRun(opts *PolicyOptions) error {
	data, err := os.ReadFile(opts.File)
	if err != nil {
		return kernel.Wrap(kernel.CodeUsage, err, "read policy")
	}
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.SetPolicy(data, opts.Evidence, approval)
	if err != nil {
		return err
	}
	return trust.PrintPolicyWrite(opts.Printer(), opts.PrintWritten, res, "policy unchanged")
}

// trustInForce is the trust in force on the records branch.
func trustInForce(opts *PolicyOptions) (*kernel.Trust, error) {
	svc, err := opts.ReadService()
	if err != nil {
		return nil, err
	}
	return svc.TrustInForce()
}
