// Package verify is `git records verify [<rev> | <range>]`: judge record
// commits as the server hooks do.
package verify

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmd/history"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// VerifyOptions are verify's inputs.
type VerifyOptions struct {
	IO       *cmdutil.IOStreams
	Service  func() (*service.Service, error)
	Printer  func() cmdutil.Printer
	Progress func(title string) *cmdutil.ProgressMeter

	Spec   string // a revision or range ("": the whole branch)
	Strict bool   // --strict
}

// NewCmdVerify is the verify command; runF (nil: verifyRun) runs it.
func NewCmdVerify(f *cmdutil.Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: f.IOStreams, Service: f.Service, Printer: f.Printer, Progress: f.ProgressMeter}
	c := &cobra.Command{
		Use:   "verify [<rev> | <range>]",
		Short: "Check record commits: signatures, evidence, invariants and policy",
		Long: `verify judges every commit of the records branch (or of <range>, e.g.
origin/records..records) against its parent: a valid signature by a principal
in .records/allowed_signers as of the parent, trailers with the evidence the
op requires, records that parse and sit at the right path, immutable fields
unchanged, mutation logs only appended to, no record deleted, changes that
match the op, and a signer whose policy profile allowed the op.
Exit status 0 means every commit passed; 1 means violations were found.`,
		Example: `  git records verify
  git records verify origin/records..records --strict`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Spec = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(opts)
		},
	}
	c.Flags().BoolVar(&opts.Strict, "strict", false, "treat dangling links as violations")
	return c
}

func verifyRun(opts *VerifyOptions) error {
	svc, err := opts.Service()
	if err != nil {
		return err
	}
	meter := opts.Progress("Verifying commits")
	rep, err := svc.Verify(opts.Spec, service.VerifyOptions{Strict: opts.Strict, Progress: meter.Func()})
	meter.Stop()
	if err != nil {
		return err
	}
	err = opts.Printer().Result(rep, func(out io.Writer) error { history.WriteReport(out, rep); return nil })
	if err != nil {
		return err
	}
	if !rep.OK {
		return cmdutil.SilentError
	}
	return nil
}
