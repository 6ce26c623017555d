// Package initcmd is `git records init`: the records branch created (and,
// with --generate-key, a signing key for it).
package initcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// InitOptions are init's inputs.
type InitOptions struct {
	Service func() (*service.Service, error)
	Printer func() cmdutil.Printer

	GenerateKey bool
	Agent       string // default user.email
}

// NewCmdInit is the init command; runF (nil: initRun) runs it.
func NewCmdInit(f *cmdutil.Factory, runF func(*InitOptions) error) *cobra.Command {
	opts := &InitOptions{Service: f.Service, Printer: f.Printer}
	c := &cobra.Command{
		Use:   "init [--generate-key]",
		Short: "Create the records branch (and, with --generate-key, a signing key for it)",
		Example: `  git records init                   # sign with your git signing key (user.signingkey)
  git records init --generate-key    # a key of the store's own
  git records --store ~/notes init --generate-key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return initRun(opts)
		},
	}
	c.Flags().BoolVar(&opts.GenerateKey, "generate-key", false, "generate an ed25519 signing key for this store")
	c.Flags().StringVar(&opts.Agent, "agent", "", "agent recorded on the init commit (default: user.email)")
	return c
}

func initRun(opts *InitOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	res, err := svc.Init(service.InitRequest{GenerateKey: opts.GenerateKey, Agent: opts.Agent})
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		out := map[string]any{"ref": res.Ref, "created": res.Commit != ""}
		if res.Commit != "" {
			out["commit"] = res.Commit
		}
		if opts.GenerateKey {
			out["signing_key"] = res.SigningKey
			out["allowed_signers"] = res.AllowedSigners
		}
		return p.JSON(out)
	}
	if res.Commit == "" {
		fmt.Fprintf(p.Out, "%s is already set up\n", res.Ref)
		if res.SignerLine != "" && !res.SignerAllowed {
			fmt.Fprintf(p.Out, "your new key is not an allowed signer yet; ask a maintainer to run:\n  git records signers add %s '%s' --rationale \"…\" --agent …\n",
				res.Email, service.SignerKey(res.SignerLine))
		}
	} else {
		fmt.Fprintf(p.Out, "initialized %s at %s\n", res.Ref, res.Commit[:12])
	}
	if opts.GenerateKey {
		fmt.Fprintf(p.Out, "signing key: %s\nallowed signers: %s (git verify-commit reads it)\n", res.SigningKey, res.AllowedSigners)
	}
	return nil
}
