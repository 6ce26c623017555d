// Package link is `git records link <handle> --to TARGET`.
package link

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// LinkOptions are link's inputs.
type LinkOptions struct {
	IO           *cmdutil.IOStreams
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	Handle   string
	Targets  []string // --to, repeatable
	Kind     string
	Label    string
	Evidence kernel.Evidence
	Approval cmdutil.ApprovalFlags
}

// NewCmdLink is the link command; runF (nil: linkRun) runs it.
func NewCmdLink(f *cmdutil.Factory, runF func(*LinkOptions) error) *cobra.Command {
	opts := &LinkOptions{IO: f.IOStreams, Service: f.Service, PrintWritten: f.PrintWritten}
	c := &cobra.Command{
		Use:   "link <handle> --to TARGET [--kind K] --agent A",
		Short: "Add links from a record (idempotent)",
		Example: `  git records link auth/token-refresh --to rfc-6749 --kind source --agent alice
  git records link 3f2a9c1e --to a1b2c3d4 --to e5f6a7b8 --agent alice`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Handle = args[0]
			if len(opts.Targets) == 0 {
				return kernel.Errorf(kernel.CodeUsage, "link needs at least one --to TARGET").WithExtra("flag", "--to")
			}
			if runF != nil {
				return runF(opts)
			}
			return linkRun(opts)
		},
	}
	c.Flags().StringArrayVar(&opts.Targets, "to", nil, "target record handle (repeatable)")
	c.Flags().StringVar(&opts.Kind, "kind", kernel.LinkRelated, "link kind: related, source, example, refines, supersedes, …")
	c.Flags().StringVar(&opts.Label, "label", "", "display label")
	cmdutil.EvidenceFlags(c, &opts.Evidence, &opts.Approval)
	// Each link's parts have a flag of their own here (create takes --link KIND:TARGET).
	for field, flag := range map[string]string{"links": "--to", "links.target_id": "--to", "link target_id": "--to",
		"links.kind": "--kind", "links.label": "--label", "link label": "--label"} {
		cmdutil.SetFlagFor(c, field, flag)
	}
	return c
}

func linkRun(opts *LinkOptions) error {
	links := make([]kernel.Link, len(opts.Targets))
	for i, t := range opts.Targets {
		links[i] = kernel.Link{TargetID: t, Kind: opts.Kind, Label: opts.Label}
	}
	cmdutil.NoteUnknownLinkKinds(opts.IO.ErrOut, links)
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Link(opts.Handle, links, opts.Evidence, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
