package main

import (
	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

func (a *app) evidenceFlags(c *cobra.Command, ev *kernel.Evidence) {
	agentFlag(c, &ev.Agent)
	a.approvalFlags(c)
	c.Flags().StringVar(&ev.Note, "note", "", "why: recorded in the mutation log and the commit body")
	c.Flags().StringVar(&ev.SessionID, "session", "", "session id")
}

// runOp runs an op and prints the record's id.
func (a *app) runOp(op func(*service.Service, kernel.Approval) (*service.WriteResult, error)) error {
	res, err := a.write(op)
	if err != nil {
		return err
	}
	a.printWritten(res)
	return nil
}
