package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// Helpers the commands not yet moved share with pkg/cmd.

func describeEnd(v *gitstore.View, id, label string) string { return record.DescribeEnd(v, id, label) }

func oneOf(flag, value string, allowed []string) error { return cmdutil.OneOf(flag, value, allowed) }

func names[T ~string](values []T) []string { return cmdutil.Names(values) }

func oneLine(s string) string { return service.OneLine(s) }

func handleFor(v kernel.View, id string) string { return service.HandleFor(v, id) }

func listedStatus(v *gitstore.View, id string, status kernel.Status) string {
	return service.ListedStatus(v, id, status)
}

func (a *app) initCommand() *cobra.Command {
	var generate bool
	var agent string
	c := &cobra.Command{
		Use:   "init [--generate-key]",
		Short: "Create the records branch (and, with --generate-key, a signing key for it)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			_, email := s.Ident()
			line := ""
			if generate {
				if _, err := s.Signer(); err == nil && !a.keyIsOurs(s) {
					return kernel.Errorf(kernel.CodeUsage, "git already has a signing key configured (user.signingkey); drop --generate-key to use it")
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
			if agent == "" {
				agent = email
			}
			w, err := s.Init(agent, line)
			if err != nil {
				return err
			}
			if a.jsonOut {
				out := map[string]any{"ref": s.Ref(), "created": !w.Commit.IsZero()}
				if !w.Commit.IsZero() {
					out["commit"] = w.Commit.String()
				}
				if generate {
					out["signing_key"] = s.SigningKeyPath()
					out["allowed_signers"] = s.AllowedSignersExport()
				}
				a.writeJSON(out)
				return nil
			}
			if w.Commit.IsZero() {
				fmt.Fprintf(a.out, "%s is already set up\n", s.Ref())
				if line != "" {
					if ok, _ := s.SignerAllowed(line); !ok {
						fmt.Fprintf(a.out, "your new key is not an allowed signer yet; ask a maintainer to run:\n  git records signers add %s '%s' --rationale \"…\" --agent …\n",
							email, strings.TrimSpace(line[strings.Index(line, "ssh-"):]))
					}
				}
			} else {
				fmt.Fprintf(a.out, "initialized %s at %s\n", s.Ref(), w.Commit.String()[:12])
			}
			if generate {
				fmt.Fprintf(a.out, "signing key: %s\nallowed signers: %s (git verify-commit reads it)\n", s.SigningKeyPath(), s.AllowedSignersExport())
			}
			return nil
		},
	}
	c.Flags().BoolVar(&generate, "generate-key", false, "generate an ed25519 signing key for this store")
	c.Flags().StringVar(&agent, "agent", "", "agent recorded on the init commit (default: user.email)")
	return c
}

// keyIsOurs reports whether the configured signer is the key init generated.
func (a *app) keyIsOurs(s *gitstore.Store) bool {
	k, ok := s.ConfigValue("records.signingKey")
	return ok && k == s.SigningKeyPath()
}
