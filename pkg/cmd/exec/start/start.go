// Package start is `git records exec start`: start an execution record
// owned by your session.
package start

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	execcmd "github.com/git-records/git-records/pkg/cmd/exec"
	"github.com/git-records/git-records/pkg/cmd/extension"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// StartOptions are exec start's inputs.
type StartOptions struct {
	Service      func() (*service.Service, error)
	PrintWritten func(*service.WriteResult) error

	Input    kernel.StartInput // Type is execution.<kind>
	Kind     string
	Keep     bool // --keep-after-run
	Bind     service.BindOptions
	Approval cmdutil.ApprovalFlags
}

// NewCmdStart is the exec start command; runF (nil: startRun) runs it.
func NewCmdStart(f *cmdutil.Factory, runF func(*StartOptions) error) *cobra.Command {
	opts := &StartOptions{Service: f.Service, PrintWritten: f.PrintWritten}
	var binds []string
	c := &cobra.Command{
		Use:   "start --kind run|child_run|background_task|handoff --title X --session S --agent A",
		Short: "Start an execution record owned by your session (a child inherits its parent run's owner)",
		Example: `  git records exec start --kind run --title "Fix flaky test" --session s-42 --agent planner --sandbox sb-1
  git records exec start --kind child_run --title "Review" --parent-job <run> --session s-42 --agent planner
  git records exec start --kind background_task --title "Index" --parent-job <run> --keep-after-run --session s-42 --agent planner`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := extension.ParseBinds(binds, &opts.Bind); err != nil {
				return err
			}
			if err := cmdutil.OneOf("--kind", opts.Kind, execcmd.Kinds); err != nil {
				return err
			}
			if opts.Kind == "" {
				return kernel.Errorf(kernel.CodeUsage, "--kind is required: one of %s", strings.Join(execcmd.Kinds, ", ")).WithExtra("flag", "--kind")
			}
			opts.Input.Type = "execution." + opts.Kind
			if opts.Keep {
				keep := false
				opts.Input.CleanupOnRunEnd = &keep
			}
			if runF != nil {
				return runF(opts)
			}
			return startRun(opts)
		},
	}
	in := &opts.Input
	fl := c.Flags()
	fl.StringVar(&opts.Kind, "kind", "", "run, child_run, background_task or handoff")
	fl.StringVar(&in.Title, "title", "", "title")
	fl.StringVar(&in.Body, "body", "", "what it does (default: the title)")
	fl.StringVar(&in.Category, "category", "", "category (default: execution)")
	fl.StringVar(&in.ID, "id", "", "your own id (a lowercase slug)")
	fl.StringVar(&in.Session, "session", "", "session key of the run that starts it; also its owner unless inherited or overridden")
	fl.StringVar(&in.Note, "note", "", "provenance note; also the commit body")
	fl.StringVar(&in.Owner.SessionKey, "owner-session", "", "override the owner's session key")
	fl.StringVar(&in.Owner.AgentID, "owner-agent", "", "override the owner's agent id")
	fl.StringVar(&in.Owner.SandboxName, "sandbox", "", "the execution.sandbox record it runs in (default: the parent run's)")
	fl.StringVar(&in.Creator.JobID, "creator-job", "", "creator identity: the job that started it")
	fl.StringVar(&in.Creator.DispatchID, "creator-dispatch", "", "creator identity: the dispatch that started it")
	fl.StringVar(&in.Creator.WorkItemID, "creator-work-item", "", "creator identity: the work item that started it")
	fl.StringVar(&in.ParentJob, "parent-job", "", "parent run (job) record: you must own it (its signer and --session); the owner is inherited from it")
	fl.StringVar(&in.ParentDispatch, "parent-dispatch", "", "parent dispatch record")
	fl.StringVar(&in.ParentWorkItem, "parent-work-item", "", "parent work item record")
	fl.BoolVar(&opts.Keep, "keep-after-run", false, "cleanup_on_run_end=false: stay open when the parent run ends, for the owner's next run")
	cmdutil.AgentFlag(c, &in.Agent)
	opts.Approval.Register(c)
	extension.BindFlags(c, &binds, &opts.Bind)
	return c
}

func startRun(opts *StartOptions) error {
	svc, approval, err := cmdutil.WriteService(opts.Service, &opts.Approval)
	if err != nil {
		return err
	}
	res, err := svc.StartExecution(opts.Input, opts.Bind, approval)
	if err != nil {
		return err
	}
	return opts.PrintWritten(res)
}
