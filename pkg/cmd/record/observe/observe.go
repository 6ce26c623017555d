// Package observe is `git records observe`: a snapshot of an external
// object, its raw payload stored once by hash.
package observe

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// ObserveOptions are observe's inputs.
type ObserveOptions struct {
	IO           *cmdutil.IOStreams
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	Input       kernel.CreateInput
	PayloadFile string // - for stdin
	Approval    cmdutil.ApprovalFlags
}

// NewCmdObserve is the observe command; runF (nil: observeRun) runs it.
func NewCmdObserve(f *cmdutil.Factory, runF func(*ObserveOptions) error) *cobra.Command {
	opts := &ObserveOptions{IO: f.IOStreams, Service: f.Service, PrintWritten: f.PrintWritten, Input: kernel.CreateInput{Source: &kernel.Source{}}}
	in := &opts.Input
	c := &cobra.Command{
		Use:   "observe --extension E --external-id ID --payload-file F --title X --category C --agent A",
		Short: "Record a snapshot of an external object, its raw payload stored once by hash; an unchanged one is coalesced",
		Example: `  gh api repos/acme/api/pulls/42 | git records observe --type github.pull_request --extension github \
      --external-id pull/42 --title "PR 42" --category github.pulls --payload-file - --agent ci`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.PayloadFile == "" {
				return kernel.Errorf(kernel.CodeMissingEvidence, "--payload-file is required: the raw payload as the extension saw it (- for stdin)").WithExtra("flag", "--payload-file")
			}
			if runF != nil {
				return runF(opts)
			}
			return observeRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&in.Type, "type", "snapshot", "record type (snapshot, or a namespaced type such as github.pull_request)")
	fl.StringVar(&in.Title, "title", "", "title")
	fl.StringVar(&in.Category, "category", "", "dot-separated category")
	fl.StringVar(&in.Body, "body", "", "the normalized, thin summary (the raw data goes to --payload-file)")
	fl.StringVar(&in.Source.Extension, "extension", "", "the extension that observed it (github, jira, …)")
	fl.StringVar(&in.Source.ExternalID, "external-id", "", "the object's id in that extension (pull/42)")
	fl.StringVar(&in.Source.ExternalURL, "external-url", "", "where the object lives")
	fl.StringVar(&opts.PayloadFile, "payload-file", "", "the raw payload (`FILE`, - for stdin), stored at payloads/<sha256>")
	cmdutil.AgentFlag(c, &in.Provenance.Agent)
	opts.Approval.Register(c)
	return c
}

func observeRun(opts *ObserveOptions) error {
	var payload []byte
	var err error
	if opts.PayloadFile == "-" {
		payload, err = io.ReadAll(opts.IO.In)
	} else {
		payload, err = os.ReadFile(opts.PayloadFile)
	}
	if err != nil {
		return kernel.Wrap(kernel.CodeUsage, err, "read --payload-file %s", opts.PayloadFile).WithExtra("flag", "--payload-file")
	}
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.Observe(opts.Input, payload, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
