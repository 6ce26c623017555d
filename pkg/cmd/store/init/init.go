// Package initcmd is `git records init`: the records branch created (and,
// with --generate-key, a signing key for it).
package initcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// InitOptions are init's inputs.
type InitOptions struct {
	Store   func() (*gitstore.Store, error)
	Printer func() cmdutil.Printer

	GenerateKey bool
	Agent       string // default user.email
}

// NewCmdInit is the init command; runF (nil: initRun) runs it.
func NewCmdInit(f *cmdutil.Factory, runF func(*InitOptions) error) *cobra.Command {
	opts := &InitOptions{Store: f.Store, Printer: f.Printer}
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
	s, err := opts.Store()
	if err != nil {
		return err
	}
	_, email := s.Ident()
	line := ""
	if opts.GenerateKey {
		if _, err := s.Signer(); err == nil && !keyIsOurs(s) {
			return kernel.Errorf(kernel.CodeUsage, "git already has a signing key configured (user.signingkey); drop --generate-key to use it").WithExtra("flag", "--generate-key")
		}
		if email == "" {
			return kernel.Errorf(kernel.CodeUsage, "no committer identity: set git config user.name and user.email first")
		}
		if line, err = s.GenerateSigningKey(email); err != nil {
			return err
		}
	} else if line, err = s.SignerLine(email); err != nil {
		return err // the user's own key is the store's first signer
	}
	agent := opts.Agent
	if agent == "" {
		agent = email
	}
	w, err := s.Init(agent, line)
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		out := map[string]any{"ref": s.Ref(), "created": !w.Commit.IsZero()}
		if !w.Commit.IsZero() {
			out["commit"] = w.Commit.String()
		}
		if opts.GenerateKey {
			out["signing_key"] = s.SigningKeyPath()
			out["allowed_signers"] = s.AllowedSignersExport()
		}
		return p.JSON(out)
	}
	if w.Commit.IsZero() {
		fmt.Fprintf(p.Out, "%s is already set up\n", s.Ref())
		if line != "" {
			if ok, _ := s.SignerAllowed(line); !ok {
				fmt.Fprintf(p.Out, "your new key is not an allowed signer yet; ask a maintainer to run:\n  git records signers add %s '%s' --rationale \"…\" --agent …\n",
					email, strings.TrimSpace(line[strings.Index(line, "ssh-"):]))
			}
		}
	} else {
		fmt.Fprintf(p.Out, "initialized %s at %s\n", s.Ref(), w.Commit.String()[:12])
	}
	if opts.GenerateKey {
		fmt.Fprintf(p.Out, "signing key: %s\nallowed signers: %s (git verify-commit reads it)\n", s.SigningKeyPath(), s.AllowedSignersExport())
	}
	return nil
}

// keyIsOurs reports whether the configured signer is the key init generated.
func keyIsOurs(s *gitstore.Store) bool {
	k, ok := s.ConfigValue("records.signingKey")
	return ok && k == s.SigningKeyPath()
}
