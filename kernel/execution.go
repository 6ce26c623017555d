package kernel

import (
	"fmt"
	"sort"
	"strings"
)

// Execution ownership and continuation (the Nitejar extensibility seed,
// §5): long-lived execution records (a run, a background task, a subagent
// child run, a collaboration handoff) carry an owner identity (who may
// manage them across runs), a creator identity (who started them, kept in
// every receipt) and explicit parent links. Manage ops are allowed by
// owner, not by creator; cleanup policies close open records with a
// receipt each; a sandbox cannot be retired while it owns open records.

// The execution record types. A sandbox is the entity an owner's sandbox
// name points at; it owns records but has no owner itself.
const (
	TypeRun            = "execution.run"
	TypeChildRun       = "execution.child_run"
	TypeBackgroundTask = "execution.background_task"
	TypeHandoff        = "execution.handoff"
	TypeSandbox        = "execution.sandbox"
)

// ExecutionTypes are the types whose records carry owner, creator and
// execution state.
var ExecutionTypes = []string{TypeRun, TypeChildRun, TypeBackgroundTask, TypeHandoff}

// IsExecutionType reports whether records of typ are execution records.
func IsExecutionType(typ string) bool { return contains(ExecutionTypes, typ) }

// Parent link kinds: nesting is explicit, never read from source names.
const (
	LinkParentWorkItem = "parent-work-item"
	LinkParentJob      = "parent-job"
	LinkParentDispatch = "parent-dispatch"
)

// ParentLinkKinds are the parent links an execution record may carry, at
// most one of each.
var ParentLinkKinds = []string{LinkParentWorkItem, LinkParentJob, LinkParentDispatch}

// Owner is an execution record's owner identity: who may list, await,
// cancel and close it, in this run and the next. Principal is the signer
// who created it (verify holds it to the create commit's signature), so a
// session key alone, which anyone can write into a trailer, manages nothing.
type Owner struct {
	Principal   string `json:"principal" yaml:"principal"`
	SessionKey  string `json:"session_key" yaml:"session_key"`
	AgentID     string `json:"agent_id" yaml:"agent_id"`
	SandboxName string `json:"sandbox_name,omitempty" yaml:"sandbox_name,omitempty"`
}

// ManagedBy reports whether a signer principal in session may manage what
// o owns: both must be the owner's. A session key is a name anyone can
// pass, so it never decides alone.
func (o *Owner) ManagedBy(principal, session string) bool {
	return o != nil && o.Principal == principal && o.SessionKey == session
}

// Creator is who started an execution record, kept for receipts.
type Creator struct {
	JobID      string `json:"job_id,omitempty" yaml:"job_id,omitempty"`
	DispatchID string `json:"dispatch_id,omitempty" yaml:"dispatch_id,omitempty"`
	WorkItemID string `json:"work_item_id,omitempty" yaml:"work_item_id,omitempty"`
}

// String is the creator lineage as a receipt trailer carries it.
func (c *Creator) String() string {
	if c == nil {
		return "job= dispatch= work_item="
	}
	return "job=" + c.JobID + " dispatch=" + c.DispatchID + " work_item=" + c.WorkItemID
}

// ExecState is an execution record's state: open, or one of the closed
// states, which are final.
type ExecState string

const (
	ExecOpen        ExecState = "open"
	ExecCompleted   ExecState = "completed"
	ExecFailed      ExecState = "failed"
	ExecCancelled   ExecState = "cancelled"
	ExecTerminated  ExecState = "terminated"
	ExecArchived    ExecState = "archived"
	ExecForceClosed ExecState = "force_closed"
)

// ExecStates lists every state, open first.
var ExecStates = []ExecState{ExecOpen, ExecCompleted, ExecFailed, ExecCancelled, ExecTerminated, ExecArchived, ExecForceClosed}

// Execution is the state of an execution record.
type Execution struct {
	State ExecState `json:"state" yaml:"state"`
	// Depth is the number of parent runs above it (a run with no
	// parent-job link to a run is 0); the policy caps it.
	Depth int `json:"depth" yaml:"depth"`
	// CleanupOnRunEnd: when its parent run ends, an open record is
	// terminated (the default, nil) or, false, survives for later runs
	// of the same owner.
	CleanupOnRunEnd *bool `json:"cleanup_on_run_end,omitempty" yaml:"cleanup_on_run_end,omitempty"`
}

// CleansUpOnRunEnd is CleanupOnRunEnd with its default.
func (e *Execution) CleansUpOnRunEnd() bool {
	return e == nil || e.CleanupOnRunEnd == nil || *e.CleanupOnRunEnd
}

// IsOpen reports whether r is an execution record still open.
func (r *Record) IsOpen() bool {
	return IsExecutionType(r.Type) && r.Execution != nil && r.Execution.State == ExecOpen
}

// ParentID returns the target of r's parent link of kind, or "".
func (r *Record) ParentID(kind string) string {
	for _, l := range r.Links {
		if l.Kind == kind {
			return l.TargetID
		}
	}
	return ""
}

// The manage ops and the states each may close a record in.
const (
	OpCancel  Op = "cancel"  // the owner cancels an open record
	OpClose   Op = "close"   // the owner closes it: completed or failed
	OpCleanup Op = "cleanup" // a cleanup policy: run end or session close terminates or archives
	// OpForceClose retires a sandbox that still owns open records,
	// closing each with a receipt: allowed by policy, not by owner.
	OpForceClose Op = "force-close"
)

// ManageOps are the ops that change an execution record's state.
var ManageOps = []Op{OpCancel, OpClose, OpCleanup, OpForceClose}

var closingStates = map[Op][]ExecState{
	OpCancel:     {ExecCancelled},
	OpClose:      {ExecCompleted, ExecFailed},
	OpCleanup:    {ExecTerminated, ExecArchived},
	OpForceClose: {ExecForceClosed},
}

// ClosingStates are the states op may close an execution record in.
func ClosingStates(op Op) []ExecState { return closingStates[op] }

// ExecutionLimits are the policy's limits on nesting (policy.yaml,
// execution:); zero means no limit.
type ExecutionLimits struct {
	MaxDepth    int `yaml:"max_depth,omitempty" json:"max_depth,omitempty"`
	MaxChildren int `yaml:"max_children,omitempty" json:"max_children,omitempty"`
}

// ExecutionLister is what the execution rules read beyond a View: the
// execution and sandbox records at the view's tip. A View without it is
// judged without the rules that need it (open children, sandbox owners).
type ExecutionLister interface {
	ExecutionRecords() ([]*Record, error)
}

// Rules of the execution records.
const (
	RuleOwnership = "ownership"       // only the owner manages; the owner is the signer who created it
	RuleExecution = "execution"       // states, depth and parent links are consistent
	RuleExecLimit = "execution-limit" // depth and open children within the policy
	RuleSandbox   = "sandbox"         // a sandbox is retired only when it owns no open records
)

// execRuleCodes: the error a refused write gets for each rule.
var execRuleCodes = map[string]Code{
	RuleOwnership: CodeNotOwner,
	RuleExecution: CodeInvalidRecord,
	RuleExecLimit: CodePermissionDenied,
	RuleSandbox:   CodeOpenRecords,
}

// ExecutionError turns the first violation into the coded error a write
// is refused with (nil for none); the rest are in "violations".
func ExecutionError(vs []Violation) error {
	if len(vs) == 0 {
		return nil
	}
	code, ok := execRuleCodes[vs[0].Rule]
	if !ok {
		code = CodeInvalidRecord
	}
	return Errorf(code, "%s: %s", vs[0].Message, vs[0].Fix).WithExtra("rule", vs[0].Rule).WithExtra("violations", vs)
}

// CheckExecution is the rule of execution records, for a commit of op by
// principal (its signer) whose Record-Session is session: what the write
// path's gate refuses and verify rejects. before is the parent (nil for a
// root). It checks that:
//   - a new execution record is open, owned by the signer, with an owner
//     session and agent, at most one parent link of each kind, the depth
//     its parent run gives it, under a parent run only when the signer and
//     session manage that run, within the policy's depth and open-children
//     limits (counting the children the signer owns), and in an active
//     sandbox when it names one;
//   - a record's state changes only from open to a closing state of a
//     manage op, by its owner (principal and session) for cancel, close and
//     cleanup, and for force-close only in the commit that retires its
//     sandbox, with a receipt trailer carrying its creator lineage;
//   - a sandbox leaves active only when every open record it owns is closed
//     in the same commit.
func CheckExecution(op Op, trailers []Trailer, changes []RecordChange, before View, principal string, limits ExecutionLimits) []Violation {
	var vs violations
	session := TrailerValue(trailers, TrailerSession)
	receipts := map[string]string{}
	for _, v := range TrailerValues(trailers, TrailerCreator) {
		id, lineage, _ := strings.Cut(v, " ")
		receipts[id] = lineage
	}
	changed := map[string]*Record{}
	retiredSandboxes := map[string]bool{}
	for _, c := range changes {
		if c.New != nil {
			changed[c.ID] = c.New
		}
		if c.New != nil && c.Old != nil && c.New.Type == TypeSandbox && c.Old.EffectiveStatus() == StatusActive && c.New.EffectiveStatus() != StatusActive {
			retiredSandboxes[c.ID] = true
		}
	}
	manage := contains(opNames(ManageOps), string(op))
	for _, c := range changes {
		r := c.New
		if r == nil || op == OpMerge {
			continue
		}
		if !IsExecutionType(r.Type) {
			if manage && r.Type != TypeSandbox {
				vs.add(RuleExecution, r.ID, "manage ops change execution records only", "%s commit changes %s record %s", op, r.Type, r.ID)
			}
			continue
		}
		if c.Added() {
			vs.checkNewExecution(r, before, principal, session, limits, changed)
			continue
		}
		if c.Old == nil || c.Old.Execution == nil || r.Execution == nil {
			continue // a broken old version was judged when it landed
		}
		from, to := c.Old.Execution.State, r.Execution.State
		if from == to {
			if manage {
				vs.add(RuleExecution, r.ID, "a manage op closes an open record", "%s commit leaves %s %s", op, r.ID, from)
			}
			continue
		}
		if from != ExecOpen {
			vs.add(RuleExecution, r.ID, "a closed execution record stays closed: start a new one", "%s moved from %s to %s", r.ID, from, to)
			continue
		}
		if !contains(stateNames(closingStates[op]), string(to)) {
			vs.add(RuleExecution, r.ID, fmt.Sprintf("%s closes a record as %s only", op, joinStates(closingStates[op])), "%s commit moves %s to %s", op, r.ID, to)
			continue
		}
		owner := c.Old.Owner
		switch {
		case op == OpForceClose:
			if owner == nil || owner.SandboxName == "" || !retiredSandboxes[owner.SandboxName] {
				vs.add(RuleOwnership, r.ID, "force-close only closes the open records of a sandbox the same commit retires (git records exec retire-sandbox --force)", "force-close of %s retires no sandbox it is owned by", r.ID)
			}
		case !owner.ManagedBy(principal, session):
			vs.add(RuleOwnership, r.ID, "manage an execution record as its owner: sign with the owner's key and pass the owner's --session", "%s is owned by %s, not by %s", r.ID, describeOwner(owner), describeOwner(&Owner{Principal: principal, SessionKey: session}))
		}
		if lineage, ok := receipts[r.ID]; !ok || lineage != c.Old.Creator.String() {
			vs.add(RuleExecution, r.ID, "a receipt keeps the creator lineage: Evidence-Creator: <id> "+c.Old.Creator.String(), "%s commit's receipt for %s does not carry its creator lineage", op, r.ID)
		}
	}
	for id := range retiredSandboxes {
		vs.checkSandboxClosed(id, before, changed)
	}
	return vs
}

func (vs *violations) checkNewExecution(r *Record, before View, principal, session string, limits ExecutionLimits, changed map[string]*Record) {
	o, e := r.Owner, r.Execution
	switch {
	case o == nil || strings.TrimSpace(o.SessionKey) == "" || strings.TrimSpace(o.AgentID) == "":
		vs.add(RuleExecution, r.ID, "give the owner's --session and --agent", "execution record %s has no owner session and agent", r.ID)
		return
	case o.Principal != principal:
		vs.add(RuleOwnership, r.ID, "an execution record is owned by the signer who creates it", "execution record %s names owner principal %q and is signed by %q", r.ID, o.Principal, principal)
	}
	if e == nil || e.State != ExecOpen {
		vs.add(RuleExecution, r.ID, "an execution record starts open", "execution record %s does not start open", r.ID)
		return
	}
	for _, kind := range ParentLinkKinds {
		n := 0
		for _, l := range r.Links {
			if l.Kind == kind {
				n++
			}
		}
		if n > 1 {
			vs.add(RuleExecution, r.ID, "give each parent link once", "execution record %s has %d %s links", r.ID, n, kind)
		}
	}
	if before == nil {
		return
	}
	depth := 0
	parentID := r.ParentID(LinkParentJob)
	var parent *Record
	if parentID != "" {
		parent, _ = recordIn(before, changed, parentID)
		if parent != nil && IsExecutionType(parent.Type) && parent.Execution != nil {
			depth = parent.Execution.Depth + 1
		}
	}
	if e.Depth != depth {
		vs.add(RuleExecution, r.ID, "depth is the parent run's depth plus one (0 without one)", "execution record %s says depth %d, its parent run gives %d", r.ID, e.Depth, depth)
	}
	if limits.MaxDepth > 0 && depth > limits.MaxDepth {
		vs.add(RuleExecLimit, r.ID, fmt.Sprintf("the policy allows %d levels of nesting (policy.yaml execution.max_depth): run it from a shallower parent", limits.MaxDepth), "execution record %s would nest %d deep", r.ID, depth)
	}
	if parent != nil && IsExecutionType(parent.Type) && parent.Execution != nil && parent.Execution.State != ExecOpen {
		vs.add(RuleExecution, r.ID, "start child work under an open run", "parent run %s of %s is %s", parent.ID, r.ID, parent.Execution.State)
	}
	// Child work fills the run's limits and is closed by its end: starting
	// it is managing the run.
	if parent != nil && IsExecutionType(parent.Type) && !parent.Owner.ManagedBy(principal, session) {
		vs.add(RuleOwnership, r.ID, "start child work under a run as its owner: sign with the owner's key and pass the owner's --session, or start a run of your own",
			"run %s is owned by %s, not by %s: %s may not start under it", parent.ID, describeOwner(parent.Owner), describeOwner(&Owner{Principal: principal, SessionKey: session}), r.ID)
	}
	lister, ok := before.(ExecutionLister)
	if o.SandboxName != "" {
		sb, err := before.Record(o.SandboxName)
		if err != nil || sb == nil || sb.Type != TypeSandbox || sb.EffectiveStatus() != StatusActive {
			vs.add(RuleExecution, r.ID, "name an active execution.sandbox record as the owner's --sandbox", "execution record %s is owned by sandbox %q, which is no active sandbox", r.ID, o.SandboxName)
		}
	}
	if limits.MaxChildren > 0 && parentID != "" && ok {
		all, err := lister.ExecutionRecords()
		if err != nil {
			vs.add(RuleExecLimit, r.ID, "retry", "cannot count the children of %s: %v", parentID, err)
			return
		}
		// Only the children the signer (the run's owner, above) owns
		// count: another principal's records under the run, written before
		// starting one needed the run's owner, cannot fill its quota.
		counts := func(x *Record) bool {
			return x.IsOpen() && x.ParentID(LinkParentJob) == parentID && x.Owner != nil && x.Owner.Principal == principal
		}
		open := 0
		for _, x := range all {
			if counts(x) {
				open++
			}
		}
		for _, x := range changed {
			if x != r && counts(x) {
				if old, _ := before.Record(x.ID); old == nil {
					open++
				}
			}
		}
		if open >= limits.MaxChildren {
			vs.add(RuleExecLimit, r.ID, fmt.Sprintf("the policy allows %d open children per run (policy.yaml execution.max_children): close one first", limits.MaxChildren), "run %s already has %d open children", parentID, open)
		}
	}
}

// checkSandboxClosed holds a commit that retires sandbox id to close, in
// the same commit, every open record the sandbox owns.
func (vs *violations) checkSandboxClosed(id string, before View, changed map[string]*Record) {
	lister, ok := before.(ExecutionLister)
	if !ok {
		return
	}
	all, err := lister.ExecutionRecords()
	if err != nil {
		vs.add(RuleSandbox, id, "retry", "cannot list the records sandbox %s owns: %v", id, err)
		return
	}
	var open []string
	for _, r := range all {
		if !r.IsOpen() || r.Owner == nil || r.Owner.SandboxName != id {
			continue
		}
		if now := changed[r.ID]; now != nil && !now.IsOpen() {
			continue
		}
		open = append(open, r.ID)
	}
	if len(open) > 0 {
		sort.Strings(open)
		vs.add(RuleSandbox, id, "close them first, or force-close them with a receipt each: git records exec retire-sandbox "+id+" --force --reason …",
			"sandbox %s still owns %d open records (%s)", id, len(open), strings.Join(open, ", "))
	}
}

// recordIn reads id from this commit's writes, else from before.
func recordIn(before View, changed map[string]*Record, id string) (*Record, error) {
	if r := changed[id]; r != nil {
		return r, nil
	}
	return before.Record(id)
}

func describeOwner(o *Owner) string {
	if o == nil {
		return "no one"
	}
	return fmt.Sprintf("%s (session %q)", o.Principal, o.SessionKey)
}

func opNames(ops []Op) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = string(o)
	}
	return out
}

func stateNames(states []ExecState) []string {
	out := make([]string, len(states))
	for i, s := range states {
		out[i] = string(s)
	}
	return out
}

func joinStates(states []ExecState) string { return strings.Join(stateNames(states), " or ") }

// CheckAwait: awaiting (and listing) an execution record is the owner's
// too: principal is who the reader's signing key is under the branch's
// trust, session the session it names.
func CheckAwait(r *Record, principal, session string) error {
	if !IsExecutionType(r.Type) || r.Execution == nil {
		return Errorf(CodeInvalidRecord, "%s is a %s, not an execution record (%s)", r.ID, r.Type, strings.Join(ExecutionTypes, ", "))
	}
	if !r.Owner.ManagedBy(principal, session) {
		return Errorf(CodeNotOwner, "%s is owned by %s, not by %s: await it as its owner, with the owner's key and session (--session)",
			r.ID, describeOwner(r.Owner), describeOwner(&Owner{Principal: principal, SessionKey: session})).WithField("evidence.session_id")
	}
	return nil
}
