package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Op names a mutation.
type Op string

const (
	OpCreate    Op = "create"
	OpUpdate    Op = "update"
	OpLink      Op = "link"
	OpPropose   Op = "propose"
	OpApply     Op = "apply"
	OpReject    Op = "reject"
	OpSupersede Op = "supersede"
	OpRetire    Op = "retire"
	OpInit      Op = "init"
	// OpPolicy changes .records/policy.yaml or .records/allowed_signers:
	// who may do what is itself reviewed and signed.
	OpPolicy Op = "policy"
	// OpMerge joins two record histories: a commit with two parents whose
	// records are the record-level three-way merge of both sides.
	OpMerge Op = "merge"
	// OpVerify writes freshness verdicts back (the verify_record action).
	OpVerify Op = "verify"
	// OpImport creates many records in one commit (git records import),
	// and updates those a new version of their note changes: it needs the
	// create right of every record it creates and the update right of
	// every record it changes (RequiredRights).
	OpImport Op = "import"
	// Log-only op names that appear in mutation logs but never as a commit op.
	OpSupersededBy = "superseded-by"
)

// OpSpec is what the rules know about an op: its risk and the evidence
// trailers every commit of it must carry (checked again by verify).
type OpSpec struct {
	Op               Op
	Risk             Risk
	RequiredTrailers []string
}

// OpSpecs lists every commit op: the one op table (opSpecs); callers must
// not change it.
func OpSpecs() map[Op]OpSpec { return opSpecs }

// opSpecs is every commit op: the one op table (OpSpecs).
var opSpecs = map[Op]OpSpec{
	OpInit:      {OpInit, RiskWritesLocalState, nil},
	OpCreate:    {OpCreate, RiskWritesLocalState, nil},
	OpUpdate:    {OpUpdate, RiskWritesLocalState, []string{TrailerFields}},
	OpLink:      {OpLink, RiskWritesLocalState, []string{TrailerLink}},
	OpPropose:   {OpPropose, RiskWritesLocalState, []string{TrailerProposer, TrailerProposal}},
	OpApply:     {OpApply, RiskExternalMutation, []string{TrailerProposer, TrailerRationale, TrailerNewBody}},
	OpReject:    {OpReject, RiskWritesLocalState, []string{TrailerProposer, TrailerReason}},
	OpSupersede: {OpSupersede, RiskExternalMutation, []string{TrailerSupersedes, TrailerRationale}},
	OpRetire:    {OpRetire, RiskExternalMutation, []string{TrailerTargetStatus, TrailerRationale}},
	OpPolicy:    {OpPolicy, RiskDestructive, []string{TrailerRationale}},
	OpMerge:     {OpMerge, RiskWritesLocalState, []string{TrailerMergedFrom}},
	OpVerify:    {OpVerify, RiskWritesLocalState, []string{TrailerGitHead, TrailerFreshness}},
	OpImport:    {OpImport, RiskWritesLocalState, []string{TrailerSource, TrailerCount, TrailerDigest}},
	OpCompact:   {OpCompact, RiskExternalMutation, []string{TrailerBefore, TrailerRationale}},
	// The manage ops of execution records (execution.go): allowed by
	// owner, each closed record with its receipt (Evidence-Creator).
	OpCancel:     {OpCancel, RiskWritesLocalState, []string{TrailerExecState, TrailerReason, TrailerCreator}},
	OpClose:      {OpClose, RiskWritesLocalState, []string{TrailerExecState, TrailerCreator}},
	OpCleanup:    {OpCleanup, RiskWritesLocalState, []string{TrailerExecState, TrailerReason, TrailerCreator}},
	OpForceClose: {OpForceClose, RiskExternalMutation, []string{TrailerExecState, TrailerReason, TrailerCreator}},
	// Changing the extension bindings (bindings.go): a maintainer's op.
	OpBind:    {OpBind, RiskWritesLocalState, []string{TrailerRationale}},
	OpMigrate: {OpMigrate, RiskDestructive, []string{TrailerFromFormat, TrailerRationale}},
}

// OpNamesRecords reports whether a commit of op names the records it
// writes in Record-Id trailers, and so an approval of it names them too:
// init, policy and bind write store files only, and a merge may.
func OpNamesRecords(op Op) bool {
	switch op {
	case OpInit, OpPolicy, OpMerge, OpBind:
		return false
	}
	return true
}

// The fixed set of trailer keys a record commit may carry.
const (
	TrailerOp            = "Record-Op"
	TrailerID            = "Record-Id"
	TrailerAgent         = "Record-Agent"
	TrailerFormat        = "Record-Format"
	TrailerSession       = "Record-Session"
	TrailerNote          = "Evidence-Note"
	TrailerFields        = "Evidence-Fields"
	TrailerLink          = "Evidence-Link"
	TrailerProposer      = "Evidence-Proposer"
	TrailerProposal      = "Evidence-Proposal"
	TrailerNewBody       = "Evidence-New-Body"
	TrailerRationale     = "Evidence-Rationale"
	TrailerReason        = "Evidence-Reason"
	TrailerSupersedes    = "Evidence-Supersedes"
	TrailerTargetStatus  = "Evidence-Target-Status"
	TrailerImplementedBy = "Evidence-Implemented-By"
	TrailerSupersededBy  = "Evidence-Superseded-By"
	TrailerApprovedBy    = "Approved-By"
	// Of a merge commit.
	TrailerMergedFrom = "Evidence-Merged-From" // the other side's tip
	TrailerConflict   = "Evidence-Conflict"    // "<id> <field> kept <commit>"
	// Of a verify commit: what the verdict was checked against.
	TrailerGitHead   = "Evidence-Git-Head"
	TrailerFilesHash = "Evidence-Files-Hash"
	TrailerFreshness = "Evidence-Freshness"
	// Of an import commit: what was read, how many records it creates and
	// the digest of the input.
	TrailerSource = "Evidence-Source"
	TrailerCount  = "Evidence-Count"
	TrailerDigest = "Evidence-Digest"
	// Of a manage op: the state it closes records in, and per record its
	// receipt, "<id> job=… dispatch=… work_item=…" (the creator lineage).
	TrailerExecState = "Evidence-Exec-State"
	TrailerCreator   = "Evidence-Creator"
	// Of a commit written under extension bindings: one per slot,
	// "<slot> <implementation> source=… kind=… hash=…" (the binding manifest).
	TrailerBinding        = "Evidence-Binding"
	maxTrailerValueLength = 2048
)

// TrailerApprovalSignature carries the approver's signature over the
// approval statement (ApprovalStatement): its sshsig blob in base64 on one
// line, about 400 characters for Ed25519 and 1,500 for RSA-4096, both under
// the trailer value cap.
const TrailerApprovalSignature = "Approval-Signature"

// TrailerKeys is the fixed key set; a decoder treats any other key as forged.
var TrailerKeys = []string{
	TrailerOp, TrailerID, TrailerAgent, TrailerFormat, TrailerSession, TrailerNote, TrailerFields,
	TrailerLink, TrailerProposer, TrailerProposal, TrailerNewBody, TrailerRationale, TrailerReason,
	TrailerSupersedes, TrailerTargetStatus, TrailerImplementedBy, TrailerSupersededBy, TrailerApprovedBy,
	TrailerApprovalSignature, TrailerMergedFrom, TrailerConflict, TrailerGitHead, TrailerFilesHash, TrailerFreshness,
	TrailerSource, TrailerCount, TrailerDigest, TrailerBefore, TrailerCompacted, TrailerRetained,
	TrailerExecState, TrailerCreator, TrailerBinding, TrailerFromFormat,
}

// IsTrailerKey reports whether key belongs to the fixed set.
func IsTrailerKey(key string) bool {
	for _, k := range TrailerKeys {
		if k == key {
			return true
		}
	}
	return false
}

// Trailer is one "Key: value" line of a commit message.
type Trailer struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Mutation is what an op decides: the records to write and the evidence the
// commit carries. The store turns it into one signed commit.
type Mutation struct {
	Op       Op
	Type     string // type of the primary record, for the subject
	Title    string // title of the primary record, for the subject
	Message  string // free-text commit body (the note)
	Writes   []*Record
	Files    map[string][]byte // other files on the branch (.records/…), for init and policy
	Trailers []Trailer
}

// Subject is the commit subject "op(type): title", one line.
func (m *Mutation) Subject() string {
	title := strings.Join(strings.Fields(m.Title), " ")
	if len(title) > 200 {
		title = truncateUTF8(title, 200) + "…"
	}
	return string(m.Op) + "(" + m.Type + "): " + title
}

// View is a consistent read of the store at one tip, which an op validates
// against. The store re-runs the op on a new view when it loses a race.
type View interface {
	// Record returns the record with exactly this id, or nil.
	Record(id string) (*Record, error)
	// Resolve turns a handle (id, alias, unique prefix) into an id; "" when
	// nothing matches; AMBIGUOUS_ID when a prefix matches several.
	Resolve(handle string) (string, error)
	// AliasOwner returns the id holding alias, or "".
	AliasOwner(alias string) (string, error)
}

// Env is what an op needs from the world: the clock and fresh ids.
type Env struct {
	Now   time.Time
	NewID func() string
	// Principal names who the store signs as at the tip, for ops that
	// record their signer (an execution record's owner); nil when the
	// store cannot say.
	Principal func() (string, error)
}

// Evidence is the caller-supplied evidence of an op (contract §6, A.5, B.4).
type Evidence struct {
	Agent            string `json:"agent,omitempty"`
	Note             string `json:"note,omitempty"`
	SessionID        string `json:"session_id,omitempty"`
	Proposal         string `json:"proposal,omitempty"`
	NewBody          string `json:"new_body,omitempty"`
	Rationale        string `json:"rationale,omitempty"`
	Reason           string `json:"reason,omitempty"`
	ImplementedByRef string `json:"implementedByRef,omitempty"`
	SupersededByRef  string `json:"supersededByRef,omitempty"`
	ApprovedBy       string `json:"approved_by,omitempty"`
}

// CreateInput is the create op's input (contract CreateInput plus the Agent
// Kit fields), as typed values: each front-end parses what it was given.
type CreateInput struct {
	ID          string             `json:"id,omitempty"`
	Type        string             `json:"type"`
	Title       string             `json:"title"`
	Body        string             `json:"body"`
	Category    string             `json:"category"`
	Tags        []string           `json:"tags,omitempty"`
	Aliases     []string           `json:"aliases,omitempty"`
	Links       []Link             `json:"links,omitempty"`
	Provenance  Provenance         `json:"provenance"`
	ExpiresAt   ExpiryInput        `json:"expires_at,omitzero"`
	TTLSeconds  TTLInput           `json:"ttl_seconds,omitzero"`
	Kind        Kind               `json:"kind,omitempty"`
	Role        Role               `json:"role,omitempty"`
	Authority   Authority          `json:"authority,omitempty"`
	Source      *Source            `json:"source,omitempty"`
	ObservedAt  string             `json:"observed_at,omitempty"`
	Scope       *Scope             `json:"scope,omitempty"`
	From        string             `json:"from,omitempty"`
	To          string             `json:"to,omitempty"`
	Relation    string             `json:"relation,omitempty"`
	MapsTo      string             `json:"maps_to,omitempty"`
	Owner       *Owner             `json:"owner,omitempty"`
	Creator     *Creator           `json:"creator,omitempty"`
	Execution   *Execution         `json:"execution,omitempty"`
	Contract    *ExtensionContract `json:"extension_contract,omitempty"`
	CommitNote  string             `json:"-"` // free text for the commit body
	Unsupported map[string]any     `json:"-"`
}

// UpdateFields are the mutable fields update may change (§6.2, H.4, J.2).
// A nil pointer means "not supplied"; Status is accepted and ignored (B.1).
type UpdateFields struct {
	Title      *string     `json:"title,omitempty"`
	Body       *string     `json:"body,omitempty"`
	Category   *string     `json:"category,omitempty"`
	Tags       *[]string   `json:"tags,omitempty"`
	Links      *[]Link     `json:"links,omitempty"`
	Aliases    []string    `json:"aliases,omitempty"`
	ExpiresAt  ExpiryInput `json:"expires_at,omitzero"`
	TTLSeconds TTLInput    `json:"ttl_seconds,omitzero"`
	Scope      *Scope      `json:"scope,omitempty"`
	// Properties and WrittenAs replace an imported note's (an edit of
	// its front matter, an export's source links).
	Properties *Properties    `json:"properties,omitempty"`
	WrittenAs  *[]WrittenLink `json:"written_as,omitempty"`
	Status     any            `json:"status,omitempty"`
}

func requireAgent(ev Evidence) error {
	if strings.TrimSpace(ev.Agent) == "" {
		return Errorf(CodeMissingEvidence, "evidence.agent is required: who or what performs the op").WithField("evidence.agent")
	}
	return checkText("evidence.agent", ev.Agent, 1024, true)
}

func requireText(name, v, why string) error {
	if strings.TrimSpace(v) == "" {
		return Errorf(CodeMissingEvidence, "%s is required (%s)", name, why).WithField(name)
	}
	return nil
}

// Create validates a create and returns the new record as a mutation.
func Create(v View, in CreateInput, env Env) (*Mutation, error) {
	def, ok := LookupType(in.Type)
	if err := ValidateType(in.Type); err != nil || !ok {
		return nil, err
	}
	for _, f := range []struct{ name, v string }{{"title", in.Title}, {"body", in.Body}} {
		if err := requireText(f.name, f.v, "a record needs a non-empty "+f.name); err != nil {
			return nil, err
		}
	}
	if err := ValidateCategory(in.Category); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Provenance.Agent) == "" {
		return nil, Errorf(CodeMissingEvidence, "provenance.agent is required: who or what creates the record").WithField("provenance.agent")
	}
	id := in.ID
	if id == "" {
		id = env.NewID()
	} else if err := ValidateID(id); err != nil {
		return nil, err
	}
	existing, err := v.Record(id)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return nil, Errorf(CodeIDConflict, "a record with id %q already exists (%s)", id, existing.Title)
	}
	// An exact id wins over an alias (H.2): a caller's id would take the
	// handle from the record that holds it as a slug, which must keep
	// resolving (H.5). A generated id is 128 random bits and no one's slug,
	// so only supplied ids pay for the alias lookup (it reads the index).
	if in.ID != "" {
		if owner, err := v.AliasOwner(id); err != nil {
			return nil, err
		} else if owner != "" {
			return nil, Errorf(CodeIDConflict, "id %q is already an alias of record %s: choose another id", id, owner).WithExtra("owner", owner)
		}
	}
	now := At(env.Now)
	r := &Record{
		ID: id, Type: in.Type, Title: in.Title, Body: in.Body, Category: in.Category,
		Status: StatusActive, Kind: def.Kind, Role: def.Role, Authority: def.Authority,
		Tags: dedupe(in.Tags), Provenance: in.Provenance, CreatedAt: now, UpdatedAt: now,
		Source: in.Source, Scope: in.Scope, From: in.From, To: in.To, Relation: in.Relation, MapsTo: in.MapsTo,
		Owner: in.Owner, Creator: in.Creator, Execution: in.Execution, Contract: in.Contract,
	}
	if in.Kind != "" {
		r.Kind = in.Kind
	}
	if in.Role != "" {
		r.Role = in.Role
	}
	if in.Authority != "" {
		r.Authority = in.Authority
	}
	if in.ObservedAt != "" {
		t, err := ParseTimestamp(in.ObservedAt)
		if err != nil {
			return nil, Errorf(CodeInvalidRecord, "observed_at: %v", err).WithField("observed_at")
		}
		r.ObservedAt = &t
	}
	r.ExpiresAt = in.ExpiresAt.value()
	if r.TTLSeconds, err = in.TTLSeconds.value(); err != nil {
		return nil, err
	}
	if err := claimAliases(v, r, in.Aliases); err != nil {
		return nil, err
	}
	if r.Links, err = resolveLinks(v, nil, in.Links); err != nil {
		return nil, err
	}
	if r.Kind == KindRelation {
		for _, end := range []struct {
			field string
			id    *string
		}{{"from", &r.From}, {"to", &r.To}} {
			if *end.id == "" {
				continue
			}
			if *end.id, err = mustResolve(v, *end.id, "relation endpoint"); err != nil {
				return nil, AboutField(err, end.field)
			}
		}
	}
	r.MutationLog = []MutationEntry{{Op: string(OpCreate), At: now, Agent: in.Provenance.Agent, Note: in.Provenance.Note}}
	if err := Validate(r); err != nil {
		return nil, err
	}
	m := &Mutation{Op: OpCreate, Type: r.Type, Title: r.Title, Message: in.CommitNote, Writes: []*Record{r}}
	m.Trailers = baseTrailers(OpCreate, in.Provenance.Agent, in.Provenance.SessionID, r.ID)
	for _, l := range r.Links {
		m.Trailers = append(m.Trailers, Trailer{TrailerLink, l.Kind + " " + l.TargetID})
	}
	m.Trailers = appendNote(m.Trailers, in.Provenance.Note)
	return m, nil
}

// Update changes mutable fields (§6.2). Immutable fields never change;
// status is ignored (B.1); aliases are a union (H.4).
func Update(v View, handle string, f UpdateFields, ev Evidence, env Env) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	cur, err := mustRecord(v, handle)
	if err != nil {
		return nil, err
	}
	r := cur.Clone()
	var changed []string
	if f.Title != nil {
		if err := requireText("title", *f.Title, "a title cannot be cleared"); err != nil {
			return nil, err
		}
		r.Title, changed = *f.Title, append(changed, "title")
	}
	if f.Body != nil {
		if err := requireText("body", *f.Body, "a body cannot be cleared"); err != nil {
			return nil, err
		}
		r.Body, changed = *f.Body, append(changed, "body")
	}
	if f.Category != nil {
		if err := ValidateCategory(*f.Category); err != nil {
			return nil, err
		}
		r.Category, changed = *f.Category, append(changed, "category")
	}
	if f.Tags != nil {
		r.Tags, changed = dedupe(*f.Tags), append(changed, "tags")
	}
	if f.Links != nil {
		if r.Links, err = resolveLinks(v, nil, *f.Links); err != nil {
			return nil, err
		}
		changed = append(changed, "links")
	}
	if len(f.Aliases) > 0 {
		if err := claimAliases(v, r, f.Aliases); err != nil {
			return nil, err
		}
		changed = append(changed, "aliases")
	}
	if f.ExpiresAt.Set {
		r.ExpiresAt, changed = f.ExpiresAt.value(), append(changed, "expires_at")
	}
	if ttl, err := f.TTLSeconds.value(); err != nil {
		return nil, err
	} else if f.TTLSeconds.Set {
		r.TTLSeconds, changed = ttl, append(changed, "ttl_seconds")
	}
	if f.Scope != nil {
		r.Scope, changed = f.Scope, append(changed, "scope")
	}
	if f.Properties != nil {
		r.Properties, changed = NormalizeProperties(*f.Properties), append(changed, "properties")
	}
	if f.WrittenAs != nil {
		r.WrittenAs, changed = append([]WrittenLink(nil), *f.WrittenAs...), append(changed, "written_as")
	}
	if len(changed) == 0 {
		return nil, Errorf(CodeMissingEvidence, "update changes nothing: supply at least one of %s", strings.Join(FieldsChangedBy(OpUpdate), ", "))
	}
	// A field given the value it already holds is no change: the evidence
	// names what changed, and an update that changes nothing writes nothing.
	supplied := changed
	changed = nil
	for _, name := range supplied {
		if f, ok := LookupField(name); !ok || f.Changed(cur, r) {
			changed = append(changed, name)
		}
	}
	if len(changed) == 0 {
		return nil, nil // idempotent, as re-supplying an own alias is (H.4)
	}
	now := At(env.Now)
	r.UpdatedAt = now
	r.MutationLog = append(r.MutationLog, MutationEntry{Op: string(OpUpdate), At: now, Agent: ev.Agent, Note: ev.Note,
		Evidence: map[string]any{"fields": changed}})
	if err := Validate(r); err != nil {
		return nil, err
	}
	m := &Mutation{Op: OpUpdate, Type: r.Type, Title: r.Title, Message: ev.Note, Writes: []*Record{r}}
	m.Trailers = append(baseTrailers(OpUpdate, ev.Agent, ev.SessionID, r.ID), Trailer{TrailerFields, strings.Join(changed, ",")})
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return m, nil
}

// Link adds links from a record (§6.3). Idempotent: when every link already
// exists it returns (nil, nil) and nothing is written.
func LinkRecords(v View, sourceHandle string, links []Link, ev Evidence, env Env) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	if len(links) == 0 {
		return nil, Errorf(CodeMissingEvidence, "links must not be empty: give at least one {target_id, kind}").WithField("links")
	}
	cur, err := mustRecord(v, sourceHandle)
	if err != nil {
		return nil, err
	}
	added, err := resolveLinks(v, cur.Links, links)
	if err != nil {
		return nil, err
	}
	fresh := added[len(cur.Links):]
	if len(fresh) == 0 {
		return nil, nil
	}
	r := cur.Clone()
	r.Links = added
	now := At(env.Now)
	r.UpdatedAt = now
	ids := make([]any, len(fresh))
	for i, l := range fresh {
		ids[i] = map[string]any{"target_id": l.TargetID, "kind": l.Kind}
	}
	r.MutationLog = append(r.MutationLog, MutationEntry{Op: string(OpLink), At: now, Agent: ev.Agent, Note: ev.Note, Evidence: map[string]any{"links": ids}})
	if err := Validate(r); err != nil {
		return nil, err
	}
	m := &Mutation{Op: OpLink, Type: r.Type, Title: r.Title, Message: ev.Note, Writes: []*Record{r}}
	m.Trailers = baseTrailers(OpLink, ev.Agent, ev.SessionID, r.ID)
	for _, l := range fresh {
		m.Trailers = append(m.Trailers, Trailer{TrailerLink, l.Kind + " " + l.TargetID})
	}
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return m, nil
}

// conceptAndProposer resolves the two records propose/apply/reject act on.
// The target may be a record of any type: the contract's consolidation
// flow proposes on snapshots, and its entity records (people) take
// proposals too.
func conceptAndProposer(v View, conceptHandle, proposerHandle string) (*Record, *Record, error) {
	concept, err := mustRecord(v, conceptHandle)
	if err != nil {
		return nil, nil, err
	}
	proposer, err := mustRecord(v, proposerHandle)
	if err != nil {
		return nil, nil, AboutField(err, "proposer_id")
	}
	return concept, proposer, nil
}

// Propose records a proposed change to a concept (§6.4): a proposes link on
// the proposer and a log entry on the concept, in one commit.
func Propose(v View, conceptHandle, proposerHandle string, ev Evidence, env Env) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	if err := requireText("evidence.proposal", ev.Proposal, "the proposed change"); err != nil {
		return nil, err
	}
	if err := requireProposer(proposerHandle); err != nil {
		return nil, err
	}
	concept, proposer, err := conceptAndProposer(v, conceptHandle, proposerHandle)
	if err != nil {
		return nil, err
	}
	now := At(env.Now)
	c := concept.Clone()
	c.MutationLog = append(c.MutationLog, MutationEntry{Op: string(OpPropose), At: now, Agent: ev.Agent, Note: ev.Note,
		Evidence: map[string]any{"proposer_id": proposer.ID, "proposal": ev.Proposal,
			"proposal_id": ProposalID(c.ID, proposer.ID, now, ev.Proposal)}})
	writes := []*Record{c}
	if !proposer.HasLink(c.ID, LinkProposes) {
		p := proposer.Clone()
		if p.ID == c.ID {
			p = c
		}
		p.Links = append(p.Links, Link{TargetID: c.ID, Kind: LinkProposes})
		p.UpdatedAt = now
		if p != c {
			writes = append(writes, p)
		}
	}
	m := &Mutation{Op: OpPropose, Type: c.Type, Title: c.Title, Message: ev.Note, Writes: writes}
	m.Trailers = append(baseTrailers(OpPropose, ev.Agent, ev.SessionID, ids(writes)...),
		Trailer{TrailerProposer, proposer.ID}, Trailer{TrailerProposal, ev.Proposal})
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return validated(m)
}

// Apply replaces a concept's body with an accepted proposal (§6.5).
// proposerHandle names the proposal: its id, or the proposer record, whose
// latest pending proposal is taken. Only a pending proposal can be applied.
func Apply(v View, conceptHandle, proposerHandle string, ev Evidence, env Env) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	if err := requireText("evidence.new_body", ev.NewBody, "the concept's replacement body"); err != nil {
		return nil, err
	}
	if err := requireText("evidence.rationale", ev.Rationale, "why the proposal is accepted"); err != nil {
		return nil, err
	}
	concept, p, err := resolveProposal(v, conceptHandle, proposerHandle)
	if err != nil {
		return nil, err
	}
	now := At(env.Now)
	c := concept.Clone()
	c.Body, c.UpdatedAt = ev.NewBody, now
	c.MutationLog = append(c.MutationLog, MutationEntry{Op: string(OpApply), At: now, Agent: ev.Agent, Note: ev.Note,
		Evidence: map[string]any{"proposer_id": p.ProposerID, "proposal_id": p.ID, "rationale": ev.Rationale}})
	m := &Mutation{Op: OpApply, Type: c.Type, Title: c.Title, Message: ev.Note, Writes: []*Record{c}}
	m.Trailers = append(baseTrailers(OpApply, ev.Agent, ev.SessionID, c.ID),
		Trailer{TrailerProposer, p.ProposerID}, Trailer{TrailerRationale, ev.Rationale},
		Trailer{TrailerNewBody, BodyDigest(ev.NewBody)})
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return validated(m)
}

// Reject records that a proposal was declined (§6.6). proposerHandle
// names the proposal as for Apply; only a pending proposal can be rejected. The concept's content
// and updated_at do not change; only its log grows.
func Reject(v View, conceptHandle, proposerHandle string, ev Evidence, env Env) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	if err := requireText("evidence.reason", ev.Reason, "why the proposal is declined"); err != nil {
		return nil, err
	}
	concept, p, err := resolveProposal(v, conceptHandle, proposerHandle)
	if err != nil {
		return nil, err
	}
	c := concept.Clone()
	c.MutationLog = append(c.MutationLog, MutationEntry{Op: string(OpReject), At: At(env.Now), Agent: ev.Agent, Note: ev.Note,
		Evidence: map[string]any{"proposer_id": p.ProposerID, "proposal_id": p.ID, "reason": ev.Reason}})
	m := &Mutation{Op: OpReject, Type: c.Type, Title: c.Title, Message: ev.Note, Writes: []*Record{c}}
	m.Trailers = append(baseTrailers(OpReject, ev.Agent, ev.SessionID, c.ID),
		Trailer{TrailerProposer, p.ProposerID}, Trailer{TrailerReason, ev.Reason})
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return validated(m)
}

// Supersede marks records as replaced by a newer one (A.5). Nothing is
// deleted: the new record gains supersedes links, each old one a log entry.
func Supersede(v View, newHandle string, oldHandles []string, ev Evidence, env Env) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	if err := requireText("evidence.rationale", ev.Rationale, "why the new record supersedes the old ones"); err != nil {
		return nil, err
	}
	if len(oldHandles) == 0 {
		return nil, Errorf(CodeMissingEvidence, "superseded_ids must not be empty")
	}
	cur, err := mustRecord(v, newHandle)
	if err != nil {
		return nil, err
	}
	now := At(env.Now)
	n := cur.Clone()
	writes := []*Record{n}
	var oldIDs []string
	for _, h := range oldHandles {
		old, err := mustRecord(v, h)
		if err != nil {
			return nil, err
		}
		if old.ID == n.ID {
			return nil, Errorf(CodeMissingEvidence, "a record cannot supersede itself (%s)", n.ID)
		}
		if contains(oldIDs, old.ID) {
			continue
		}
		oldIDs = append(oldIDs, old.ID)
		if !n.HasLink(old.ID, LinkSupersedes) {
			n.Links = append(n.Links, Link{TargetID: old.ID, Kind: LinkSupersedes})
		}
		o := old.Clone()
		o.MutationLog = append(o.MutationLog, MutationEntry{Op: OpSupersededBy, At: now, Agent: ev.Agent, Note: ev.Note, NewID: n.ID,
			Evidence: map[string]any{"new_id": n.ID, "rationale": ev.Rationale}})
		writes = append(writes, o)
	}
	n.UpdatedAt = now
	n.MutationLog = append(n.MutationLog, MutationEntry{Op: string(OpSupersede), At: now, Agent: ev.Agent, Note: ev.Note,
		Evidence: map[string]any{"superseded_ids": oldIDs, "rationale": ev.Rationale}})
	m := &Mutation{Op: OpSupersede, Type: n.Type, Title: n.Title, Message: ev.Note, Writes: writes}
	m.Trailers = baseTrailers(OpSupersede, ev.Agent, ev.SessionID, ids(writes)...)
	for _, id := range oldIDs {
		m.Trailers = append(m.Trailers, Trailer{TrailerSupersedes, id})
	}
	m.Trailers = append(m.Trailers, Trailer{TrailerRationale, ev.Rationale})
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return validated(m)
}

// transitions is the status lifecycle (B.2): from -> allowed targets.
var transitions = map[Status][]Status{
	StatusActive:      {StatusImplemented, StatusRetired},
	StatusImplemented: {StatusRetired},
}

// CanTransition reports whether the lifecycle allows from -> to.
func CanTransition(from, to Status) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// Retire moves a record to implemented or retired (B.4). Never deletes.
func Retire(v View, handle string, target Status, ev Evidence, env Env) (*Mutation, error) {
	if err := requireAgent(ev); err != nil {
		return nil, err
	}
	if target != StatusImplemented && target != StatusRetired {
		return nil, Errorf(CodeMissingEvidence, "target_status must be implemented or retired, got %q", target).WithField("target_status")
	}
	if err := requireText("evidence.rationale", ev.Rationale, "why the record is retired"); err != nil {
		return nil, err
	}
	if target == StatusImplemented {
		if err := requireText("evidence.implementedByRef", ev.ImplementedByRef, "the commit, PR or issue that implements it"); err != nil {
			return nil, err
		}
	}
	cur, err := mustRecord(v, handle)
	if err != nil {
		return nil, err
	}
	if from := cur.EffectiveStatus(); !CanTransition(from, target) {
		return nil, Errorf(CodeMissingEvidence, "record %s is %s and cannot become %s: allowed are active→implemented, active→retired, implemented→retired", cur.ID, from, target)
	}
	now := At(env.Now)
	r := cur.Clone()
	r.Status, r.UpdatedAt = target, now
	evidence := map[string]any{"targetStatus": string(target), "rationale": ev.Rationale}
	if ev.ImplementedByRef != "" {
		evidence["implementedByRef"] = ev.ImplementedByRef
	}
	if ev.SupersededByRef != "" {
		evidence["supersededByRef"] = ev.SupersededByRef
	}
	r.MutationLog = append(r.MutationLog, MutationEntry{Op: string(OpRetire), At: now, Agent: ev.Agent, Note: ev.Note, Evidence: evidence})
	m := &Mutation{Op: OpRetire, Type: r.Type, Title: r.Title, Message: ev.Note, Writes: []*Record{r}}
	m.Trailers = append(baseTrailers(OpRetire, ev.Agent, ev.SessionID, r.ID),
		Trailer{TrailerTargetStatus, string(target)}, Trailer{TrailerRationale, ev.Rationale})
	if ev.ImplementedByRef != "" {
		m.Trailers = append(m.Trailers, Trailer{TrailerImplementedBy, ev.ImplementedByRef})
	}
	if ev.SupersededByRef != "" {
		m.Trailers = append(m.Trailers, Trailer{TrailerSupersededBy, ev.SupersededByRef})
	}
	m.Trailers = appendNote(m.Trailers, ev.Note)
	return validated(m)
}

// BodyDigest names a body in a trailer without copying it there.
func BodyDigest(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func baseTrailers(op Op, agent, session string, recordIDs ...string) []Trailer {
	t := []Trailer{{TrailerOp, string(op)}}
	for _, id := range recordIDs {
		t = append(t, Trailer{TrailerID, id})
	}
	t = append(t, Trailer{TrailerAgent, agent})
	if session != "" {
		t = append(t, Trailer{TrailerSession, session})
	}
	return append(t, Trailer{TrailerFormat, FormatVersion})
}

func appendNote(t []Trailer, note string) []Trailer {
	if note == "" {
		return t
	}
	return append(t, Trailer{TrailerNote, truncateUTF8(note, maxTrailerValueLength)})
}

// truncateUTF8 cuts s to at most n bytes without splitting a character, so a
// shortened subject or trailer stays valid UTF-8.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// mustResolve resolves a handle or fails with NOT_FOUND.
func mustResolve(v View, handle, what string) (string, error) {
	id, err := v.Resolve(handle)
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", Errorf(CodeNotFound, "%s %q does not exist: check the id, alias or 8+ character prefix", what, handle)
	}
	return id, nil
}

func mustRecord(v View, handle string) (*Record, error) {
	id, err := mustResolve(v, handle, "record")
	if err != nil {
		return nil, err
	}
	r, err := v.Record(id)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, Errorf(CodeNotFound, "record %q does not exist", handle)
	}
	return r, nil
}

// resolveLinks appends links to existing, resolving each target handle to an
// id and dropping (target, kind) pairs already present.
func resolveLinks(v View, existing, links []Link) ([]Link, error) {
	resolved := make([]Link, 0, len(links))
	for _, l := range links {
		if err := validateLink(l); err != nil {
			return nil, err
		}
		id, err := mustResolve(v, l.TargetID, "link target")
		if err != nil {
			return nil, AboutField(err, "links.target_id")
		}
		l.TargetID = id
		resolved = append(resolved, l)
	}
	return UnionLinks(existing, resolved), nil
}

// claimAliases unions aliases into r after checking each is well formed and
// not held by another record (H.4).
func claimAliases(v View, r *Record, aliases []string) error {
	for _, a := range aliases {
		if err := ValidateAlias(a); err != nil {
			return err
		}
		owner, err := v.AliasOwner(a)
		if err != nil {
			return err
		}
		if owner != "" && owner != r.ID {
			return Errorf(CodeSlugConflict, "alias %q already belongs to record %s", a, owner).WithExtra("alias", a).WithExtra("owner", owner)
		}
		if !contains(r.Aliases, a) {
			// A slug spelled like another record's id would never resolve to
			// this record: the exact id wins (H.2).
			other, err := v.Record(a)
			if err != nil {
				return err
			}
			if other != nil && other.ID != r.ID {
				return Errorf(CodeSlugConflict, "alias %q is the id of record %s", a, other.ID).WithExtra("alias", a).WithExtra("owner", other.ID)
			}
			r.Aliases = append(r.Aliases, a)
		}
	}
	return nil
}

// validated returns m when every record it writes is valid, and no mutation
// otherwise, so a caller can never write a mutation that came with an error.
func validated(m *Mutation) (*Mutation, error) {
	for _, r := range m.Writes {
		if err := Validate(r); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func ids(rs []*Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SortedIDs returns the ids of rs, sorted; used for deterministic output.
func SortedIDs(rs []*Record) []string {
	out := ids(rs)
	sort.Strings(out)
	return out
}
