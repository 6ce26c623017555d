package kernel

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Compaction (Agent Kit contract, Retention: "compact noise into rollups
// after active workflow use; preserve decision-bearing evidence").
const (
	OpCompact Op = "compact"
	// RollupType is the type of the record a compaction writes.
	RollupType = "retention.rollup"
	// LinkRollsUp links a rollup to each record it rolled up.
	LinkRollsUp = "rolls-up"
	// RuleDecisionBearing: no compaction retires a decision-bearing record.
	RuleDecisionBearing = "decision-bearing"
	// RuleNoise is the rule that lets a record be rolled up: none of the
	// decision-bearing rules holds.
	RuleNoise = "noise"
	// MaxCompaction bounds the records one compaction rolls up, so its
	// commit stays small; run it again for more.
	MaxCompaction = 500
)

// Compaction evidence trailers: one per record considered, "<id> <rule>".
const (
	TrailerBefore    = "Evidence-Before"
	TrailerCompacted = "Evidence-Compacted" // "<id> noise": rolled up and retired
	TrailerRetained  = "Evidence-Retained"  // "<id> <rule>": kept, and the rule that kept it
)

// Citation is one inbound link to a record: who links to it, of what type
// and role, with which kind.
type Citation struct {
	From     string
	FromType string
	FromRole Role
	Kind     string
}

// CompactionView is what a store's view offers a compaction: the records
// it may roll up and who cites each. gitstore's View answers both from the
// index.
type CompactionView interface {
	View
	// CompactionCandidates lists the active records of kind event or
	// snapshot created before t (the noise kinds: observations and logs).
	CompactionCandidates(before time.Time) ([]*Record, error)
	// CitedBy lists the links to id from other records.
	CitedBy(id string) ([]Citation, error)
}

// Decision-bearing rules, in the order they are tried. Each names one
// clause of the contract's definition and how it is recognised from the
// record's type, status, tags and links.
const (
	// decision: role decision or type decision (justifies a decision);
	// an observation holding the snapshot type's role decision from before
	// observations had their own axes is a fact.
	BearsDecision = "decision"
	// workflow-state: a link or relation of workflow meaning (supersedes,
	// proposes, implements, resolves, blocks, depends_on), or an apply,
	// reject or supersede entry in its log (used to change workflow state).
	BearsWorkflowState = "workflow-state"
	// marks-state: status implemented, or a tag fixed, blocked, ready,
	// done or resolved (marks something fixed/blocked/ready).
	BearsMarksState = "marks-state"
	// external-mutation: tag external-mutation, a type whose last segment
	// is action or mutation, or a log entry of an op whose risk is
	// external_mutation or higher (it mutated state others act on).
	BearsExternalMutation = "external-mutation"
	// contradicts: a contradicts link or relation, either way.
	BearsContradiction = "contradicts"
	// cited: linked from a report (type report or *.report) or from a
	// decision (role or type decision): cited in a report or justifying one.
	BearsCitation = "cited"
)

var (
	workflowKinds = map[string]bool{LinkSupersedes: true, LinkProposes: true, "implements": true, "resolves": true, "blocks": true, "depends_on": true}
	stateTags     = map[string]bool{"fixed": true, "blocked": true, "ready": true, "done": true, "resolved": true}
)

// DecisionBearing says whether r is decision-bearing and by which rule
// ("" and false: it is noise a compaction may roll up), given the links
// to it. The compaction op, the write path and verify all ask it.
func DecisionBearing(r *Record, cited []Citation) (rule, reason string, bearing bool) {
	// An observation with the snapshot type's axes (stores written before
	// Observe set its own) is judged as the fact it is, by the rules below.
	if (r.Role == RoleDecision && !observedWithTypeDefaults(r)) || r.Type == "decision" {
		return BearsDecision, "role " + string(r.Role) + ", type " + r.Type, true
	}
	links := append([]Link(nil), r.Links...)
	if r.Kind == KindRelation && r.Relation != "" {
		links = append(links, Link{TargetID: r.To, Kind: r.Relation})
	}
	for _, l := range links {
		if workflowKinds[l.Kind] {
			return BearsWorkflowState, "it has a " + l.Kind + " link to " + l.TargetID, true
		}
	}
	for _, e := range r.MutationLog {
		switch Op(e.Op) {
		case OpApply, OpReject, OpSupersede:
			return BearsWorkflowState, "its log holds a " + e.Op + " entry", true
		}
	}
	if r.Status == StatusImplemented {
		return BearsMarksState, "status implemented", true
	}
	for _, t := range r.Tags {
		if stateTags[t] {
			return BearsMarksState, "tag " + t, true
		}
	}
	last := r.Type[strings.LastIndex(r.Type, ".")+1:]
	if last == "action" || last == "mutation" || contains(r.Tags, "external-mutation") {
		return BearsExternalMutation, "type " + r.Type, true
	}
	for _, e := range r.MutationLog {
		if spec, ok := opSpecs[Op(e.Op)]; ok && spec.Risk.AtLeast(RiskExternalMutation) {
			return BearsExternalMutation, "its log holds a " + e.Op + " entry (" + string(spec.Risk) + ")", true
		}
	}
	for _, l := range links {
		if l.Kind == "contradicts" {
			return BearsContradiction, "it contradicts " + l.TargetID, true
		}
	}
	for _, c := range cited {
		if c.Kind == "contradicts" {
			return BearsContradiction, c.From + " contradicts it", true
		}
	}
	for _, c := range cited {
		if c.FromType == "report" || strings.HasSuffix(c.FromType, ".report") {
			return BearsCitation, "cited in report " + c.From, true
		}
		if c.FromRole == RoleDecision || c.FromType == "decision" {
			return BearsCitation, "cited by decision " + c.From, true
		}
	}
	return "", "", false
}

// CompactInput is what a compaction is asked: roll up the noise created
// before Before (only the records in Records, when given).
type CompactInput struct {
	Before    time.Time
	Records   []string // handles; empty: every candidate
	Category  string   // the rollup's category; default "retention"
	Agent     string
	Rationale string
	Note      string
	Session   string
}

// CompactVerdict is the rule that decided one record.
type CompactVerdict struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Rule   string `json:"rule"`
	Reason string `json:"reason,omitempty"`
}

// CompactPlan is what a compaction decided: the rollup, the records it
// rolls up and retires, and those it keeps with the rule that kept each.
type CompactPlan struct {
	Rollup    string           `json:"rollup,omitempty"`
	Compacted []CompactVerdict `json:"compacted"`
	Retained  []CompactVerdict `json:"retained"`
}

// Compact decides a compaction: each candidate is judged by
// DecisionBearing; the noise is listed in a new rollup record (type
// retention.rollup, a rolls-up link to each) and retired, in one commit
// whose evidence names the rule that decided every record considered. A
// record named in in.Records that is decision-bearing refuses the whole
// compaction (PERMISSION_DENIED, rule decision-bearing); one that is no
// candidate (not event or snapshot, not active, too new) is refused too.
// Nothing to roll up is no mutation (nil).
func Compact(v View, in CompactInput, env Env) (*Mutation, *CompactPlan, error) {
	if in.Agent == "" {
		return nil, nil, Errorf(CodeMissingEvidence, "--agent (or GIT_RECORDS_AGENT) is required").WithExtra("flag", "--agent")
	}
	if in.Before.IsZero() {
		return nil, nil, Errorf(CodeMissingEvidence, "--before is required: compaction rolls up records created before a date").WithExtra("flag", "--before")
	}
	cv, ok := v.(CompactionView)
	if !ok {
		return nil, nil, Errorf(CodeInternal, "this store cannot list compaction candidates")
	}
	candidates, err := cv.CompactionCandidates(in.Before)
	if err != nil {
		return nil, nil, err
	}
	if len(in.Records) > 0 {
		byID := map[string]*Record{}
		for _, r := range candidates {
			byID[r.ID] = r
		}
		var named []*Record
		for _, h := range in.Records {
			id, err := mustResolve(v, h, "record")
			if err != nil {
				return nil, nil, AboutField(err, "records")
			}
			r := byID[id]
			if r == nil {
				return nil, nil, Errorf(CodeInvalidRecord, "record %s is no compaction candidate: only active event and snapshot records created before %s are rolled up", id, At(in.Before)).WithExtra("flag", "--record")
			}
			named = append(named, r)
		}
		candidates = named
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].ID < candidates[j].ID })
	plan := &CompactPlan{Compacted: []CompactVerdict{}, Retained: []CompactVerdict{}}
	var noise []*Record
	for _, r := range candidates {
		cited, err := cv.CitedBy(r.ID)
		if err != nil {
			return nil, nil, err
		}
		rule, reason, bearing := DecisionBearing(r, cited)
		if !bearing {
			if len(noise) < MaxCompaction {
				noise = append(noise, r)
				plan.Compacted = append(plan.Compacted, CompactVerdict{ID: r.ID, Title: r.Title, Rule: RuleNoise})
			}
			continue
		}
		if len(in.Records) > 0 {
			return nil, plan, Errorf(CodePermissionDenied, "record %s is decision-bearing (rule %s: %s) and no compaction retires it: leave it out of --record", r.ID, rule, reason).
				WithExtra("rule", RuleDecisionBearing+": "+rule).WithExtra("record", r.ID)
		}
		plan.Retained = append(plan.Retained, CompactVerdict{ID: r.ID, Title: r.Title, Rule: rule, Reason: reason})
	}
	if len(noise) == 0 {
		return nil, plan, nil
	}
	category := in.Category
	if category == "" {
		category = "retention"
	}
	var body strings.Builder
	fmt.Fprintf(&body, "Rolled up %d records created before %s.\n\n| id | type | title | created |\n|---|---|---|---|\n", len(noise), At(in.Before))
	links := make([]Link, len(noise))
	for i, r := range noise {
		fmt.Fprintf(&body, "| %s | %s | %s | %s |\n", r.ID, r.Type, strings.ReplaceAll(strings.Join(strings.Fields(r.Title), " "), "|", `\|`), r.CreatedAt)
		links[i] = Link{TargetID: r.ID, Kind: LinkRollsUp}
	}
	rationale := in.Rationale
	if rationale == "" {
		rationale = "compaction of noise created before " + At(in.Before).String()
	}
	m, err := Create(v, CreateInput{Type: RollupType, Title: fmt.Sprintf("Rollup of %d records before %s", len(noise), At(in.Before).Time.Format(time.DateOnly)),
		Body: body.String(), Category: category, Links: links, Kind: KindEvent, Role: RoleFact, Authority: AuthorityComputed,
		Provenance: Provenance{Agent: in.Agent, SessionID: in.Session, Note: in.Note}}, env)
	if err != nil {
		return nil, nil, err
	}
	rollup := m.Writes[0]
	plan.Rollup = rollup.ID
	now := At(env.Now)
	writes := []*Record{rollup}
	for _, old := range noise {
		r := old.Clone()
		r.Status, r.UpdatedAt = StatusRetired, now
		r.MutationLog = append(r.MutationLog, MutationEntry{Op: string(OpCompact), At: now, Agent: in.Agent, Note: in.Note,
			Evidence: map[string]any{"rollup": rollup.ID, "rule": RuleNoise, "rationale": rationale}})
		writes = append(writes, r)
	}
	m = &Mutation{Op: OpCompact, Type: RollupType, Title: rollup.Title, Message: in.Note, Writes: writes}
	m.Trailers = append(baseTrailers(OpCompact, in.Agent, in.Session, SortedIDs(writes)...),
		Trailer{TrailerBefore, At(in.Before).String()}, Trailer{TrailerRationale, rationale})
	for _, c := range plan.Compacted {
		m.Trailers = append(m.Trailers, Trailer{TrailerCompacted, c.ID + " " + c.Rule})
	}
	for _, c := range plan.Retained {
		m.Trailers = append(m.Trailers, Trailer{TrailerRetained, c.ID + " " + c.Rule})
	}
	m.Trailers = appendNote(m.Trailers, in.Note)
	m, err = validated(m)
	return m, plan, err
}

// CheckCompaction holds a compaction commit to its evidence and to the
// retention rule, as verify judges it: it adds exactly one rollup, every
// other record it changes is retired by it, rolled up by the rollup, named
// in Evidence-Compacted, and, judged with the links to it at the parent
// (citedBy), not decision-bearing.
func CheckCompaction(trailers []Trailer, changes []RecordChange, citedBy func(id string) ([]Citation, error)) ([]Violation, error) {
	var vs violations
	compacted := map[string]bool{}
	for _, v := range TrailerValues(trailers, TrailerCompacted) {
		id, rule, _ := strings.Cut(v, " ")
		if rule != RuleNoise {
			vs.add(RuleTrailers, id, "Evidence-Compacted is \"<id> noise\"", "Evidence-Compacted %q does not name the noise rule", v)
		}
		compacted[id] = true
	}
	var rollup *Record
	for _, c := range changes {
		if c.Added() && c.New != nil {
			if rollup != nil || c.New.Type != RollupType {
				vs.add(RuleOpMatches, c.ID, "a compaction adds one record, its "+RollupType, "compact commit adds record %s of type %s", c.ID, c.New.Type)
				continue
			}
			rollup = c.New
		}
	}
	if rollup == nil {
		vs.add(RuleOpMatches, "", "a compaction adds its "+RollupType+" record", "compact commit adds no rollup")
		return vs, nil
	}
	for _, c := range changes {
		if c.Added() || c.New == nil || c.Old == nil {
			continue
		}
		id := c.ID
		if c.New.Status != StatusRetired {
			vs.add(RuleOpMatches, id, "a compaction retires what it rolls up, nothing else", "compact commit changes %s without retiring it", id)
		}
		if !rollup.HasLink(id, LinkRollsUp) {
			vs.add(RuleOpMatches, id, "the rollup links every record it retires (rolls-up)", "compact commit retires %s, which its rollup does not roll up", id)
		}
		if !compacted[id] {
			vs.add(RuleTrailers, id, "name every retired record in Evidence-Compacted with the rule that let it go", "compact commit retires %s without an Evidence-Compacted trailer", id)
		}
		cited, err := citedBy(id)
		if err != nil {
			return nil, err
		}
		if rule, reason, bearing := DecisionBearing(c.Old, cited); bearing {
			vs.add(RuleDecisionBearing, id, "decision-bearing records are preserved: restore it (retire it on its own with git records retire if it must go)", "compact commit retires decision-bearing record %s (rule %s: %s)", id, rule, reason)
		}
	}
	return vs, nil
}
