package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/extension"
	"github.com/git-records/git-records/service"
)

// Execution ownership and continuation: `exec` starts and manages
// execution records (runs, child runs, background tasks, handoffs) by
// owner; `continue` prints an owner's carry-over. Each command parses,
// calls one kernel op through the write loop, and prints.

var execKinds = []string{"run", "child_run", "background_task", "handoff"}

func (a *app) execCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "exec",
		Short: "Execution records: start, list, await, cancel, close, and the cleanup policies",
		Example: `  git records exec start --kind run --title "nightly triage" --session s-42 --agent bot
  git records exec list --owner s-42`,
	}
	c.AddCommand(a.execStartCommand(), a.execListCommand(), a.execAwaitCommand(),
		a.execManageCommand(kernel.OpCancel), a.execManageCommand(kernel.OpClose),
		a.execEndRunCommand(), a.execEndSessionCommand(), a.execRetireSandboxCommand())
	return c
}

func (a *app) execStartCommand() *cobra.Command {
	var in kernel.StartInput
	var kind string
	var keep bool
	var binds []string
	var opts service.BindOptions
	c := &cobra.Command{
		Use:   "start --kind run|child_run|background_task|handoff --title X --session S --agent A",
		Short: "Start an execution record owned by your session (a child inherits its parent run's owner)",
		Example: `  git records exec start --kind run --title "Fix flaky test" --session s-42 --agent planner --sandbox sb-1
  git records exec start --kind child_run --title "Review" --parent-job <run> --session s-42 --agent planner
  git records exec start --kind background_task --title "Index" --parent-job <run> --keep-after-run --session s-42 --agent planner`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts); err != nil {
				return err
			}
			if err := oneOf("--kind", kind, execKinds); err != nil {
				return err
			}
			if kind == "" {
				return kernel.Errorf(kernel.CodeUsage, "--kind is required: one of %s", strings.Join(execKinds, ", ")).WithExtra("flag", "--kind")
			}
			in.Type = "execution." + kind
			if keep {
				f := false
				in.CleanupOnRunEnd = &f
			}
			res, err := a.write(func(svc *service.Service, ap kernel.Approval) (*service.WriteResult, error) {
				return svc.StartExecution(in, opts, ap)
			})
			if err != nil {
				return err
			}
			a.printWritten(res)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&kind, "kind", "", "run, child_run, background_task or handoff")
	f.StringVar(&in.Title, "title", "", "title")
	f.StringVar(&in.Body, "body", "", "what it does (default: the title)")
	f.StringVar(&in.Category, "category", "", "category (default: execution)")
	f.StringVar(&in.ID, "id", "", "your own id (a lowercase slug)")
	f.StringVar(&in.Session, "session", "", "session key of the run that starts it; also its owner unless inherited or overridden")
	f.StringVar(&in.Note, "note", "", "provenance note; also the commit body")
	f.StringVar(&in.Owner.SessionKey, "owner-session", "", "override the owner's session key")
	f.StringVar(&in.Owner.AgentID, "owner-agent", "", "override the owner's agent id")
	f.StringVar(&in.Owner.SandboxName, "sandbox", "", "the execution.sandbox record it runs in (default: the parent run's)")
	f.StringVar(&in.Creator.JobID, "creator-job", "", "creator identity: the job that started it")
	f.StringVar(&in.Creator.DispatchID, "creator-dispatch", "", "creator identity: the dispatch that started it")
	f.StringVar(&in.Creator.WorkItemID, "creator-work-item", "", "creator identity: the work item that started it")
	f.StringVar(&in.ParentJob, "parent-job", "", "parent run (job) record: the owner is inherited from it")
	f.StringVar(&in.ParentDispatch, "parent-dispatch", "", "parent dispatch record")
	f.StringVar(&in.ParentWorkItem, "parent-work-item", "", "parent work item record")
	f.BoolVar(&keep, "keep-after-run", false, "cleanup_on_run_end=false: stay open when the parent run ends, for the owner's next run")
	agentFlag(c, &in.Agent)
	a.approvalFlags(c)
	extension.BindFlags(c, &binds, &opts)
	return c
}

// execJSON is an execution record as exec list and await print it.
func execJSON(r *kernel.Record) map[string]any {
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

func (a *app) execListCommand() *cobra.Command {
	var owner string
	var all bool
	c := &cobra.Command{
		Use:   "list --owner S [--all]",
		Short: "List the execution records a session owns (open ones; --all for closed ones too)",
		Example: `  git records exec list --owner s-42
  git records exec list --owner s-42 --all --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readService()
			if err != nil {
				return err
			}
			rs, err := svc.ExecutionRecords(owner, all)
			if err != nil {
				return err
			}
			shown := []map[string]any{}
			var lines []string
			for _, r := range rs {
				shown = append(shown, execJSON(r))
				lines = append(lines, fmt.Sprintf("%s  %-15s %-12s %s", r.ID, strings.TrimPrefix(r.Type, "execution."), r.Execution.State, r.Title))
			}
			if a.jsonOut {
				a.writeJSON(map[string]any{"owner": owner, "records": shown})
				return nil
			}
			if len(lines) == 0 {
				fmt.Fprintf(a.out, "session %s owns no open execution records\n", owner)
			}
			for _, l := range lines {
				fmt.Fprintln(a.out, l)
			}
			return nil
		},
	}
	c.Flags().StringVar(&owner, "owner", "", "owner session key")
	c.Flags().BoolVar(&all, "all", false, "closed records too")
	return c
}

func (a *app) execAwaitCommand() *cobra.Command {
	var session, states string
	var timeout, interval time.Duration
	c := &cobra.Command{
		Use:     "await <handle> --session S [--state completed,failed] [--timeout 30s]",
		Short:   "Wait until an execution record you own reaches a state (default: any closed state)",
		Example: `  git records exec await 01hx3k9m --session s-42 --timeout 5m`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var want []string
			if states != "" {
				want = strings.Split(states, ",")
				for _, s := range want {
					if err := oneOf("--state", s, names(kernel.ExecStates)); err != nil {
						return err
					}
				}
			}
			svc, err := a.readService()
			if err != nil {
				return err
			}
			deadline := time.Now().Add(timeout)
			for {
				r, err := svc.ExecutionState(args[0], session)
				if err != nil {
					return err
				}
				reached := (len(want) == 0 && !r.IsOpen()) || slices.Contains(want, string(r.Execution.State))
				if reached || !time.Now().Before(deadline) {
					if a.jsonOut {
						a.writeJSON(map[string]any{"id": r.ID, "state": r.Execution.State, "reached": reached})
					} else {
						fmt.Fprintf(a.out, "%s %s\n", r.ID, r.Execution.State)
					}
					if !reached {
						fmt.Fprintf(a.err, "git-records: %s is still %s after %s\n", r.ID, r.Execution.State, timeout)
						return errSilent
					}
					return nil
				}
				time.Sleep(interval)
			}
		},
	}
	c.Flags().StringVar(&session, "session", "", "your session key: only the owner awaits")
	c.Flags().StringVar(&states, "state", "", "comma-separated states to wait for (default: any closed state)")
	c.Flags().DurationVar(&timeout, "timeout", 0, "how long to wait (0: check once)")
	c.Flags().DurationVar(&interval, "interval", 500*time.Millisecond, "how often to look")
	return c
}

// manageFlags are the evidence every manage op takes.
func (a *app) manageFlags(c *cobra.Command, in *kernel.ManageInput) {
	c.Flags().StringVar(&in.Session, "session", "", "your session key: it must be the owner's")
	c.Flags().StringVar(&in.Reason, "reason", "", "why (kept in each receipt)")
	c.Flags().StringVar(&in.Note, "note", "", "note; also the commit body")
	agentFlag(c, &in.Agent)
	a.approvalFlags(c)
}

func (a *app) execManageCommand(op kernel.Op) *cobra.Command {
	var in kernel.ManageInput
	var state string
	short := map[kernel.Op]string{
		kernel.OpCancel: "Cancel an open execution record you own (receipt keeps the creator lineage)",
		kernel.OpClose:  "Close an open execution record you own as completed or failed",
	}
	var binds []string
	var opts service.BindOptions
	c := &cobra.Command{
		Use:     string(op) + " <handle> --session S --agent A",
		Short:   short[op],
		Example: "  git records exec " + string(op) + " 01hx3k9m --session s-42 --agent bot",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts); err != nil {
				return err
			}
			in.State = kernel.ExecState(state)
			res, err := a.write(func(svc *service.Service, ap kernel.Approval) (*service.WriteResult, error) {
				return svc.ManageExecution(op, args[0], in, opts, ap)
			})
			if err != nil {
				return err
			}
			a.printClosed(service.ClosedBy(res))
			return nil
		},
	}
	if op == kernel.OpClose {
		c.Flags().StringVar(&state, "state", string(kernel.ExecCompleted), "completed or failed")
	}
	a.manageFlags(c, &in)
	extension.BindFlags(c, &binds, &opts)
	return c
}

// printClosed reports a manage op: the records it closed (their receipts
// are its commit).
func (a *app) printClosed(c service.Closed) {
	if a.jsonOut {
		a.writeJSON(c)
		return
	}
	if len(c.Closed) == 0 {
		fmt.Fprintln(a.out, "nothing open to close")
		return
	}
	for _, id := range c.Closed {
		fmt.Fprintf(a.out, "%s %s\n", id, c.State)
	}
}

func (a *app) execEndRunCommand() *cobra.Command {
	var in kernel.ManageInput
	var state string
	var binds []string
	var opts service.BindOptions
	c := &cobra.Command{
		Use:     "end-run <run> --session S --agent A [--state completed|failed]",
		Short:   "End a run: terminate its open children that clean up on run end (a receipt each), then close the run",
		Example: `  git records exec end-run 01hx3k9m --session s-42 --agent bot --state completed`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts); err != nil {
				return err
			}
			var cleaned, closed *service.WriteResult
			_, err := a.write(func(svc *service.Service, ap kernel.Approval) (*service.WriteResult, error) {
				var err error
				cleaned, closed, err = svc.EndRun(args[0], kernel.ExecState(state), in, opts, ap)
				return closed, err
			})
			if err != nil {
				return err
			}
			out := map[string]any{"run": closed.ID, "state": state, "terminated": service.ClosedBy(cleaned).Closed, "commit": closed.Commit}
			if cleaned != nil && cleaned.Commit != "" {
				out["cleanup_commit"] = cleaned.Commit
			}
			if a.jsonOut {
				a.writeJSON(out)
				return nil
			}
			for _, id := range service.ClosedBy(cleaned).Closed {
				fmt.Fprintf(a.out, "%s %s\n", id, kernel.ExecTerminated)
			}
			fmt.Fprintf(a.out, "%s %s\n", closed.ID, state)
			return nil
		},
	}
	c.Flags().StringVar(&state, "state", string(kernel.ExecCompleted), "the run's own state: completed or failed")
	a.manageFlags(c, &in)
	extension.BindFlags(c, &binds, &opts)
	return c
}

func (a *app) execEndSessionCommand() *cobra.Command {
	var in kernel.ManageInput
	var archive, terminate bool
	var binds []string
	var opts service.BindOptions
	c := &cobra.Command{
		Use:     "end-session --session S --agent A (--terminate | --archive)",
		Short:   "Close a session: terminate or archive every open record it owns, a receipt each, in one commit",
		Example: `  git records exec end-session --session s-42 --agent bot --terminate`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts); err != nil {
				return err
			}
			if archive == terminate {
				return kernel.Errorf(kernel.CodeUsage, "say what the session close does with open records: --terminate or --archive").WithExtra("flag", "--terminate")
			}
			in.State = kernel.ExecTerminated
			if archive {
				in.State = kernel.ExecArchived
			}
			res, err := a.write(func(svc *service.Service, ap kernel.Approval) (*service.WriteResult, error) {
				return svc.EndSession(in, opts, ap)
			})
			if err != nil {
				return err
			}
			a.printClosed(service.ClosedBy(res))
			return nil
		},
	}
	c.Flags().BoolVar(&archive, "archive", false, "archive the open records")
	c.Flags().BoolVar(&terminate, "terminate", false, "terminate the open records")
	a.manageFlags(c, &in)
	extension.BindFlags(c, &binds, &opts)
	return c
}

func (a *app) execRetireSandboxCommand() *cobra.Command {
	var in kernel.ManageInput
	var force bool
	var binds []string
	var opts service.BindOptions
	c := &cobra.Command{
		Use:     "retire-sandbox <sandbox> --agent A --reason R [--force]",
		Short:   "Retire a sandbox record; refused while it owns open records, unless --force closes each with a receipt",
		Example: `  git records exec retire-sandbox sb-7 --agent bot --reason "job finished"`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts); err != nil {
				return err
			}
			res, err := a.write(func(svc *service.Service, ap kernel.Approval) (*service.WriteResult, error) {
				return svc.RetireSandbox(args[0], force, in, opts, ap)
			})
			if err != nil {
				return err
			}
			closed := service.ClosedBy(res)
			if a.jsonOut {
				a.writeJSON(map[string]any{"id": res.ID, "commit": res.Commit, "force_closed": closed.Closed})
				return nil
			}
			if len(closed.Closed) > 0 {
				a.printClosed(closed)
			}
			fmt.Fprintf(a.out, "%s retired\n", res.ID)
			return nil
		},
	}
	c.Flags().BoolVar(&force, "force", false, "force-close the open records it owns, a receipt each (needs the force-close right)")
	a.manageFlags(c, &in)
	extension.BindFlags(c, &binds, &opts)
	return c
}

func (a *app) continueCommand() *cobra.Command {
	var owner string
	c := &cobra.Command{
		Use:     "continue --owner S",
		Short:   "Print the carry-over of a session: its open execution records with parents and children",
		Example: `  git records continue --owner s-42`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.readService()
			if err != nil {
				return err
			}
			co, err := svc.Continue(owner)
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.writeJSON(co)
				return nil
			}
			fmt.Fprint(a.out, co.Markdown())
			return nil
		},
	}
	c.Flags().StringVar(&owner, "owner", "", "the session key whose open records to carry over")
	return c
}
