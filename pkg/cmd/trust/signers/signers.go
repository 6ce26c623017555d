// Package signers is `git records signers add`: a key allowed to sign
// record commits (.records/allowed_signers), as a policy commit.
package signers

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/trust"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// AddOptions are signers add's inputs.
type AddOptions struct {
	Policy trust.PolicyWriter

	Principal string
	Key       string // a public key file, or the key itself
	Evidence  kernel.Evidence
	Approval  cmdutil.ApprovalFlags
}

// NewCmdSigners is the signers command and its add subcommand; runF (nil:
// addRun) runs add.
func NewCmdSigners(f *cmdutil.Factory, runF func(*AddOptions) error) *cobra.Command {
	opts := &AddOptions{Policy: trust.NewPolicyWriter(f)}
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
	line := signing.AllowedSignersLine(opts.Principal, key)
	if _, err := signing.ParseAllowedSigners([]byte(line + "\n")); err != nil {
		return err
	}
	// Read on the tip the op is decided on, every time: a run that
	// loses the race appends to the winner's file, not to a stale one.
	return opts.Policy.Write(&opts.Approval, func(v *gitstore.View) (map[string][]byte, error) {
		cur, err := v.ReadFile(gitstore.AllowedSignersPath)
		if err != nil || strings.Contains(string(cur), line) {
			return nil, err
		}
		return map[string][]byte{gitstore.AllowedSignersPath: append(append([]byte(nil), cur...), []byte(line+"\n")...)}, nil
	}, opts.Evidence, "already allowed")
}
