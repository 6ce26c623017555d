package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

func (a *app) observeCommand() *cobra.Command {
	in := kernel.CreateInput{Source: &kernel.Source{}}
	var payloadFile string
	c := &cobra.Command{
		Use:   "observe --extension E --external-id ID --payload-file F --title X --category C --agent A",
		Short: "Record a snapshot of an external object, its raw payload stored once by hash; an unchanged one is coalesced",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if payloadFile == "" {
				return kernel.Errorf(kernel.CodeMissingEvidence, "--payload-file is required: the raw payload as the extension saw it (- for stdin)").WithExtra("flag", "--payload-file")
			}
			var payload []byte
			var err error
			if payloadFile == "-" {
				payload, err = io.ReadAll(a.in)
			} else {
				payload, err = os.ReadFile(payloadFile)
			}
			if err != nil {
				return kernel.Wrap(kernel.CodeUsage, err, "read --payload-file %s", payloadFile)
			}
			return a.runOp(func(svc *service.Service, approval kernel.Approval) (*service.WriteResult, error) {
				return svc.Observe(in, payload, approval)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&in.Type, "type", "snapshot", "record type (snapshot, or a namespaced type such as github.pull_request)")
	f.StringVar(&in.Title, "title", "", "title")
	f.StringVar(&in.Category, "category", "", "dot-separated category")
	f.StringVar(&in.Body, "body", "", "the normalized, thin summary (the raw data goes to --payload-file)")
	f.StringVar(&in.Source.Extension, "extension", "", "the extension that observed it (github, jira, …)")
	f.StringVar(&in.Source.ExternalID, "external-id", "", "the object's id in that extension (pull/42)")
	f.StringVar(&in.Source.ExternalURL, "external-url", "", "where the object lives")
	f.StringVar(&payloadFile, "payload-file", "", "the raw payload (`FILE`, - for stdin), stored at payloads/<sha256>")
	agentFlag(c, &in.Provenance.Agent)
	a.approvalFlags(c)
	return c
}
