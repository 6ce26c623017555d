// Package approve is `git records approve`: an approver's signed token for
// the committer's --approval.
package approve

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ApproveOptions are approve's inputs.
type ApproveOptions struct {
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	Op       string
	Records  []string
	Evidence string
	Tip      string // "": the records branch's tip
	Key      string // "": the configured signing key
}

// NewCmdApprove is the approve command; runF (nil: approveRun) runs it.
func NewCmdApprove(f *cmdutil.Factory, runF func(*ApproveOptions) error) *cobra.Command {
	opts := &ApproveOptions{Service: f.Service, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "approve --op OP --record ID… --evidence sha256:… [--tip COMMIT] [--key FILE]",
		Short: "Approve a risky op: print a token, signed with your key, for the committer's --approval",
		Example: `  # run by the approver, with the values the refusal printed:
  git records approve --op retire --record k7m2qxw4 --evidence sha256:9f2c… > token
  git records retire k7m2qxw4 --rationale "…" --agent alice --approval-file token`,
		Long: `An approval is your signature, not your name. When an op needs approval,
the committer's refusal prints the exact command to run here: it names the
op, the records, the digest of the op's evidence and the tip the op is decided
on, and the token this prints approves exactly that op on that tip. The
committer passes it with --approval TOKEN (or --approval-file FILE); verify and
the server hooks check that the signature is yours (your key maps to your
principal in .records/allowed_signers) and that your profile allows the op.

The token is signed with your signing key (records.signingKey, else
user.signingkey with gpg.format=ssh), or the SSH key --key names, in the sshsig
namespace "git-records-approval".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return approveRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Op, "op", "", "the op approved (apply, supersede, retire, …)")
	fl.StringArrayVar(&opts.Records, "record", nil, "id of a record the op writes, in the order the refusal lists them (repeatable)")
	fl.StringVar(&opts.Evidence, "evidence", "", "digest of the op's evidence trailers, as the refusal prints it")
	fl.StringVar(&opts.Tip, "tip", "", "the commit the op is decided on (default: the records branch's tip)")
	fl.StringVar(&opts.Key, "key", "", "sign with the SSH private key in `FILE` instead of your configured signing key")
	return c
}

func approveRun(opts *ApproveOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	req := kernel.ApprovalRequest{Op: kernel.Op(opts.Op), Records: opts.Records, Evidence: opts.Evidence}
	if _, known := kernel.OpSpecs()[req.Op]; !known {
		return kernel.Errorf(kernel.CodeUsage, "--op %q is not an op", opts.Op).WithExtra("flag", "--op")
	}
	if !strings.HasPrefix(req.Evidence, "sha256:") {
		return kernel.Errorf(kernel.CodeUsage, "--evidence sha256:… is the digest the committer's refusal printed").WithExtra("flag", "--evidence")
	}
	// The refusal lists the records such an op writes: an approval naming
	// none could approve no commit of it.
	if len(req.Records) == 0 && kernel.OpNamesRecords(req.Op) {
		return kernel.Errorf(kernel.CodeMissingEvidence, "--record is required: the ids the op writes, in the order the refusal lists them").WithExtra("flag", "--record")
	}
	var tip string
	if opts.Tip == "" {
		tip, err = svc.Tip()
	} else {
		tip, err = svc.ResolveRevision(opts.Tip)
		err = cmdutil.AboutFlag("--tip", err)
	}
	if err != nil {
		return err
	}
	if tip == "" {
		return kernel.Errorf(kernel.CodeUsage, "%s has no commits: nothing to approve on", svc.Ref())
	}
	req.Tip = tip
	sig, err := svc.SignApproval(req.Statement(), opts.Key)
	if err != nil {
		return err
	}
	token := kernel.Token(req.Tip, sig)
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(map[string]any{"token": token, "op": req.Op, "records": req.Records, "evidence": req.Evidence, "tip": req.Tip})
	}
	_, err = fmt.Fprintln(p.Out, token)
	return err
}
