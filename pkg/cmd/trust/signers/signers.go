// Package signers is `git records signers add`: a key allowed to sign
// record commits (.records/allowed_signers), as a policy commit.
package signers

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/trust"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// AddOptions are signers add's inputs.
type AddOptions struct {
	Service      func() (*service.Service, error)
	Printer      func() cmdutil.Printer
	PrintWritten func(*service.WriteResult) error

	Principal string
	Key       string // a public key file, or the key itself
	Evidence  kernel.Evidence
	Approval  cmdutil.ApprovalFlags
}

// NewCmdSigners is the signers command and its add subcommand; runF (nil:
// addRun) runs add.
func NewCmdSigners(f *cmdutil.Factory, runF func(*AddOptions) error) *cobra.Command {
	opts := &AddOptions{Service: f.Service, Printer: f.Printer, PrintWritten: f.PrintWritten}
	c := &cobra.Command{Use: "signers", Short: "Manage .records/allowed_signers",
		Example: "  git records signers add bob@example.com ~/.ssh/id_ed25519.pub --rationale \"joins the team\" --agent alice"}
	add := &cobra.Command{
		Use:     "add <principal> <public-key-file | 'ssh-ed25519 AAAA…'> --rationale R --agent A",
		Short:   "Allow a key to sign record commits (a policy commit; needs the maintainer profile)",
		Example: `  git records signers add bob@example.com ~/.ssh/id_ed25519.pub --rationale "joins the team" --agent alice`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Principal, opts.Key = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return addRun(opts)
		},
	}
	add.Flags().StringVar(&opts.Evidence.Rationale, "rationale", "", "why this key may sign")
	cmdutil.EvidenceFlags(add, &opts.Evidence, &opts.Approval)
	c.AddCommand(add)
	return c
}

func addRun(opts *AddOptions) error {
	key := opts.Key
	data, err := os.ReadFile(key)
	switch {
	case err == nil:
		key = strings.TrimSpace(string(data))
	case !strings.ContainsAny(key, " \t"): // a key given inline is "TYPE BASE64"
		return kernel.Wrap(kernel.CodeUsage, err, "read the public key file")
	}
	line, err := service.AllowedSignersLine(opts.Principal, key)
	if err != nil {
		return err
	}
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.AddSigner(line, opts.Evidence, approval)
	if err != nil {
		return err
	}
	return trust.PrintPolicyWrite(opts.Printer(), opts.PrintWritten, res, "already allowed")
}
