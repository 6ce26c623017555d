// Package continuecmd is `git records continue --owner S`: a session's
// carry-over, its open execution records with parents and children.
// (continue is a Go keyword, hence the package's name.)
package continuecmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ContinueOptions are continue's inputs.
type ContinueOptions struct {
	ReadService func() (*service.Service, error)
	Printer     func() cmdutil.Printer

	Owner string
}

// NewCmdContinue is the continue command; runF (nil: continueRun) runs it.
func NewCmdContinue(f *cmdutil.Factory, runF func(*ContinueOptions) error) *cobra.Command {
	opts := &ContinueOptions{ReadService: f.ReadService, Printer: f.Printer}
	c := &cobra.Command{
		Use:     "continue --owner S",
		Short:   "Print the carry-over of a session: its open execution records with parents and children",
		Example: `  git records continue --owner s-42`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return continueRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Owner, "owner", "", "the session key whose open records (those your key owns in it) to carry over")
	return c
}

func continueRun(opts *ContinueOptions) error {
	svc, err := opts.ReadService()
	if err != nil {
		return err
	}
	co, err := svc.Continue(opts.Owner)
	if err != nil {
		return err
	}
	p := opts.Printer()
	if p.JSONOn {
		return p.JSON(co)
	}
	_, err = fmt.Fprint(p.Out, co.Markdown())
	return err
}
