package main

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// keyConfig is the git config as signing reads it, with the signing key
// replaced by --key.
type keyConfig struct {
	base signing.ConfigGetter
	key  string
}

func (c keyConfig) Get(key string) (string, bool) {
	switch key {
	case "records.signingkey":
		return c.key, true
	case "records.signingformat":
		return signing.FormatSSH, true
	}
	return c.base.Get(key)
}

func (a *app) approveCommand() *cobra.Command {
	var req kernel.ApprovalRequest
	var op, tip, key string
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
			s, err := a.open()
			if err != nil {
				return err
			}
			req.Op = kernel.Op(op)
			if _, known := kernel.OpSpecs[req.Op]; !known {
				return kernel.Errorf(kernel.CodeUsage, "--op %q is not an op", op)
			}
			if !strings.HasPrefix(req.Evidence, "sha256:") {
				return kernel.Errorf(kernel.CodeUsage, "--evidence sha256:… is the digest the committer's refusal printed")
			}
			if tip == "" {
				h, err := s.Tip()
				if err != nil {
					return err
				}
				tip = h.String()
			} else {
				h, err := s.ResolveRev(tip)
				if err != nil {
					return err
				}
				tip = h.String()
			}
			if plumbing.NewHash(tip).IsZero() {
				return kernel.Errorf(kernel.CodeUsage, "%s has no commits: nothing to approve on", s.Ref())
			}
			req.Tip = tip
			signer, err := s.Signer()
			if key != "" {
				name, email := s.Ident()
				signer, err = signing.FromConfig(keyConfig{base: s.ConfigGetter(), key: key}, name, email)
			}
			if err != nil {
				return err
			}
			sig, err := signing.SignApproval(signer, req.Statement())
			if err != nil {
				return err
			}
			token := kernel.Token(req.Tip, sig)
			if a.jsonOut {
				a.writeJSON(map[string]any{"token": token, "op": req.Op, "records": req.Records, "evidence": req.Evidence, "tip": req.Tip})
				return nil
			}
			fmt.Fprintln(a.out, token)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&op, "op", "", "the op approved (apply, supersede, retire, …)")
	f.StringArrayVar(&req.Records, "record", nil, "id of a record the op writes, in the order the refusal lists them (repeatable)")
	f.StringVar(&req.Evidence, "evidence", "", "digest of the op's evidence trailers, as the refusal prints it")
	f.StringVar(&tip, "tip", "", "the commit the op is decided on (default: the records branch's tip)")
	f.StringVar(&key, "key", "", "sign with the SSH private key in `FILE` instead of your configured signing key")
	return c
}
