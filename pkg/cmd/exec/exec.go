// Package exec holds what the execution-record commands share: the exec
// parent command, the kinds `exec start` accepts, how exec list and await
// print a record, the evidence flags of the manage ops and how a manage op
// reports what it closed. The verbs are pkg/cmd/exec/<verb>.
package exec

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// Kinds are the execution record kinds `exec start --kind` accepts.
var Kinds = []string{"run", "child_run", "background_task", "handoff"}

// NewCmdExec is the exec command with its verbs under it (built by root,
// since the verbs import this package).
func NewCmdExec(verbs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use:   "exec",
		Short: "Execution records: start, list, await, cancel, close, and the cleanup policies",
		Example: `  git records exec start --kind run --title "nightly triage" --session s-42 --agent bot
  git records exec list --owner s-42`,
	}
	c.AddCommand(verbs...)
	return c
}

// JSON is an execution record as exec list and await print it.
func JSON(r *kernel.Record) map[string]any {
	out := map[string]any{"id": r.ID, "type": r.Type, "title": r.Title, "owner": r.Owner, "execution": r.Execution,
		"created_at": r.CreatedAt, "updated_at": r.UpdatedAt}
	if r.Creator != nil {
		out["creator"] = r.Creator
	}
	parents := map[string]string{}
	for _, k := range kernel.ParentLinkKinds {
		if p := r.ParentID(k); p != "" {
			parents[k] = p
		}
	}
	out["parents"] = parents
	return out
}

// ManageFlags are the evidence every manage op takes.
func ManageFlags(c *cobra.Command, in *kernel.ManageInput, approval *cmdutil.ApprovalFlags) {
	c.Flags().StringVar(&in.Session, "session", "", "your session key: it must be the owner's")
	c.Flags().StringVar(&in.Reason, "reason", "", "why (kept in each receipt)")
	c.Flags().StringVar(&in.Note, "note", "", "note; also the commit body")
	cmdutil.AgentFlag(c, &in.Agent)
	approval.Register(c)
}

// PrintClosed reports a manage op: the records it closed (their receipts
// are its commit).
func PrintClosed(p cmdutil.Printer, c service.Closed) error {
	if p.JSONOn {
		return p.JSON(c)
	}
	if len(c.Closed) == 0 {
		_, err := fmt.Fprintln(p.Out, "nothing open to close")
		return err
	}
	for _, id := range c.Closed {
		fmt.Fprintf(p.Out, "%s %s\n", id, c.State)
	}
	return nil
}
