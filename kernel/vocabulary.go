package kernel

// Status is the stored lifecycle status (Addendum B.1).
type Status string

const (
	StatusActive      Status = "active"
	StatusImplemented Status = "implemented"
	StatusRetired     Status = "retired"
)

// Kind is the structural axis of an Agent Kit record.
type Kind string

const (
	KindEntity   Kind = "entity"
	KindRelation Kind = "relation"
	KindEvent    Kind = "event"
	KindSnapshot Kind = "snapshot"
)

// Role is the truth-posture axis.
type Role string

const (
	RoleFact     Role = "fact"
	RoleClaim    Role = "claim"
	RoleDecision Role = "decision"
)

// Authority says who owns or derives the truth.
type Authority string

const (
	AuthorityExternal Authority = "external"
	AuthorityLocal    Authority = "local"
	AuthorityComputed Authority = "computed"
)

// The closed axes' values, in lifecycle or documentation order, for front-ends
// that check a filter or offer them as choices.
var (
	Statuses    = []Status{StatusActive, StatusImplemented, StatusRetired}
	Kinds       = []Kind{KindEntity, KindRelation, KindEvent, KindSnapshot}
	Roles       = []Role{RoleFact, RoleClaim, RoleDecision}
	Authorities = []Authority{AuthorityExternal, AuthorityLocal, AuthorityComputed}
)

var (
	validKinds       = map[Kind]bool{KindEntity: true, KindRelation: true, KindEvent: true, KindSnapshot: true}
	validRoles       = map[Role]bool{RoleFact: true, RoleClaim: true, RoleDecision: true}
	validAuthorities = map[Authority]bool{AuthorityExternal: true, AuthorityLocal: true, AuthorityComputed: true}
)

// FreshnessState is a record's freshness against the source it speaks about
// (Agent Kit, Freshness; Addendum J).
type FreshnessState string

const (
	FreshnessCurrent     FreshnessState = "current"
	FreshnessStale       FreshnessState = "stale"
	FreshnessUnknown     FreshnessState = "unknown"
	FreshnessSuperseded  FreshnessState = "superseded"
	FreshnessUnavailable FreshnessState = "unavailable"
)

// Risk is an action's risk level (Agent Kit, Actions and control), ordered
// from least to most dangerous.
type Risk string

const (
	RiskReadOnly         Risk = "read_only"
	RiskWritesLocalState Risk = "writes_local_state"
	RiskWritesWorktree   Risk = "writes_worktree"
	RiskExternalMutation Risk = "external_mutation"
	RiskDestructive      Risk = "destructive"
)

var riskOrder = map[Risk]int{RiskReadOnly: 0, RiskWritesLocalState: 1, RiskWritesWorktree: 2, RiskExternalMutation: 3, RiskDestructive: 4}

// AtLeast reports whether r is as risky as other or more.
func (r Risk) AtLeast(other Risk) bool { return riskOrder[r] >= riskOrder[other] }

// Link kinds of the store contract (§2.2, A.4, C.2). Unknown kinds are
// accepted (§2.2: forward compatibility); these are the ones with meaning.
const (
	LinkSource     = "source"
	LinkExample    = "example"
	LinkRelated    = "related"
	LinkRefines    = "refines"
	LinkProposes   = "proposes"
	LinkSupersedes = "supersedes"
	LinkAppearsIn  = "appears-in"
	LinkPerson     = "person"
)

// KnownLinkKinds are the link kinds the contract gives a meaning; any other
// lowercase word is stored as given.
var KnownLinkKinds = []string{LinkSource, LinkExample, LinkRelated, LinkRefines, LinkProposes, LinkSupersedes, LinkAppearsIn, LinkPerson,
	LinkParentWorkItem, LinkParentJob, LinkParentDispatch}

// IsKnownLinkKind reports whether kind is one of KnownLinkKinds.
func IsKnownLinkKind(kind string) bool {
	for _, k := range KnownLinkKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// CoreRelations are the Agent Kit's core relation types. A namespaced
// relation ("github.closes") must declare which of these it maps to.
var CoreRelations = []string{
	"references", "depends_on", "implements", "affects", "blocks",
	"resolves", "supersedes", "derived_from", "contradicts", "duplicates",
}

// IsCoreRelation reports whether rel is one of CoreRelations.
func IsCoreRelation(rel string) bool {
	for _, c := range CoreRelations {
		if c == rel {
			return true
		}
	}
	return false
}

// TypeDefinition describes a record type: its name and the axes a record of
// it gets when the writer does not say. Adding a domain type is one entry.
type TypeDefinition struct {
	Name      string
	Kind      Kind
	Role      Role
	Authority Authority
	Doc       string
}

// Types are the known record types. Any other namespaced type ("ns.name") is
// accepted with DefaultAxes; a bare unknown word is rejected, so a typo
// ("concpet") cannot create a new type.
var Types = []TypeDefinition{
	{"raw", KindEntity, RoleFact, AuthorityExternal, "unprocessed source material, verbatim (§1.2)"},
	{"compiled", KindEntity, RoleClaim, AuthorityLocal, "a reviewed distillation of raw records (§1.3)"},
	{"concept", KindEntity, RoleClaim, AuthorityLocal, "a named idea, term or principle (§1.4)"},
	{"snapshot", KindSnapshot, RoleDecision, AuthorityComputed, "a bounded decision summary for a topic (A.3)"},
	{"person", KindEntity, RoleFact, AuthorityLocal, "an entity card for a person (C.1)"},
	{"decision", KindEntity, RoleDecision, AuthorityLocal, "a decision and its reasons"},
	{"relation", KindRelation, RoleFact, AuthorityLocal, "a typed edge between two records (Agent Kit, Relations)"},
	{"review.finding", KindEntity, RoleClaim, AuthorityComputed, "a code-review finding about scoped code"},
	{"github.pull_request", KindEntity, RoleFact, AuthorityExternal, "a pull request observed on GitHub"},
	{TypeRun, KindEntity, RoleFact, AuthorityLocal, "an agent run (a job or dispatch) with an owner (Nitejar §5)"},
	{TypeChildRun, KindEntity, RoleFact, AuthorityLocal, "a subagent child run under a parent run"},
	{TypeBackgroundTask, KindEntity, RoleFact, AuthorityLocal, "a background task that may outlive its run"},
	{TypeHandoff, KindEntity, RoleFact, AuthorityLocal, "a collaboration handoff or relay between agents"},
	{TypeSandbox, KindEntity, RoleFact, AuthorityLocal, "a sandbox that owns execution records"},
	{TypeRoutine, KindEntity, RoleFact, AuthorityLocal, "a routine that can fill an extension slot (WorkRail extension points)"},
	{TypeWorkflow, KindEntity, RoleFact, AuthorityLocal, "a workflow that can fill an extension slot"},
	{TypeExtension, KindEntity, RoleFact, AuthorityLocal, "an extension (capability provider) that can fill a slot"},
}

// DefaultAxes are the axes of a namespaced type without a definition.
var DefaultAxes = TypeDefinition{Kind: KindEntity, Role: RoleClaim, Authority: AuthorityLocal}

// LookupType returns the definition of name; ok is false for an unknown type.
// Namespaced types without an entry get DefaultAxes.
func LookupType(name string) (TypeDefinition, bool) {
	for _, t := range Types {
		if t.Name == name {
			return t, true
		}
	}
	if typePattern.MatchString(name) && containsDot(name) {
		d := DefaultAxes
		d.Name = name
		return d, true
	}
	return TypeDefinition{}, false
}

func containsDot(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return true
		}
	}
	return false
}

// TypeNames lists the defined type names, for error messages and help.
func TypeNames() []string {
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = t.Name
	}
	return names
}

// TypePattern and CategoryPattern are the syntax of a type name and of a
// category (a regular expression JSON Schema reads the same way), for the
// schemas a front-end shows: a type outside TypeNames must also hold a dot
// (it is namespaced, as LookupType says).
func TypePattern() string { return typePattern.String() }

// CategoryPattern: see TypePattern.
func CategoryPattern() string { return categoryPattern.String() }
