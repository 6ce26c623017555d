package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// The tools of execution ownership and continuation, and of extension
// bindings: what an agent calls at the start of a run (continue,
// inspect_bindings) and to start and manage its work.

// bindArgs are a run's per-call binding choices.
type bindArgs struct {
	Bind         map[string]string `json:"bind,omitempty" jsonschema:"slot → implementation record for this call, over the project bindings and the slot's default"`
	Fallback     []string          `json:"fallback,omitempty" jsonschema:"slots whose bound implementation failed: bind the slot's default instead, recorded in the manifest and the provenance"`
	BindingsFrom string            `json:"bindings_from,omitempty" jsonschema:"a commit whose binding manifest to resume with exactly"`
}

func (b bindArgs) options() service.BindOptions {
	return service.BindOptions{Flags: b.Bind, Fallback: b.Fallback, From: b.BindingsFrom}
}

type execStartArgs struct {
	ExecutionType   string `json:"execution_type" jsonschema:"run, child_run, background_task or handoff"`
	Title           string `json:"title" jsonschema:"what the work is, one line"`
	Body            string `json:"body,omitempty" jsonschema:"what it does (default the title)"`
	Session         string `json:"session" jsonschema:"session key of the run that starts it; also its owner unless inherited from the parent run or overridden"`
	OwnerSession    string `json:"owner_session,omitempty" jsonschema:"override the owner's session key"`
	OwnerAgent      string `json:"owner_agent,omitempty" jsonschema:"override the owner's agent id"`
	Sandbox         string `json:"sandbox,omitempty" jsonschema:"the execution.sandbox record it runs in (default the parent run's)"`
	CreatorJob      string `json:"creator_job,omitempty" jsonschema:"creator identity: the job that started it"`
	CreatorDispatch string `json:"creator_dispatch,omitempty" jsonschema:"creator identity: the dispatch that started it"`
	CreatorWorkItem string `json:"creator_work_item,omitempty" jsonschema:"creator identity: the work item that started it"`
	ParentJob       string `json:"parent_job,omitempty" jsonschema:"parent run record: you must own it (your key and session); the owner is inherited from it"`
	ParentDispatch  string `json:"parent_dispatch,omitempty" jsonschema:"parent dispatch record"`
	ParentWorkItem  string `json:"parent_work_item,omitempty" jsonschema:"parent work item record"`
	KeepAfterRun    bool   `json:"keep_after_run,omitempty" jsonschema:"cleanup_on_run_end false: stay open when the parent run ends, for the owner's next run"`
	Note            string `json:"note,omitempty" jsonschema:"why: the commit body"`
	Approval        string `json:"approval,omitempty" jsonschema:"approval token from 'git records approve', when the policy requires one"`
	bindArgs
}

type execManageArgs struct {
	Handle   string `json:"handle" jsonschema:"the execution record"`
	Action   string `json:"action" jsonschema:"cancel or close"`
	State    string `json:"state,omitempty" jsonschema:"close: completed (default) or failed"`
	Session  string `json:"session" jsonschema:"your session key: it must be the owner's"`
	Reason   string `json:"reason,omitempty" jsonschema:"why (required to cancel), kept in the receipt"`
	Note     string `json:"note,omitempty" jsonschema:"the commit body"`
	Approval string `json:"approval,omitempty" jsonschema:"approval token, when the policy requires one"`
	bindArgs
}

type execEndArgs struct {
	Run      string `json:"run,omitempty" jsonschema:"end this run: terminate its open children that clean up on run end, then close it; without it, close the session"`
	Session  string `json:"session" jsonschema:"the owner's session key"`
	Archive  bool   `json:"archive,omitempty" jsonschema:"session close: archive the open records instead of terminating them"`
	Reason   string `json:"reason,omitempty" jsonschema:"why, kept in each receipt"`
	Approval string `json:"approval,omitempty" jsonschema:"approval token, when the policy requires one"`
	bindArgs
}

type ownerArgs struct {
	Owner string `json:"owner" jsonschema:"the session key whose open execution records (those your key owns in it) to carry over"`
}

type inspectBindingsArgs struct {
	At string `json:"at,omitempty" jsonschema:"a commit: the binding manifest it was written under"`
	bindArgs
}

func (s *Server) addExecutionTools() {
	svc := s.svc
	enums := map[string][]any{
		"execution_type": {"run", "child_run", "background_task", "handoff"},
		"action":         {string(kernel.OpCancel), string(kernel.OpClose)},
		"state":          {string(kernel.ExecCompleted), string(kernel.ExecFailed)},
	}
	tool(s, readTool("continue", "Carry-over of a session",
		"At the start of a run: the open execution records your key owns in a session (runs, child runs, background tasks, handoffs), each with its parents and children, and a Markdown summary to keep in context."), enums,
		func(req *mcp.CallToolRequest, in ownerArgs) (any, error) {
			co, err := svc.Continue(in.Owner)
			if err != nil {
				return nil, err
			}
			return map[string]any{"owner": co.Owner, "open": co.Open, "summary": co.Markdown()}, nil
		})
	tool(s, writeTool("exec_start", "Start execution work",
		"Start an execution record owned by your session: a run, a child run under parent_job (a run you own, with your key and session; it inherits the owner), a background task or a handoff. Returns {id, commit}."), enums,
		func(req *mcp.CallToolRequest, in execStartArgs) (any, error) {
			st := kernel.StartInput{Type: "execution." + in.ExecutionType, Title: in.Title, Body: in.Body, Agent: s.agent(req), Session: in.Session, Note: in.Note,
				Owner:     kernel.Owner{SessionKey: in.OwnerSession, AgentID: in.OwnerAgent, SandboxName: in.Sandbox},
				Creator:   kernel.Creator{JobID: in.CreatorJob, DispatchID: in.CreatorDispatch, WorkItemID: in.CreatorWorkItem},
				ParentJob: in.ParentJob, ParentDispatch: in.ParentDispatch, ParentWorkItem: in.ParentWorkItem}
			if in.KeepAfterRun {
				f := false
				st.CleanupOnRunEnd = &f
			}
			return svc.StartExecution(st, in.options(), kernel.Approval{Token: in.Approval})
		})
	tool(s, writeTool("exec_manage", "Cancel or close execution work",
		"Cancel or close an open execution record you own (signer and session must be the owner's, else NOT_OWNER). The commit is the receipt, with the creator lineage."), enums,
		func(req *mcp.CallToolRequest, in execManageArgs) (any, error) {
			res, err := svc.ManageExecution(kernel.Op(in.Action), in.Handle, kernel.ManageInput{Agent: s.agent(req), Session: in.Session,
				State: kernel.ExecState(in.State), Reason: in.Reason, Note: in.Note}, in.options(), kernel.Approval{Token: in.Approval})
			if err != nil {
				return nil, err
			}
			return service.ClosedBy(res), nil
		})
	tool(s, writeTool("exec_end", "End a run or close a session",
		"The cleanup policies: with run, terminate the run's open children that clean up on run end and close the run; without it, terminate (or archive) every open record your key owns in the session. A receipt per record."), enums,
		func(req *mcp.CallToolRequest, in execEndArgs) (any, error) {
			mi := kernel.ManageInput{Agent: s.agent(req), Session: in.Session, Reason: in.Reason}
			if in.Run != "" {
				cleanup, closed, err := svc.EndRun(in.Run, kernel.ExecCompleted, mi, in.options(), kernel.Approval{Token: in.Approval})
				if err != nil {
					return nil, err
				}
				return map[string]any{"run": closed.ID, "commit": closed.Commit, "terminated": service.ClosedBy(cleanup).Closed}, nil
			}
			mi.State = kernel.ExecTerminated
			if in.Archive {
				mi.State = kernel.ExecArchived
			}
			res, err := svc.EndSession(mi, in.options(), kernel.Approval{Token: in.Approval})
			if err != nil {
				return nil, err
			}
			return service.ClosedBy(res), nil
		})
	tool(s, readTool("inspect_bindings", "Extension slots and bindings",
		"The extension slots, their input and output contracts, and the implementation bound to each with where the binding came from (flag, project, default); with at, the binding manifest a commit was written under."), enums,
		func(req *mcp.CallToolRequest, in inspectBindingsArgs) (any, error) {
			if in.At != "" {
				return svc.ManifestAt(in.At)
			}
			return svc.InspectBindings(in.options())
		})
}
