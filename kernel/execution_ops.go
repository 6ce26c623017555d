package kernel

import (
	"sort"
	"strings"
)

// StartInput starts an execution record: a run, a child run, a background
// task or a handoff.
type StartInput struct {
	Type     string // one of ExecutionTypes
	ID       string // optional own id
	Title    string
	Body     string // default: the title
	Category string // default: execution
	// Agent and Session say who starts it (the evidence); they are also
	// its owner unless it inherits one from its parent run or Owner
	// overrides them.
	Agent, Session string
	Note           string
	// Owner overrides the inherited owner's session key, agent and
	// sandbox field by field ("" keeps the inherited value).
	Owner   Owner
	Creator Creator
	// Parent links, as handles: the parent run (job), dispatch and work item.
	ParentJob, ParentDispatch, ParentWorkItem string
	// CleanupOnRunEnd false keeps it open when its parent run ends.
	CleanupOnRunEnd *bool
}

// Start decides an execution record's create: its owner is inherited from
// the parent run (parent-job) unless overridden, the signer is its owner
// principal, and its depth is the parent run's plus one. The commit is a
// create; CheckExecution judges it (limits included) in the gate and verify.
func Start(v View, in StartInput, env Env) (*Mutation, error) {
	if !IsExecutionType(in.Type) {
		return nil, Errorf(CodeInvalidRecord, "type %q is not an execution type: use one of %s", in.Type, strings.Join(ExecutionTypes, ", ")).WithField("type")
	}
	if strings.TrimSpace(in.Session) == "" {
		return nil, Errorf(CodeMissingEvidence, "evidence.session_id is required: the session key of the run that starts it").WithField("evidence.session_id")
	}
	principal, err := envPrincipal(env)
	if err != nil {
		return nil, err
	}
	owner := Owner{Principal: principal, SessionKey: in.Session, AgentID: in.Agent}
	exec := &Execution{State: ExecOpen, CleanupOnRunEnd: in.CleanupOnRunEnd}
	var links []Link
	for _, p := range []struct{ kind, handle string }{{LinkParentJob, in.ParentJob}, {LinkParentDispatch, in.ParentDispatch}, {LinkParentWorkItem, in.ParentWorkItem}} {
		if p.handle == "" {
			continue
		}
		target, err := mustRecord(v, p.handle)
		if err != nil {
			return nil, AboutField(err, p.kind)
		}
		links = append(links, Link{TargetID: target.ID, Kind: p.kind})
		if p.kind == LinkParentJob && IsExecutionType(target.Type) && target.Owner != nil && target.Execution != nil {
			// A child inherits its parent run's owner: the next run of
			// that owner can manage the whole tree.
			owner.SessionKey, owner.AgentID, owner.SandboxName = target.Owner.SessionKey, target.Owner.AgentID, target.Owner.SandboxName
			exec.Depth = target.Execution.Depth + 1
		}
	}
	if in.Owner.SessionKey != "" {
		owner.SessionKey = in.Owner.SessionKey
	}
	if in.Owner.AgentID != "" {
		owner.AgentID = in.Owner.AgentID
	}
	if in.Owner.SandboxName != "" {
		sb, err := mustRecord(v, in.Owner.SandboxName)
		if err != nil {
			return nil, err
		}
		owner.SandboxName = sb.ID
	}
	body := in.Body
	if strings.TrimSpace(body) == "" {
		body = in.Title
	}
	category := in.Category
	if category == "" {
		category = "execution"
	}
	var creator *Creator
	if in.Creator != (Creator{}) {
		c := in.Creator
		creator = &c
	}
	return Create(v, CreateInput{ID: in.ID, Type: in.Type, Title: in.Title, Body: body, Category: category, Links: links,
		Provenance: Provenance{Agent: in.Agent, SessionID: in.Session, Note: in.Note}, CommitNote: in.Note,
		Owner: &owner, Creator: creator, Execution: exec}, env)
}

func envPrincipal(env Env) (string, error) {
	if env.Principal == nil {
		return "", Errorf(CodeInternal, "this store cannot say who signs its commits, which an execution record's owner needs")
	}
	return env.Principal()
}

// ManageInput is the evidence of a manage op: the manager's session (which
// must be the owner's), the state to close in, and why.
type ManageInput struct {
	Agent, Session string
	State          ExecState
	Reason         string
	Note           string
}

// Manage closes one open execution record by its owner: cancel (state
// cancelled) or close (completed or failed). Whether the signer and
// session are the owner's is the gate's question (CheckExecution), so a
// refusal is audited like any denial.
func Manage(v View, op Op, handle string, in ManageInput, env Env) (*Mutation, error) {
	r, err := mustRecord(v, handle)
	if err != nil {
		return nil, err
	}
	return closeRecords(op, []*Record{r}, in, env)
}

// closeRecords is every manage op's mutation: each record closed in
// in.State with a receipt (a log entry and an Evidence-Creator trailer
// carrying its creator lineage), in one commit.
func closeRecords(op Op, rs []*Record, in ManageInput, env Env) (*Mutation, error) {
	if err := requireAgent(Evidence{Agent: in.Agent}); err != nil {
		return nil, err
	}
	if op != OpForceClose && strings.TrimSpace(in.Session) == "" {
		return nil, Errorf(CodeMissingEvidence, "evidence.session_id is required: the owner's session key").WithField("evidence.session_id")
	}
	if in.State == "" && len(closingStates[op]) == 1 {
		in.State = closingStates[op][0]
	}
	if !contains(stateNames(closingStates[op]), string(in.State)) {
		return nil, Errorf(CodeUsage, "%s closes records as %s, not %q", op, joinStates(closingStates[op]), in.State).WithField("state")
	}
	if spec := opSpecs[op]; contains(spec.RequiredTrailers, TrailerReason) {
		if err := requireText("evidence.reason", in.Reason, "why the records are closed"); err != nil {
			return nil, err
		}
	}
	now := At(env.Now)
	var writes []*Record
	var receipts []Trailer
	for _, cur := range rs {
		if !IsExecutionType(cur.Type) {
			return nil, Errorf(CodeInvalidRecord, "%s is a %s, not an execution record (%s)", cur.ID, cur.Type, strings.Join(ExecutionTypes, ", "))
		}
		if !cur.IsOpen() {
			return nil, Errorf(CodeInvalidRecord, "execution record %s is already %s", cur.ID, cur.Execution.State)
		}
		r := cur.Clone()
		r.Execution.State, r.UpdatedAt = in.State, now
		evidence := map[string]any{"state": string(in.State), "creator": cur.Creator.String(), "owner_session": cur.Owner.SessionKey}
		if in.Reason != "" {
			evidence["reason"] = in.Reason
		}
		r.MutationLog = append(r.MutationLog, MutationEntry{Op: string(op), At: now, Agent: in.Agent, Note: in.Note, Evidence: evidence})
		writes = append(writes, r)
		receipts = append(receipts, Trailer{TrailerCreator, r.ID + " " + cur.Creator.String()})
	}
	if len(writes) == 0 {
		return nil, nil
	}
	m := &Mutation{Op: op, Type: writes[0].Type, Title: writes[0].Title, Message: in.Note, Writes: writes}
	if len(writes) > 1 {
		m.Type, m.Title = "execution", strings.Join(SortedIDs(writes), ", ")
	}
	m.Trailers = append(baseTrailers(op, in.Agent, in.Session, ids(writes)...), Trailer{TrailerExecState, string(in.State)})
	if in.Reason != "" {
		m.Trailers = append(m.Trailers, Trailer{TrailerReason, in.Reason})
	}
	m.Trailers = append(m.Trailers, receipts...)
	m.Trailers = appendNote(m.Trailers, in.Note)
	return validated(m)
}

// executionRecords lists the execution records at v's tip.
func executionRecords(v View) ([]*Record, error) {
	l, ok := v.(ExecutionLister)
	if !ok {
		return nil, Errorf(CodeInternal, "this store cannot list execution records")
	}
	return l.ExecutionRecords()
}

// OpenOwnedBy returns the open execution records principal owns in
// session, oldest first: what `continue` carries over and what a session's
// cleanup closes.
func OpenOwnedBy(v View, principal, session string) ([]*Record, error) {
	all, err := executionRecords(v)
	if err != nil {
		return nil, err
	}
	var out []*Record
	for _, r := range all {
		if r.IsOpen() && r.Owner.ManagedBy(principal, session) {
			out = append(out, r)
		}
	}
	sortByCreation(out)
	return out, nil
}

func sortByCreation(rs []*Record) {
	sort.Slice(rs, func(i, j int) bool {
		if !rs[i].CreatedAt.Equal(rs[j].CreatedAt.Time) {
			return rs[i].CreatedAt.Before(rs[j].CreatedAt.Time)
		}
		return rs[i].ID < rs[j].ID
	})
}

// EndRun is the cleanup policy of a run's end, by the run's owner: every
// open record under the run (its parent-job descendants) that the owner
// manages in this session and that cleans up on run end is terminated,
// with a receipt each; those started with cleanup_on_run_end false stay
// open for the owner's next run, and so do records the owner does not
// manage here (another session's, or another principal's from before a
// child needed the run's owner). The run itself is closed by its own close
// op.
func EndRun(v View, runHandle string, in ManageInput, env Env) (*Mutation, error) {
	run, err := mustRecord(v, runHandle)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Session) == "" {
		return nil, Errorf(CodeMissingEvidence, "evidence.session_id is required: the run owner's session key").WithField("evidence.session_id")
	}
	principal, err := envPrincipal(env)
	if err != nil {
		return nil, err
	}
	// Refused before anything is written: the run's own close would be.
	if IsExecutionType(run.Type) && !run.Owner.ManagedBy(principal, in.Session) {
		return nil, Errorf(CodeNotOwner, "%s is owned by %s, not by %s: end a run as its owner, with the owner's key and --session",
			run.ID, describeOwner(run.Owner), describeOwner(&Owner{Principal: principal, SessionKey: in.Session})).WithField("evidence.session_id")
	}
	all, err := executionRecords(v)
	if err != nil {
		return nil, err
	}
	children := map[string][]*Record{}
	for _, r := range all {
		if p := r.ParentID(LinkParentJob); p != "" {
			children[p] = append(children[p], r)
		}
	}
	var close []*Record
	var walk func(id string)
	seen := map[string]bool{}
	walk = func(id string) {
		for _, c := range children[id] {
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			if c.IsOpen() && c.Execution.CleansUpOnRunEnd() && c.Owner.ManagedBy(principal, in.Session) {
				close = append(close, c)
			}
			walk(c.ID)
		}
	}
	walk(run.ID)
	sortByCreation(close)
	in.State = ExecTerminated
	if in.Reason == "" {
		in.Reason = "run " + run.ID + " ended"
	}
	return closeRecords(OpCleanup, close, in, env)
}

// EndSession is the cleanup policy of a session's close: every open record
// the signer owns in the session is terminated or archived (in.State),
// with a receipt each, in one commit.
func EndSession(v View, in ManageInput, env Env) (*Mutation, error) {
	if strings.TrimSpace(in.Session) == "" {
		return nil, Errorf(CodeMissingEvidence, "evidence.session_id is required: the session that closes").WithField("evidence.session_id")
	}
	principal, err := envPrincipal(env)
	if err != nil {
		return nil, err
	}
	open, err := OpenOwnedBy(v, principal, in.Session)
	if err != nil {
		return nil, err
	}
	if in.Reason == "" {
		in.Reason = "session " + in.Session + " closed"
	}
	return closeRecords(OpCleanup, open, in, env)
}

// RetireSandbox retires a sandbox record. While it owns open execution
// records it is refused with OPEN_RECORDS, unless force: then one
// force-close commit closes each with a receipt and retires the sandbox.
func RetireSandbox(v View, handle string, force bool, in ManageInput, env Env) (*Mutation, error) {
	sb, err := mustRecord(v, handle)
	if err != nil {
		return nil, err
	}
	if sb.Type != TypeSandbox {
		return nil, Errorf(CodeInvalidRecord, "%s is a %s, not an %s", sb.ID, sb.Type, TypeSandbox)
	}
	all, err := executionRecords(v)
	if err != nil {
		return nil, err
	}
	var open []*Record
	for _, r := range all {
		if r.IsOpen() && r.Owner != nil && r.Owner.SandboxName == sb.ID {
			open = append(open, r)
		}
	}
	sortByCreation(open)
	if len(open) == 0 {
		return Retire(v, sb.ID, StatusRetired, Evidence{Agent: in.Agent, SessionID: in.Session, Rationale: in.Reason, Note: in.Note}, env)
	}
	if !force {
		return nil, Errorf(CodeOpenRecords, "sandbox %s still owns %d open execution records (%s): close them, or rerun with --force to force-close each with a receipt",
			sb.ID, len(open), strings.Join(SortedIDs(open), ", ")).WithExtra("open", SortedIDs(open))
	}
	m, err := closeRecords(OpForceClose, open, in, env)
	if err != nil {
		return nil, err
	}
	now := At(env.Now)
	s := sb.Clone()
	if s.EffectiveStatus() != StatusActive {
		return nil, Errorf(CodeInvalidRecord, "sandbox %s is already %s", sb.ID, s.EffectiveStatus())
	}
	s.Status, s.UpdatedAt = StatusRetired, now
	s.MutationLog = append(s.MutationLog, MutationEntry{Op: string(OpForceClose), At: now, Agent: in.Agent, Note: in.Note,
		Evidence: map[string]any{"targetStatus": string(StatusRetired), "reason": in.Reason, "force_closed": SortedIDs(open)}})
	m.Writes = append([]*Record{s}, m.Writes...)
	m.Type, m.Title = sb.Type, sb.Title
	m.Trailers = append(baseTrailers(OpForceClose, in.Agent, in.Session, ids(m.Writes)...), m.Trailers[len(baseTrailers(OpForceClose, in.Agent, in.Session, ids(open)...)):]...)
	return validated(m)
}
